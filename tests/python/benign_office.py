r"""What every maker of make_benign_files.py shares, and its office, e-book, PDF and image
makers: the fixed time and seeds, the text lines in several scripts, frozen_clock() (the
producers' clocks pinned while a file is written), and the makers that use python-docx,
openpyxl, python-pptx, odfpy, EbookLib, fpdf2 and Pillow.

Each make_*(path) writes one file at path and returns the name of its producer. Imported by
make_benign_files.py and benign_signatures.py; not a script of its own.
"""

import contextlib
import datetime
import random
import time
import types
import zipfile

# 2020-01-01T00:00:00Z: every timestamp written into a file.
FIXED_TIME = 1577836800
FIXED_DATETIME = datetime.datetime.fromtimestamp(FIXED_TIME, datetime.timezone.utc)
FIXED_NAIVE = FIXED_DATETIME.replace(tzinfo=None)

# Several scripts, each line NFC; the first mixes Latin, Cyrillic, CJK and Arabic.
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

