r"""The archive and binary-format makers of make_benign_files.py: archives written by
py7zr, zipfile, tarfile, bz2 and lzma, a database by sqlite3, a font by fonttools, a
WebAssembly module by hand, and "signature+random" files (a real format signature, and a
header where cheap, followed by random.Random(seed).randbytes) for formats no pinned
library writes.

Each make_*(path) writes one file at path and returns the name of its producer. Imported by
make_benign_files.py; not a script of its own.
"""

import base64
import bz2
import gzip
import hashlib
import io
import lzma
import os
import sqlite3
import struct
import tarfile
import time
import zipfile

from benign_office import FIXED_TIME, LINES, TEXT, rand


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

