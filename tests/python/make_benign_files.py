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
file's mtime, openpyxl's "modified", odfpy's member times, py7zr's member times) frozen_clock() pins it to FIXED_TIME while the file is written;
if a future version of a library moves that code, the file is still written, only no longer
byte-identical from run to run.
"""

import base64
import bz2
import contextlib
import datetime
import gzip
import hashlib
import io
import json
import lzma
import os
import random
import sqlite3
import struct
import sys
import tarfile
import time
import types
import unicodedata
import zipfile

# 2020-01-01T00:00:00Z: every timestamp written into a file.
FIXED_TIME = 1577836800
FIXED_DATETIME = datetime.datetime.fromtimestamp(FIXED_TIME, datetime.timezone.utc)
FIXED_NAIVE = FIXED_DATETIME.replace(tzinfo=None)

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

# Several scripts, each line NFC; the first line is the one the brief asked for.
LINES = [
    "Résumé — Ærøskøbing, Привет, 東京, مرحبا",
    "Ελληνικά: Καλημέρα κόσμε",
    "עברית: שלום עולם",
    "हिन्दी: नमस्ते दुनिया",
    "中文: 你好，世界",
    "日本語: こんにちは世界",
    "한국어: 안녕하세요 세계",
    "ไทย: สวัสดีชาวโลก",
    "Emoji: 👋🌍",
]
TEXT = "\n".join(LINES) + "\n"


def rand(seed, n):
    return random.Random(seed).randbytes(n)


# ---------------------------------------------------------------- clock pinning


class _FrozenTime(types.ModuleType):
    """Stands in for the `time` module inside a library module: the clock reads FIXED_TIME."""

    def __init__(self):
        super().__init__("time")

    def __getattr__(self, name):
        return getattr(time, name)

    @staticmethod
    def time():
        return float(FIXED_TIME)

    @staticmethod
    def localtime(secs=None):
        # Also for a file's st_mtime: openpyxl adds each sheet from a temporary file.
        return time.gmtime(FIXED_TIME)


class _FrozenDatetime(datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return FIXED_DATETIME.astimezone(tz) if tz else FIXED_NAIVE

    @classmethod
    def utcnow(cls):
        return FIXED_NAIVE


@contextlib.contextmanager
def frozen_clock():
    """Pins the clocks that the producers read when they write a file (see the docstring)."""
    saved = []

    def patch(obj, name, value):
        if hasattr(obj, name):
            saved.append((obj, name, getattr(obj, name)))
            setattr(obj, name, value)

    patch(zipfile, "time", _FrozenTime())
    try:
        import odf.opendocument

        patch(odf.opendocument, "time", _FrozenTime())
    except ImportError:
        pass
    try:
        import openpyxl.writer.excel

        frozen_dt = types.SimpleNamespace(datetime=_FrozenDatetime, timezone=datetime.timezone)
        patch(openpyxl.writer.excel, "datetime", frozen_dt)
    except ImportError:
        pass
    try:
        import py7zr.helpers

        ts = py7zr.helpers.ArchiveTimestamp
        patch(ts, "from_now", classmethod(lambda cls: cls.from_datetime(FIXED_TIME)))
    except ImportError:
        pass
    try:
        yield
    finally:
        for obj, name, value in reversed(saved):
            setattr(obj, name, value)


# ---------------------------------------------------------------- office and e-book documents


def make_docx(path):
    import docx

    d = docx.Document()
    d.add_heading("Curriculum vitae", level=1)
    d.add_paragraph(LINES[0])
    for line in LINES[1:]:
        d.add_paragraph(line, style="List Bullet")
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Ville", "Ærøskøbing"
    table.cell(1, 0).text, table.cell(1, 1).text = "都市", "東京"
    cp = d.core_properties
    cp.title, cp.author, cp.last_modified_by = "Résumé", "Zoë Ærø", "Zoë Ærø"
    cp.created = cp.modified = cp.last_printed = FIXED_NAIVE
    cp.revision = 1
    d.save(path)
    return "python-docx"


def make_xlsx(path):
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Données"
    ws.append(["Langue", "Texte", "Nombre"])
    for i, line in enumerate(LINES):
        lang, _, text = line.partition(": ")
        ws.append([lang, text or line, i * 1.5])
    ws["E1"] = "=SUM(C2:C10)"
    wb.properties.creator = "Zoë Ærø"
    wb.properties.created = wb.properties.modified = FIXED_NAIVE
    wb.save(path)
    return "openpyxl"


def make_pptx(path):
    import pptx

    p = pptx.Presentation()
    s = p.slides.add_slide(p.slide_layouts[1])
    s.shapes.title.text = "Привет, 東京"
    body = s.placeholders[1].text_frame
    body.text = LINES[0]
    for line in LINES[1:]:
        body.add_paragraph().text = line
    cp = p.core_properties
    cp.title, cp.author, cp.last_modified_by = "Présentation", "Zoë Ærø", "Zoë Ærø"
    cp.created = cp.modified = cp.last_printed = FIXED_NAIVE
    cp.revision = 1
    p.save(path)
    return "python-pptx"


def _odf_meta(doc):
    from odf import dc, meta

    doc.meta.addElement(dc.Title(text="Résumé"))
    doc.meta.addElement(dc.Creator(text="Zoë Ærø"))
    doc.meta.addElement(dc.Date(text=FIXED_NAIVE.isoformat()))
    doc.meta.addElement(meta.CreationDate(text=FIXED_NAIVE.isoformat()))


def make_odt(path):
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    doc = OpenDocumentText()
    _odf_meta(doc)
    doc.text.addElement(H(outlinelevel=1, text="Résumé"))
    for line in LINES:
        doc.text.addElement(P(text=line))
    doc.save(path)
    return "odfpy"


def make_ods(path):
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    _odf_meta(doc)
    table = Table(name="Données")
    for i, line in enumerate(LINES):
        row = TableRow()
        cell = TableCell(valuetype="string")
        cell.addElement(P(text=line))
        row.addElement(cell)
        num = TableCell(valuetype="float", value=str(i))
        num.addElement(P(text=str(i)))
        row.addElement(num)
        table.addElement(row)
    doc.spreadsheet.addElement(table)
    doc.save(path)
    return "odfpy"


def make_epub(path):
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("urn:uuid:12345678-1234-5678-1234-567812345678")
    book.set_title("Récits — Ærøskøbing")
    book.set_language("fr")
    book.add_author("Zoë Ærø")
    ch = epub.EpubHtml(title="Chapitre 1", file_name="chap_01.xhtml", lang="fr")
    ch.content = "<h1>Chapitre 1</h1>" + "".join(f"<p>{line}</p>" for line in LINES)
    book.add_item(ch)
    book.toc = (epub.Link("chap_01.xhtml", "Chapitre 1", "chap_01"),)
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", ch]
    epub.write_epub(path, book, {"mtime": FIXED_NAIVE})
    return "EbookLib"


def make_pdf(path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_creation_date(FIXED_DATETIME)
    pdf.set_title("Resume")
    pdf.set_author("Zoe Aero")
    pdf.add_page()
    pdf.set_font("helvetica", size=12)  # a core font: Latin-1 only, so ASCII text here
    pdf.multi_cell(0, 8, "Resume - Aeroskobing\nThe quick brown fox jumps over the lazy dog.")
    pdf.output(path)
    return "fpdf2"


# ---------------------------------------------------------------- images


def _image():
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (64, 64), (250, 245, 230))
    draw = ImageDraw.Draw(img)
    for i in range(0, 64, 8):
        draw.line([(0, i), (63, 63 - i)], fill=(i * 4, 80, 255 - i * 4), width=2)
    draw.ellipse([16, 16, 48, 48], outline=(200, 30, 30), width=3)
    draw.rectangle([4, 4, 20, 12], fill=(20, 120, 60))
    return img


def make_image(fmt, **opts):
    def make(path):
        img = _image()
        if fmt == "GIF":
            frames = [img.convert("P"), img.rotate(90).convert("P")]
            frames[0].save(path, "GIF", save_all=True, append_images=frames[1:], duration=200,
                           loop=0)
        else:
            img.save(path, fmt, **opts)
        return "Pillow"

    return make


# ---------------------------------------------------------------- archives


def make_7z(path):
    import py7zr

    with py7zr.SevenZipFile(path, "w") as z:
        z.writestr(TEXT.encode("utf-8"), "notes/Ærøskøbing.txt")
        z.writestr(b"plain ascii\n", "notes/readme.txt")
    return "py7zr"


def _zipinfo(name, compress=zipfile.ZIP_DEFLATED, extra=b""):
    zi = zipfile.ZipInfo(name, date_time=time.gmtime(FIXED_TIME)[:6])
    zi.compress_type = compress
    zi.external_attr = (0o40755 if name.endswith("/") else 0o100644) << 16
    zi.create_system = 3
    zi.extra = extra
    return zi


def make_jar(path):
    manifest = b"Manifest-Version: 1.0\r\nCreated-By: 17.0.9 (Debian)\r\nMain-Class: demo.Hello\r\n\r\n"
    # CAFEBABE, minor 0, major 61 (Java 17), then a few bytes of the constant pool.
    klass = b"\xca\xfe\xba\xbe\x00\x00\x00\x3d\x00\x0d\x0a\x00\x02\x00\x03\x07\x00\x04" + rand(1, 64)
    with zipfile.ZipFile(path, "w") as z:
        # As the jar tool does: a META-INF/ entry first, carrying the 0xCAFE extra field.
        z.writestr(_zipinfo("META-INF/", extra=b"\xfe\xca\x00\x00"), b"")
        z.writestr(_zipinfo("META-INF/MANIFEST.MF"), manifest)
        z.writestr(_zipinfo("demo/"), b"")
        z.writestr(_zipinfo("demo/Hello.class"), klass)
    return "zipfile"


def make_apk(path):
    # Binary XML (AXML) starts 03 00 08 00; the rest is any bytes.
    axml = b"\x03\x00\x08\x00" + struct.pack("<I", 8 + 256) + rand(2, 256)
    dex = b"dex\n035\x00" + rand(3, 1024)
    arsc = b"\x02\x00\x0c\x00" + struct.pack("<I", 12 + 128) + rand(4, 128)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(_zipinfo("AndroidManifest.xml"), axml)
        z.writestr(_zipinfo("classes.dex"), dex)
        z.writestr(_zipinfo("resources.arsc", zipfile.ZIP_STORED), arsc)
        z.writestr(_zipinfo("res/values/strings.xml"),
                   '<resources><string name="hi">Привет, 東京</string></resources>\n')
        z.writestr(_zipinfo("META-INF/MANIFEST.MF"), b"Manifest-Version: 1.0\r\n\r\n")
    return "zipfile"


def make_whl(path):
    def digest(data):
        return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

    files = {
        "demo_pkg/__init__.py": 'GREETING = "Привет, 東京"\n'.encode("utf-8"),
        "demo_pkg-1.0.dist-info/METADATA": (
            "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\nSummary: Résumé — Ærøskøbing\n"
        ).encode("utf-8"),
        "demo_pkg-1.0.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: make_benign_files\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n"
        ),
        "demo_pkg-1.0.dist-info/top_level.txt": b"demo_pkg\n",
    }
    record = "".join(f"{n},{digest(d)},{len(d)}\n" for n, d in files.items())
    record += "demo_pkg-1.0.dist-info/RECORD,,\n"
    files["demo_pkg-1.0.dist-info/RECORD"] = record.encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(_zipinfo(name), data)
    return "zipfile"


def make_zip(path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(_zipinfo("docs/"), b"")
        z.writestr(_zipinfo("docs/Ærøskøbing.txt"), TEXT.encode("utf-8"))  # UTF-8 name flag
        z.writestr(_zipinfo("docs/data.bin", zipfile.ZIP_STORED), rand(5, 512))
    return "zipfile"


def make_tar_gz(path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data in [("docs/Ærøskøbing.txt", TEXT.encode("utf-8")), ("docs/data.bin", rand(6, 512))]:
            ti = tarfile.TarInfo(name)
            ti.size, ti.mtime, ti.mode = len(data), FIXED_TIME, 0o644
            ti.uid = ti.gid = 1000
            ti.uname = ti.gname = "user"
            t.addfile(ti, io.BytesIO(data))
    with open(path, "wb") as f:
        f.write(gzip.compress(buf.getvalue(), mtime=FIXED_TIME))
    return "tarfile"


def make_bz2(path):
    with open(path, "wb") as f:
        f.write(bz2.compress(TEXT.encode("utf-8") * 8))
    return "bz2"


def make_xz(path):
    with open(path, "wb") as f:
        f.write(lzma.compress(TEXT.encode("utf-8") * 8))
    return "lzma"


def make_sqlite(path):
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    with con:
        con.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, lang TEXT, body TEXT, blob BLOB)")
        for i, line in enumerate(LINES):
            lang, _, text = line.partition(": ")
            con.execute("INSERT INTO notes (lang, body, blob) VALUES (?, ?, ?)",
                        (lang, text or line, rand(100 + i, 32)))
    con.close()
    return "sqlite3"


def make_woff2(path):
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    def box():
        pen = TTGlyphPen(None)
        pen.moveTo((100, 0)); pen.lineTo((100, 700)); pen.lineTo((500, 700)); pen.lineTo((500, 0))
        pen.closePath()
        return pen.glyph()

    fb = FontBuilder(1000, isTTF=True)
    fb.font.recalcTimestamp = False
    names = [".notdef", "A", "Ae"]
    fb.setupGlyphOrder(names)
    fb.setupCharacterMap({ord("A"): "A", ord("Æ"): "Ae"})
    fb.setupGlyf({n: box() for n in names})
    fb.setupHorizontalMetrics({n: (600, 100) for n in names})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "Ærø Demo", "styleName": "Regular"})
    fb.setupOS2()
    fb.setupPost()
    # Seconds since 1904-01-01, the font epoch.
    mac_epoch = FIXED_TIME + 2082844800
    fb.setupHead(unitsPerEm=1000, created=mac_epoch, modified=mac_epoch)
    fb.font.flavor = "woff2"
    fb.save(path)
    return "fonttools"


# ---------------------------------------------------------------- signature + random bytes


def make_rar(path):
    return _write(path, b"Rar!\x1a\x07\x01\x00" + rand(10, 4096))


def make_exe(path):
    dos = bytearray(0x80)
    dos[0:2] = b"MZ"
    struct.pack_into("<HHHHHHHHHHHHHH", dos, 2, 0x90, 3, 0, 4, 0, 0xFFFF, 0, 0xB8, 0, 0, 0, 0x40, 0, 0)
    stub = b"\x0e\x1f\xba\x0e\x00\xb4\x09\xcd\x21\xb8\x01\x4c\xcd\x21This program cannot be run in DOS mode.\r\r\n$"
    dos[0x40:0x40 + len(stub)] = stub
    struct.pack_into("<I", dos, 0x3C, 0x80)  # e_lfanew
    # COFF header: AMD64, 1 section, timestamp 0, size of optional header 0xF0, EXECUTABLE|LARGE_ADDRESS.
    coff = b"PE\x00\x00" + struct.pack("<HHIIIHH", 0x8664, 1, 0, 0, 0, 0xF0, 0x22)
    optional = struct.pack("<H", 0x20B)  # PE32+ magic; the rest is random
    return _write(path, bytes(dos) + coff + optional + rand(11, 4096))


def _ole2(seed):
    header = (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(16)  # signature, CLSID
              + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6))  # minor, major 3, byte order, 512-byte sectors
    return header + rand(seed, 8192 - len(header))


def make_ole2(seed):
    return lambda path: _write(path, _ole2(seed))


def make_mp4(path):
    ftyp = struct.pack(">I4s4sI", 32, b"ftyp", b"isom", 0x200) + b"isomiso2avc1mp41"
    payload = rand(20, 8192)
    mdat = struct.pack(">I4s", 8 + len(payload), b"mdat") + payload
    free = struct.pack(">I4s", 8, b"free")
    return _write(path, ftyp + free + mdat)


def make_mp3(path):
    def frame_text(fid, text):
        body = b"\x03" + text.encode("utf-8")  # encoding 3 = UTF-8 (ID3v2.4)
        return fid + _syncsafe(len(body)) + b"\x00\x00" + body

    frames = frame_text(b"TIT2", "Привет, 東京") + frame_text(b"TPE1", "Zoë Ærø")
    id3 = b"ID3\x04\x00\x00" + _syncsafe(len(frames)) + frames
    # MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, joint stereo: 417-byte frames.
    audio = b"".join(b"\xff\xfb\x90\x64" + rand(30 + i, 413) for i in range(8))
    return _write(path, id3 + audio)


def _syncsafe(n):
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def make_wasm(path):
    # (module (func (export "answer") (result i32) i32.const 42))
    module = (b"\x00asm\x01\x00\x00\x00"
              b"\x01\x05\x01\x60\x00\x01\x7f"  # type section: () -> i32
              b"\x03\x02\x01\x00"  # function section: one function of type 0
              b"\x07\x0a\x01\x06answer\x00\x00"  # export section: "answer" = function 0
              b"\x0a\x06\x01\x04\x00\x41\x2a\x0b")  # code section: i32.const 42, end
    return _write(path, module, "hand-built")


def make_dmg(path):
    data = rand(40, 8192)
    plist = (b'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>'
             b"<key>resource-fork</key><dict/></dict></plist>\n")
    xml_offset = len(data)
    koly = bytearray(512)
    struct.pack_into(">4sIII", koly, 0, b"koly", 4, 512, 1)  # signature, version 4, header size, flags
    struct.pack_into(">QQQ", koly, 16, 0, 0, len(data))  # running data fork offset, data fork offset, length
    struct.pack_into(">II", koly, 56, 1, 1)  # segment number, count
    struct.pack_into(">QQ", koly, 216, xml_offset, len(plist))  # XML plist offset, length
    struct.pack_into(">IQ", koly, 488, 1, len(data) // 512)  # image variant, sector count
    return _write(path, data + plist + bytes(koly))


def make_parquet(path):
    body = rand(50, 4096)
    footer = rand(51, 256)
    return _write(path, b"PAR1" + body + footer + struct.pack("<I", len(footer)) + b"PAR1")


def _write(path, data, producer="signature+random"):
    with open(path, "wb") as f:
        f.write(data)
    return producer


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
