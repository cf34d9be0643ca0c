#!/usr/bin/env python3
r"""Benign upload files made by the real programs that make them, for utf8gate's tests.

    PY=$(bash tests/python/setup-venv.sh | tail -n 1)
    "$PY" tests/python/make_benign_files.py OUTDIR

writes one small file (< 200 KiB) per format into OUTDIR and prints one JSON document:

    {"files": [{"name": "cv.docx", "type": "<media type>", "producer": "python-docx"}, ...]}

"type" is the Content-Type that Chromium on Debian puts on that file's multipart part
(EXTENSION_TYPES below, observed, not guessed). "producer" names what wrote the bytes: a
library pinned in requirements.txt, a standard-library module, or "signature+random" for a
file that is a real format signature (and a header where cheap) followed by
random.Random(seed).randbytes — formats no pinned library writes.

A gateway that checks UTF-8 text must let every binary one of these through unread, and
find every text one (.csv .txt .json .svg .html .md: valid UTF-8, NFC, several scripts)
valid.

Determinism: fixed timestamps and seeds wherever the producer takes them. Where a producer
reads the clock itself (zip member times in zipfile, also those taken from a temporary
file's mtime, openpyxl's "modified", odfpy's member times, py7zr's member times)
frozen_clock() pins it to FIXED_TIME while the file is written; if a future version of a
library moves that code, the file is still written, only no longer byte-identical from run
to run.

The makers live in two modules beside this script: benign_office.py (FIXED_TIME, LINES,
frozen_clock(), office and e-book documents, PDF, images) and benign_signatures.py
(archives, database, font, signature+random files). This script holds the media types, the
text files, the list of files and the checks on them.
"""

import json
import os
import sys
import time
import unicodedata

from benign_office import (
    LINES,
    TEXT,
    frozen_clock,
    make_docx,
    make_epub,
    make_image,
    make_ods,
    make_odt,
    make_pdf,
    make_pptx,
    make_xlsx,
)
from benign_signatures import (
    make_7z,
    make_apk,
    make_bz2,
    make_dmg,
    make_exe,
    make_jar,
    make_mp3,
    make_mp4,
    make_ole2,
    make_parquet,
    make_rar,
    make_sqlite,
    make_tar_gz,
    make_wasm,
    make_whl,
    make_woff2,
    make_xz,
    make_zip,
)

# What Chromium puts in a file part's Content-Type, by extension (the text after the last dot:
# Chromium looks at "gz" of ".tar.gz"). Observed with Chromium 156.0.8078.129 (Debian package
# 156.0.8078.129-1~deb12u1, bookworm) on Debian 12 with shared-mime-info 2.2-1 on 2026-12-07,
# by tests/python/chromium_file_types.mjs: a real <input type=file> upload, reading both
# input.files[i].type and the Content-Type of the part that reached a local server (they agreed).
# Chromium's own tables give the well-known types; the others come from shared-mime-info
# (/usr/share/mime), so another distribution or version may send other types for those.
EXTENSION_TYPES = {
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "odt": "application/vnd.oasis.opendocument.text",
    "ods": "application/vnd.oasis.opendocument.spreadsheet",
    "epub": "application/epub+zip",
    "png": "image/png",
    "jpg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "tiff": "image/tiff",
    "ico": "image/vnd.microsoft.icon",
    "bmp": "image/bmp",
    "pdf": "application/pdf",
    "7z": "application/x-7z-compressed",
    "jar": "application/x-java-archive",
    "apk": "application/vnd.android.package-archive",
    "whl": "application/octet-stream",  # File.type "": Chromium sends application/octet-stream
    "zip": "application/zip",
    "gz": "application/gzip",  # .tar.gz: by its last extension (not application/x-compressed-tar)
    "rar": "application/vnd.rar",
    "exe": "application/x-ms-dos-executable",
    "doc": "application/msword",
    "xls": "application/vnd.ms-excel",
    "msg": "application/octet-stream",  # File.type ""
    "mp4": "video/mp4",
    "mp3": "audio/mpeg",
    "sqlite": "application/octet-stream",  # File.type ""
    "wasm": "application/wasm",
    "woff2": "font/woff2",
    "bz2": "application/x-bzip",
    "xz": "application/x-xz",
    "dmg": "application/x-apple-diskimage",
    "parquet": "application/octet-stream",  # File.type ""
    "csv": "text/csv",
    "txt": "text/plain",
    "json": "application/json",
    "svg": "image/svg+xml",
    "html": "text/html",
    "md": "text/markdown",
}
# Extensions whose File.type was "" (the multipart part then says application/octet-stream).
EMPTY_FILE_TYPE = {"whl", "msg", "sqlite", "parquet"}
# The same Chromium with no shared-mime-info database (XDG_DATA_DIRS and XDG_DATA_HOME pointed
# at a missing directory) differs for these: only its built-in tables answer. "" => octet-stream.
WITHOUT_SHARED_MIME_INFO = {
    "odt": "", "ods": "", "7z": "", "jar": "", "rar": "", "woff2": "", "bz2": "", "xz": "",
    "dmg": "",
    "ico": "image/x-icon",
    "exe": "application/octet-stream",  # File.type says so itself (Chromium's own table)
}


# ---------------------------------------------------------------- text


def _text(content):
    def make(path):
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(content)
        return "python"

    return make


def _csv():
    rows = ["lang,text"]
    for line in LINES:
        lang, _, text = line.partition(": ")
        rows.append(f'"{lang}","{text or line}"')
    return "\r\n".join(rows) + "\r\n"


SVG = ('<?xml version="1.0" encoding="UTF-8"?>\n'
       '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240">\n'
       + "".join(f'  <text x="10" y="{20 + 24 * i}">{line}</text>\n' for i, line in enumerate(LINES))
       + "</svg>\n")
HTML = ('<!doctype html>\n<html lang="fr"><head><meta charset="utf-8"><title>Résumé</title></head>\n<body>\n'
        + "".join(f"<p>{line}</p>\n" for line in LINES) + "</body></html>\n")
MD = "# Résumé\n\n" + "".join(f"- {line}\n" for line in LINES)
JSON_TEXT = json.dumps({"lines": LINES, "city": "東京", "n": 3}, ensure_ascii=False, indent=1) + "\n"

# name -> maker(path) returning the producer's name.
FILES = [
    ("cv.docx", make_docx),
    ("budget.xlsx", make_xlsx),
    ("slides.pptx", make_pptx),
    ("letter.odt", make_odt),
    ("table.ods", make_ods),
    ("book.epub", make_epub),
    ("image.png", make_image("PNG", optimize=False)),
    ("photo.jpg", make_image("JPEG", quality=85)),
    ("anim.gif", make_image("GIF")),
    ("image.webp", make_image("WEBP", quality=80, method=4)),
    ("scan.tiff", make_image("TIFF", compression="tiff_lzw")),
    ("favicon.ico", make_image("ICO", sizes=[(16, 16), (32, 32)])),
    ("image.bmp", make_image("BMP")),
    ("report.pdf", make_pdf),
    ("archive.7z", make_7z),
    ("app.jar", make_jar),
    ("app.apk", make_apk),
    ("demo_pkg-1.0-py3-none-any.whl", make_whl),
    ("bundle.zip", make_zip),
    ("bundle.tar.gz", make_tar_gz),
    ("archive.rar", make_rar),
    ("setup.exe", make_exe),
    ("legacy.doc", make_ole2(60)),
    ("legacy.xls", make_ole2(61)),
    ("mail.msg", make_ole2(62)),
    ("clip.mp4", make_mp4),
    ("song.mp3", make_mp3),
    ("notes.sqlite", make_sqlite),
    ("module.wasm", make_wasm),
    ("font.woff2", make_woff2),
    ("notes.txt.bz2", make_bz2),
    ("notes.txt.xz", make_xz),
    ("installer.dmg", make_dmg),
    ("data.parquet", make_parquet),
    ("data.csv", _text(_csv())),
    ("notes.txt", _text(TEXT)),
    ("data.json", _text(JSON_TEXT)),
    ("drawing.svg", _text(SVG)),
    ("page.html", _text(HTML)),
    ("readme.md", _text(MD)),
]
TEXT_EXTENSIONS = {"csv", "txt", "json", "svg", "html", "md"}


def main(argv):
    if len(argv) != 2:
        sys.exit(f"usage: {argv[0]} OUTDIR")
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    os.environ["TZ"] = "UTC"
    time.tzset()
    listing = []
    with frozen_clock():
        for name, make in FILES:
            path = os.path.join(out, name)
            producer = make(path)
            ext = name.rsplit(".", 1)[1]
            size = os.path.getsize(path)
            assert size < 200 * 1024, (name, size)
            if ext in TEXT_EXTENSIONS:
                with open(path, "rb") as f:
                    text = f.read().decode("utf-8")  # raises if not valid UTF-8
                assert unicodedata.is_normalized("NFC", text), name
            listing.append({"name": name, "type": EXTENSION_TYPES[ext], "producer": producer})
    json.dump({"files": listing}, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
