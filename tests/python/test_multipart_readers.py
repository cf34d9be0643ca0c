"""Self-check of multipart_readers.py: run from tests/python with the venv's python,

    $PY -m unittest -v test_multipart_readers

Each case asserts that every parser produced a well-formed reading, and checks the few
readings that the table in multipart_readers.py relies on; the readings of all parsers are
printed (to stderr) with the places where they disagree, which is the table's source.
"""

import base64
import json
import os
import re
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ left in the work tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import multipart_readers as mr  # noqa: E402

B = "XyZb0uNdArY"
CT = f"multipart/form-data; boundary={B}"


def body(*parts, close=True):
    """Parts are (header lines, content) pairs; CRLF everywhere."""
    out = b""
    for headers, content in parts:
        out += b"--" + B.encode() + b"\r\n"
        for h in headers:
            out += h + b"\r\n"
        out += b"\r\n" + content + b"\r\n"
    if close:
        out += b"--" + B.encode() + b"--\r\n"
    return out


CD = b"Content-Disposition: form-data; "

CASES = {
    "plain two-field form": (
        CT,
        body(([CD + b'name="a"'], b"1"), ([CD + b'name="b"'], b"two\r\nlines")),
    ),
    "file part with filename": (
        CT,
        body(
            (
                [CD + b'name="f"; filename="a.txt"', b"Content-Type: text/plain"],
                b"file\x00\xffbytes",
            ),
        ),
    ),
    "two Content-Disposition headers in one part": (
        CT,
        body(([CD + b'name="first"', CD + b'name="second"'], b"v")),
    ),
    "filename*=UTF-8'' (with and without plain filename)": (
        CT,
        body(
            ([CD + b"name=\"f\"; filename*=UTF-8''%C3%A9t%C3%A9.txt"], b"x"),
            ([CD + b"name=\"g\"; filename=\"plain.txt\"; filename*=UTF-8''%C3%A9.txt"], b"y"),
        ),
    ),
    "name*=UTF-8'' next to plain name": (
        CT,
        body(([CD + b"name=\"plain\"; name*=UTF-8''%C3%A9"], b"x"),),
    ),
    "name*=UTF-8'' before plain name": (
        CT,
        body(([CD + b"name*=UTF-8''%C3%A9; name=\"plain\""], b"x"),),
    ),
    "filename*=koi8-r'' (charset outside UTF-8/latin-1)": (
        CT,
        body(([CD + b"name=\"g\"; filename*=koi8-r''%E9.txt"], b"y"),),
    ),
    "RFC 2231 continuation filename*0/filename*1": (
        CT,
        body(([CD + b'name="f"; filename*0="abc"; filename*1="def.txt"'], b"x"),),
    ),
    "RFC 2231 continuation name*0/name*1": (
        CT,
        body(([CD + b'name*0="na"; name*1="me"'], b"x"),),
    ),
    "base64 Content-Transfer-Encoding": (
        CT,
        body(([CD + b'name="b"', b"Content-Transfer-Encoding: base64"], b"aGVsbG8="),),
    ),
    "quoted-printable Content-Transfer-Encoding": (
        CT,
        body(
            (
                [CD + b'name="q"', b"Content-Transfer-Encoding: quoted-printable"],
                b"caf=C3=A9 =3D x=\r\ny",
            ),
        ),
    ),
    "duplicated name parameter": (
        CT,
        body(([CD + b'name="one"; name="two"'], b"v"),),
    ),
    "boundary given twice in the Content-Type": (
        "multipart/form-data; boundary=aaa; boundary=bbb",
        b"--aaa\r\n" + CD + b'name="A"\r\n\r\nva\r\n--aaa--\r\n'
        b"--bbb\r\n" + CD + b'name="B"\r\n\r\nvb\r\n--bbb--\r\n',
    ),
    "raw UTF-8 name and value": (
        CT,
        body(([CD + 'name="\u00e9\u4e2d"'.encode()], "\u00e9t\u00e9".encode()),),
    ),
    "invalid UTF-8 (latin-1) name and value": (
        CT,
        body(([CD + b'name="\xe9"'], b"\xe9t\xe9"),),
    ),
    "text value not UTF-8": (
        CT,
        body(([CD + b'name="a"'], b"\xe9t\xe9"), ([CD + b'name="f"; filename="f"'], b"\xe9t\xe9")),
    ),
    "non-UTF-8 byte in a part Content-Type": (
        CT,
        body(([CD + b'name="a"', b"Content-Type: text/\xe9"], b"x"),),
    ),
    "nested multipart/mixed part": (
        CT,
        body(
            (
                [CD + b'name="a"', b"Content-Type: multipart/mixed; boundary=inner"],
                b"--inner\r\nContent-Type: text/plain\r\n\r\nhi\r\n--inner--",
            ),
        ),
    ),
    "two Content-Type headers with different charsets": (
        CT,
        body(
            (
                [
                    CD + b'name="a"',
                    b"Content-Type: text/plain; charset=utf-8",
                    b"Content-Type: text/plain; charset=iso-8859-1",
                ],
                b"\xc3\xa9",
            ),
        ),
    ),
    "folded Content-Disposition header": (
        CT,
        body(([b"Content-Disposition: form-data;", b' name="folded"'], b"x"),),
    ),
    "no name parameter": (
        CT,
        body(([b"Content-Disposition: form-data"], b"x"),),
    ),
    "body without closing boundary": (
        CT,
        body(([CD + b'name="a"'], b"1"), ([CD + b'name="b"'], b"2"), close=False),
    ),
    "LF-only line endings": (
        CT,
        b"--" + B.encode() + b"\n" + CD + b'name="a"\n\n1\n--' + B.encode() + b"--\n",
    ),
    "CR-only line endings": (
        CT,
        b"--" + B.encode() + b"\r" + CD + b'name="a"\r\r1\r--' + B.encode() + b"--\r",
    ),
    "empty filename": (
        CT,
        body(([CD + b'name="f"; filename=""'], b"x"),),
    ),
    "request charset=iso-8859-1 with UTF-8 bytes": (
        f"multipart/form-data; boundary={B}; charset=iso-8859-1",
        body(([CD + 'name="\u00e9"'.encode()], "\u00e9".encode()),),
    ),
    "part Content-Type charset=iso-8859-1": (
        CT,
        body(([CD + b'name="a"', b"Content-Type: text/plain; charset=iso-8859-1"], b"\xe9"),),
    ),
    "unquoted name with backslash-escaped quotes": (
        CT,
        body(([CD + b'name="a\\"b"; filename="C:\\\\dir\\\\x.txt"'], b"x"),),
    ),
    "duplicated filename parameter": (
        CT,
        body(([CD + b'name="f"; filename="one.txt"; filename="two.txt"'], b"x"),),
    ),
    "quoted boundary in the Content-Type": (
        f'multipart/form-data; boundary="{B}"',
        body(([CD + b'name="a"'], b"1"),),
    ),
    "preamble before the first boundary": (
        CT,
        b"preamble text\r\n" + body(([CD + b'name="a"'], b"1"),),
    ),
    "whitespace after a boundary (transport padding)": (
        CT,
        body(([CD + b'name="a"'], b"1"),).replace(B.encode() + b"\r\n", B.encode() + b" \t\r\n"),
    ),
    "lower-case header name": (
        CT,
        body(([b'content-disposition: form-data; name="a"'], b"1"),),
    ),
    "space before the colon of a header": (
        CT,
        body(([b'Content-Disposition : form-data; name="a"'], b"1"),),
    ),
    "HTML5 %22 escape in a quoted name": (
        CT,
        body(([CD + b'name="a%22b"'], b"1"),),
    ),
    "Content-Disposition type other than form-data": (
        CT,
        body(([b'Content-Disposition: attachment; name="a"'], b"1"),),
    ),
    "part Content-Length header shorter than the content": (
        CT,
        body(([CD + b'name="a"', b"Content-Length: 1"], b"123"),),
    ),
    "no boundary line at all in the body": (CT, b"just text\r\n"),
    "empty body": (CT, b""),
    "empty boundary= in the Content-Type": (
        "multipart/form-data; boundary=",
        b"--\r\n" + CD + b'name="a"\r\n\r\nx\r\n----\r\n',
    ),
    "boundary longer than 256 bytes": (
        "multipart/form-data; boundary=" + "b" * 300,
        b"--" + b"b" * 300 + b"\r\n" + CD + b'name="a"\r\n\r\nx\r\n--' + b"b" * 300 + b"--\r\n",
    ),
    "multipart/mixed request Content-Type": (
        f"multipart/mixed; boundary={B}",
        body(([CD + b'name="a"'], b"1"),),
    ),
    "uppercase Multipart/Form-Data": (
        f"Multipart/Form-Data; boundary={B}",
        body(([CD + b'name="a"'], b"1"),),
    ),
}


def dec(v):
    return None if v is None else base64.b64decode(v)


def show(reading):
    if "error" in reading:
        return "ERROR " + reading["error"]
    return "; ".join(
        f"name={dec(p['name'])!r} filename={dec(p['filename'])!r} "
        f"ct={p['content_type']!r} content={dec(p['content'])!r}"
        for p in reading["parts"]
    ) or "(no parts)"


def read(ct, raw):
    return mr.read_case({"content_type": ct, "body": base64.b64encode(raw).decode()})


class Readings(unittest.TestCase):
    maxDiff = None

    def check_structure(self, result):
        self.assertEqual(sorted(result), sorted(mr.PARSERS))
        for name, reading in result.items():
            self.assertEqual(len(reading), 1, name)
            if "error" in reading:
                self.assertIsInstance(reading["error"], str)
                continue
            self.assertIn("parts", reading, name)
            for p in reading["parts"]:
                self.assertEqual(
                    sorted(p), ["content", "content_type", "filename", "name"], name
                )
                for k in ("name", "filename"):
                    if p[k] is not None:
                        base64.b64decode(p[k], validate=True)
                base64.b64decode(p["content"], validate=True)
                self.assertTrue(p["content_type"] is None or isinstance(p["content_type"], str))

    def test_cases(self):
        report = []
        for label, (ct, raw) in CASES.items():
            with self.subTest(label):
                result = read(ct, raw)
                self.check_structure(result)
                shown = {name: show(result[name]) for name in mr.PARSERS}
                agree = len(set(shown.values())) == 1
                report.append(f"\n== {label}{'' if agree else '   [DISAGREE]'}")
                for name in mr.PARSERS:
                    report.append(f"   {name:17} {shown[name]}")
        print("\n".join(report), file=sys.stderr)

    def test_plain_form_agrees(self):
        ct, raw = CASES["plain two-field form"]
        result = read(ct, raw)
        for name in mr.PARSERS:
            parts = result[name]["parts"]
            self.assertEqual([dec(p["name"]) for p in parts], [b"a", b"b"], name)
            self.assertEqual([dec(p["content"]) for p in parts], [b"1", b"two\r\nlines"], name)
            self.assertEqual([p["filename"] for p in parts], [None, None], name)

    def test_file_part_agrees(self):
        ct, raw = CASES["file part with filename"]
        result = read(ct, raw)
        for name in mr.PARSERS:
            (p,) = result[name]["parts"]
            self.assertEqual(dec(p["filename"]), b"a.txt", name)
            self.assertEqual(dec(p["content"]), b"file\x00\xffbytes", name)
            self.assertEqual(p["content_type"], "text/plain", name)

    # The rows of the table in multipart_readers.py that matter most, pinned so that a
    # version bump that changes them fails here: (name, filename, content) per part, or
    # ERROR.  Parser order: email, python_multipart, werkzeug, multipart.
    TABLE = {
        "two Content-Disposition headers in one part": (
            [(b"first", None, b"v")], [(b"second", None, b"v")],
            [(b"first", None, b"v")], [(b"second", None, b"v")],
        ),
        "duplicated name parameter": (
            [(b"one", None, b"v")], [(b"two", None, b"v")],
            [(b"two", None, b"v")], [(b"two", None, b"v")],
        ),
        "boundary given twice in the Content-Type": (
            [(b"A", None, b"va")], "ERROR", [(b"B", None, b"vb")], [(b"B", None, b"vb")],
        ),
        "filename*=UTF-8'' (with and without plain filename)": (
            [(b"f", "\u00e9t\u00e9.txt".encode(), b"x"), (b"g", b"plain.txt", b"y")],
            [(b"f", None, b"x"), (b"g", b"plain.txt", b"y")],
            [(b"f", "\u00e9t\u00e9.txt".encode(), b"x"), (b"g", "\u00e9.txt".encode(), b"y")],
            [(b"f", None, b"x"), (b"g", b"plain.txt", b"y")],
        ),
        "RFC 2231 continuation filename*0/filename*1": (
            [(b"f", b"abcdef.txt", b"x")], [(b"f", None, b"x")],
            [(b"f", b"abcdef.txt", b"x")], [(b"f", None, b"x")],
        ),
        "base64 Content-Transfer-Encoding": (
            [(b"b", None, b"hello")], [(b"b", None, b"aGVsbG8=")],
            [(b"b", None, b"aGVsbG8=")], [(b"b", None, b"aGVsbG8=")],
        ),
        "quoted-printable Content-Transfer-Encoding": (
            [(b"q", None, "caf\u00e9 = xy".encode())],
            [(b"q", None, b"caf=C3=A9 =3D x=\r\ny")],
            [(b"q", None, b"caf=C3=A9 =3D x=\r\ny")],
            [(b"q", None, b"caf=C3=A9 =3D x=\r\ny")],
        ),
        "invalid UTF-8 (latin-1) name and value": (
            [("\ufffd".encode(), None, b"\xe9t\xe9")],
            [(b"\xc3\xa9", None, b"\xc3\xa9t\xc3\xa9")],
            "ERROR", "ERROR",
        ),
        "body without closing boundary": (
            [(b"a", None, b"1"), (b"b", None, b"2")], [(b"a", None, b"1")], "ERROR", "ERROR",
        ),
    }

    def test_table(self):
        order = ["email", "python_multipart", "werkzeug", "multipart"]
        for label, expected in self.TABLE.items():
            ct, raw = CASES[label]
            result = read(ct, raw)
            for name, want in zip(order, expected):
                if name not in mr.PARSERS:
                    continue
                with self.subTest(label, parser=name):
                    reading = result[name]
                    if want == "ERROR":
                        self.assertIn("error", reading)
                        continue
                    self.assertIn("parts", reading, reading)
                    got = [
                        (dec(p["name"]), dec(p["filename"]), dec(p["content"]))
                        for p in reading["parts"]
                    ]
                    self.assertEqual(got, want)

    def test_email_decodes_transfer_encoding(self):
        ct, raw = CASES["base64 Content-Transfer-Encoding"]
        result = read(ct, raw)
        self.assertEqual(dec(result["email"]["parts"][0]["content"]), b"hello")
        self.assertEqual(dec(result["werkzeug"]["parts"][0]["content"]), b"aGVsbG8=")

    def test_bad_input_is_a_reading_not_a_crash(self):
        result = mr.read_case({"content_type": "multipart/form-data; boundary=x", "body": "!!"})
        self.assertTrue(all("error" in r for r in result.values()))
        result = read("text/plain", b"hello")
        self.assertTrue(all("error" in r for r in result.values()))
        result = read("multipart/form-data; boundary=\u0100", b"--\xc4\x80--")
        self.check_structure(result)

    def test_cli_round_trip(self):
        cases = [
            {"content_type": ct, "body": base64.b64encode(raw).decode()}
            for ct, raw in CASES.values()
        ]
        here = os.path.dirname(os.path.abspath(__file__))
        proc = subprocess.run(
            [sys.executable, os.path.join(here, "multipart_readers.py")],
            input=json.dumps({"cases": cases}).encode(),
            capture_output=True,
            timeout=120,
            check=True,
        )
        out = json.loads(proc.stdout)
        self.assertEqual(out["parsers"], mr.PARSERS)
        self.assertEqual(len(out["results"]), len(cases))
        # ASCII only, no lone surrogates (serde_json refuses them)
        proc.stdout.decode("ascii")
        self.assertIsNone(re.search(rb"\\u[dD][89a-fA-F]", proc.stdout))


if __name__ == "__main__":
    unittest.main()
