#!/usr/bin/env python3
r"""How Python backends read a multipart/form-data body, for utf8gate's differential test.

Input (stdin), one JSON document:

    {"cases": [{"content_type": "<request Content-Type value, latin-1 string>",
                "body": "<base64 of the body bytes>"}, ...]}

Output (stdout), one JSON document:

    {"parsers": ["email", "python_multipart", "werkzeug", "multipart"],
     "results": [{"email": READING, "python_multipart": READING, ...}, ...]}

one result per case, in input order.  READING is {"error": "<short text>"} when the parser
refused the body or raised, else {"parts": [PART, ...]} in body order, with

    PART = {"name": B64|null, "filename": B64|null, "content_type": str|null,
            "content": B64}

B64 is the base64 of bytes.  `content` is the exact bytes the framework hands the
application (file parts: the stored bytes; text fields: the framework's `str`, see below).

Strings that a parser returns as `str` (names, filenames, text-field values) are turned
back into bytes the way the application would encode them: `s.encode("utf-8",
"surrogateescape")`.  So a name that a parser decoded with replacement (U+FFFD) or with a
fallback charset (latin-1) does NOT round-trip to the raw bytes on the wire: that is
intended, it is a different reading of the same bytes.  `content_type` is a plain JSON
string (lone surrogates replaced by U+FFFD) and is what the framework exposes, which is
not the same shape for every parser (see the list of parsers below).

The parsers ("readers"):

* "email": stdlib `email.parser.BytesParser(policy=email.policy.HTTP)` on
  b"Content-Type: " + ct + b"\r\nMIME-Version: 1.0\r\n\r\n" + body; parts from
  `msg.iter_parts()`; name = get_param("name", header="content-disposition") (RFC 2231
  values collapsed with email.utils.collapse_rfc2231_value), filename = get_filename(),
  content_type = get_content_type() (lower-cased type/subtype, "text/plain" when the
  header is unparsable) if the part has a Content-Type header, content =
  get_payload(decode=True) (so base64 / quoted-printable / uuencode transfer encodings ARE
  decoded).  An error reading when the message is not multipart (`is_multipart()` false),
  or when a part is itself multipart or message/rfc822 (get_payload(decode=True) is None).  No check of the
  subtype: multipart/mixed etc. is read too.
  Why policy HTTP and not compat32: both split the body the same way, but compat32
  turns every non-ASCII byte of a part header into U+FFFD (a raw UTF-8 name "\u00e9" reads
  as two U+FFFD) and returns RFC 2231 values as undecoded tuples, so it would differ from
  every other parser on any non-ASCII name; HTTP (an EmailPolicy) reads raw header bytes
  as UTF-8 (RFC 6532), with U+FFFD only for bytes that are not UTF-8, and decodes RFC 2231.
* "python_multipart": python-multipart's low-level `MultipartParser` driven exactly like
  Starlette's (FastAPI's) `starlette.formparsers.MultiPartParser`: request Content-Type
  parsed with `python_multipart.multipart.parse_options_header` and must be
  multipart/form-data (else Starlette gives an empty form: reported as error);
  `charset` parameter of the request (default utf-8) used to decode names, filenames and
  text fields with a latin-1 fallback (Starlette's `_user_safe_decode`); the LAST
  Content-Disposition header of a part is used; a part without `name` is an error; a part
  with a `filename` parameter (even empty) is a file (raw bytes), else a text field (str);
  content_type = the FIRST Content-Type header value, latin-1 decoded, as
  `UploadFile.content_type` gives it (reported for fields too).  A body cut before its
  closing boundary silently drops the unfinished part (no error), as Starlette does.
* "werkzeug": `werkzeug.sansio.multipart.MultipartDecoder` events driven exactly like
  `werkzeug.formparser.MultiPartParser.parse` (Flask) with Flask's default limits
  (max_form_memory_size=500000, max_form_parts=1000); mimetype/boundary from
  `werkzeug.http.parse_options_header` (mimetype lower-cased, as `Request.mimetype`);
  text fields decoded with the part's charset (utf-8 unless ascii/us-ascii/utf-8/
  iso-8859-1) with errors="replace"; file parts (filename present, even empty) raw;
  content_type = first Content-Type header value (FileStorage.content_type), reported for
  fields too.  Flask swallows the ValueError and gives an empty form: reported as error.
* "multipart": defnull's `multipart` (2.x) `MultipartParser`, as its own
  `parse_form_data(environ, strict=False)` uses it but with errors raised rather than
  ignored (its default `ignore_errors=None` would silently hand back the parts read before
  the error); text fields decoded with `part.charset` (the part's Content-Type charset, or
  the request's `charset` parameter, or utf8) strictly; a part with a non-empty filename
  is a file (raw bytes); content_type = first Content-Type header value as given by
  `part.headers` (value left-stripped only).  Only present when the package is
  installed and importable.

Each parser runs under try/except and an interval timer (TIMEOUT_S seconds per parser and
case), so one failure or one slow case cannot abort or hang the batch.

Observed behaviour on the tricky shapes (python 3.11.7, python-multipart 0.0.34,
werkzeug 3.1.9, multipart 2.0.1; run `python -m unittest -v test_multipart_readers` in
tests/python to see it again):

| shape                                   | email                | python_multipart (Starlette) | werkzeug (Flask)     | multipart (defnull)  |
|-----------------------------------------|----------------------|------------------------------|----------------------|----------------------|
| plain two-field form                    | a=1, b=two\r\nlines  | same                         | same                 | same                 |
| file part with filename (+Content-Type) | raw bytes, text/plain| same                         | same                 | same                 |
| raw UTF-8 name and value                | exact bytes          | exact bytes                  | exact bytes          | exact bytes          |
| two Content-Disposition headers (x3)    | FIRST                | LAST                         | FIRST                | LAST                 |
| duplicated name= parameter              | FIRST                | LAST                         | LAST                 | LAST                 |
| duplicated filename= parameter          | FIRST                | LAST                         | LAST                 | LAST                 |
| boundary=aaa; boundary=bbb (request)    | FIRST (aaa)          | LAST (bbb): the test body    | LAST (bbb)           | LAST (bbb)           |
|                                         |                      | opens with --aaa, so ERROR   |                      |                      |
| filename*=UTF-8''.. alone               | decoded              | ignored: no filename, so a   | decoded              | ignored: no filename,|
|                                         |                      | text field                   |                      | so a text field      |
| filename="p" + filename*= (either order)| first of the two     | plain filename               | LAST of the two      | plain filename       |
| name="p" + name*= (either order)        | first of the two     | plain name                   | LAST of the two      | plain name           |
| filename*=koi8-r''%E9                   | decoded (koi8-r)     | ignored                      | kept as "%E9.txt"    | ignored              |
| filename*0=..; filename*1=..            | joined               | ignored (text field)         | joined               | ignored              |
| name*0=..; name*1=.. (no plain name)    | joined               | ERROR (no name)              | joined               | name "" (no name)    |
| no name parameter at all                | name null            | ERROR                        | name null            | name ""              |
| empty filename=""                       | filename ""          | filename "", file            | filename "", file    | filename "", but a   |
|                                         |                      |                              |                      | text field (decoded) |
| Content-Transfer-Encoding: base64       | DECODED              | raw                          | raw                  | raw                  |
| Content-Transfer-Encoding: q-printable  | DECODED (soft breaks)| raw                          | raw                  | raw                  |
| non-UTF-8 byte in a part header         | U+FFFD (EF BF BD)    | latin-1 fallback (C3 A9)     | ERROR (header utf-8) | ERROR (header utf-8) |
| (name="\xe9", Content-Type: text/\xe9)  |                      |                              |                      |                      |
| text value not UTF-8 (\xe9t\xe9)        | raw                  | latin-1 fallback (C3 A9..)   | U+FFFD (replace)     | ERROR (strict)       |
| file content not UTF-8                  | raw                  | raw                          | raw                  | raw                  |
| request ;charset=iso-8859-1             | ignored              | names+values decoded latin-1 | ignored              | names+values latin-1 |
| part Content-Type ;charset=iso-8859-1   | raw (never decoded)  | ignored (utf-8, else latin-1)| value decoded latin-1| value decoded latin-1|
| two part Content-Type headers           | first                | first                        | first (its charset)  | first reported, but  |
|                                         |                      |                              |                      | LAST one's charset   |
| name="a\"b"; filename="C:\\dir\\x.txt"  | a"b, C:\dir\x.txt    | a"b, x.txt (IE path cut)     | a"b, C:\dir\x.txt    | a"b, x.txt           |
| name="a%22b" (HTML5 escape)             | a%22b                | a%22b                        | a"b                  | a"b                  |
| folded (continued) header line          | unfolded             | ERROR                        | unfolded             | unfolded             |
| "Content-Disposition : ..." (SP before :)| headers END there:  | ERROR                        | accepted             | accepted             |
|                                         | name null, that line |                              |                      |                      |
|                                         | + rest = content     |                              |                      |                      |
| lower-case header names                 | accepted             | accepted                     | accepted             | accepted             |
| Content-Disposition: attachment; ..     | accepted             | accepted                     | accepted             | ERROR                |
| part Content-Length: 1 (content longer) | ignored              | ignored                      | ignored              | ERROR                |
| LF-only or CR-only line endings         | accepted             | ERROR                        | accepted             | ERROR                |
| preamble text before first boundary     | skipped              | ERROR (only CR/LF may lead)  | skipped              | skipped              |
| " \t" after a boundary (padding)        | accepted             | ERROR                        | accepted             | ERROR                |
| no closing boundary                     | all parts, last too  | unfinished last part DROPPED | ERROR                | ERROR                |
|                                         |                      | silently (no error)          |                      |                      |
| part of type multipart/mixed (with a    | ERROR (payload None; | raw                          | raw                  | raw                  |
| boundary) or message/rfc822             | same for rfc822)     |                              |                      |                      |
| multipart/mixed request type            | read                 | ERROR (empty form)           | ERROR (empty form)   | ERROR (empty form)   |
| Multipart/Form-Data, quoted boundary    | accepted             | accepted                     | accepted             | accepted             |
| no boundary line at all in the body     | ERROR (not multipart)| ERROR; but no parts and no   | ERROR                | ERROR                |
|                                         |                      | error if the body is empty   |                      |                      |
|                                         |                      | or only CR/LF bytes          |                      |                      |
| request "boundary=" (empty value)       | ERROR (not multipart)| reads with boundary ""       | ERROR                | ERROR                |
| boundary longer than 256 bytes          | accepted             | ERROR                        | accepted             | accepted             |

Limits met before anything else (the generator should stay under them, or expect ERROR):
python_multipart at most 8 headers per part and 4224 bytes per header line; multipart
(defnull) at most 8 headers per part, 4224 bytes per header line and 128 parts; werkzeug
at most 1000 parts and 500000 bytes per text field; Starlette 1000 fields and 1000 files.

Every parser strips exactly the CRLF (werkzeug and email: the CRLF, LF or CR) before a
delimiter.  "ERROR" means the framework refuses or (Flask, Starlette for a non-form type,
defnull's default non-strict mode) silently hands the application an empty/partial form.
"""

import base64
import io
import json
import logging
import signal
import sys

import email.parser
import email.policy
import email.utils

from reader_io import serve

TIMEOUT_S = 10.0
ERROR_MAX = 300

# python-multipart logs every parse error at WARNING; with no handler configured Python's
# last-resort handler would print them on stderr.
logging.getLogger("python_multipart").addHandler(logging.NullHandler())

# --- optional imports: a missing library is reported per case, never fatal ---------------

try:
    import python_multipart
    from python_multipart.multipart import parse_options_header as pm_parse_options_header
except Exception as exc:  # pragma: no cover
    python_multipart = None
    _PM_IMPORT_ERROR = f"import failed: {exc!r}"

try:
    from werkzeug.formparser import MultiPartParser as WzMultiPartParser
    from werkzeug.http import parse_options_header as wz_parse_options_header
    from werkzeug.sansio.multipart import (
        Data as WzData,
        Epilogue as WzEpilogue,
        Field as WzField,
        File as WzFile,
        MultipartDecoder as WzMultipartDecoder,
        NeedData as WzNeedData,
    )

    HAVE_WERKZEUG = True
except Exception as exc:  # pragma: no cover
    HAVE_WERKZEUG = False
    _WZ_IMPORT_ERROR = f"import failed: {exc!r}"


def _import_defnull_multipart():
    # python-multipart ships a `multipart/` compatibility package that, when defnull's
    # `multipart.py` is on sys.path, loads that module instead; either way `import
    # multipart` must give a module with PushMultipartParser, else it is not defnull's.
    try:
        import multipart as mod
    except Exception:
        return None
    if hasattr(mod, "PushMultipartParser") and hasattr(mod, "MultipartParser"):
        return mod
    return None


defnull_multipart = _import_defnull_multipart()

PARSERS = ["email", "python_multipart", "werkzeug"] + (
    ["multipart"] if defnull_multipart is not None else []
)


# --- helpers ----------------------------------------------------------------------------


def b64(data):
    return base64.b64encode(bytes(data)).decode("ascii")


def str_bytes(s):
    """The bytes an application gets back from a parser's `str`.

    A str that a parser made with replacement (U+FFFD) or a fallback charset does not give
    back the bytes on the wire: intended, that is the parser's different reading."""
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogatepass")


def b64_opt(value):
    if value is None:
        return None
    if isinstance(value, str):
        value = str_bytes(value)
    return b64(value)


def clean_str(s):
    """A JSON-safe str (no lone surrogates): serde_json refuses them."""
    if s is None:
        return None
    s = str(s)
    return s.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def part(name, filename, content_type, content):
    return {
        "name": b64_opt(name),
        "filename": b64_opt(filename),
        "content_type": clean_str(content_type),
        "content": b64(str_bytes(content) if isinstance(content, str) else content),
    }


class ReaderError(Exception):
    """A refusal that the framework itself would report (or turn into an empty form)."""


class _Timeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


def run_guarded(fn, content_type, body):
    has_alarm = hasattr(signal, "setitimer")
    if has_alarm:
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, TIMEOUT_S)
    try:
        return {"parts": fn(content_type, body)}
    except _Timeout:
        return {"error": f"timeout after {TIMEOUT_S}s"}
    except RecursionError:
        return {"error": "RecursionError"}
    except Exception as exc:  # noqa: BLE001 - every failure is a reading
        text = str(exc) if isinstance(exc, ReaderError) else f"{type(exc).__name__}: {exc}"
        return {"error": clean_str(text)[:ERROR_MAX]}
    finally:
        if has_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


# --- email (stdlib) --------------------------------------------------------------------


def _email_param(p, param, header):
    value = p.get_param(param, None, header=header)
    if value is None:
        return None
    if isinstance(value, tuple):  # RFC 2231 (charset, language, value)
        value = email.utils.collapse_rfc2231_value(value)
    return str(value)


def read_email(content_type, body):
    raw = (
        b"Content-Type: "
        + content_type.encode("latin-1")
        + b"\r\nMIME-Version: 1.0\r\n\r\n"
        + body
    )
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(raw)
    if not msg.is_multipart():
        defects = ", ".join(type(d).__name__ for d in msg.defects)
        raise ReaderError(
            f"not multipart ({msg.get_content_type()}" + (f"; {defects})" if defects else ")")
        )
    parts = []
    for i, p in enumerate(msg.iter_parts()):
        content = p.get_payload(decode=True)
        if content is None:
            raise ReaderError(f"part {i} is itself multipart ({p.get_content_type()})")
        ctype = p.get_content_type() if "content-type" in p else None
        parts.append(
            part(
                _email_param(p, "name", "content-disposition"),
                p.get_filename(),
                ctype,
                content,
            )
        )
    return parts


# --- python-multipart, driven as Starlette drives it ------------------------------------


def _user_safe_decode(src, codec):
    # starlette.formparsers._user_safe_decode
    try:
        return bytes(src).decode(codec)
    except (UnicodeDecodeError, LookupError):
        return bytes(src).decode("latin-1")


def read_python_multipart(content_type, body):
    if python_multipart is None:
        raise ReaderError(_PM_IMPORT_ERROR)
    # starlette.requests.Request._get_form
    ctype, _ = pm_parse_options_header(content_type)
    if ctype != b"multipart/form-data":
        raise ReaderError(f"not multipart/form-data ({ctype!r}): Starlette gives an empty form")
    # starlette.formparsers.MultiPartParser.parse
    _, params = pm_parse_options_header(content_type)
    charset = params.get(b"charset", "utf-8")
    if isinstance(charset, bytes):
        charset = charset.decode("latin-1")
    try:
        boundary = params[b"boundary"]
    except KeyError:
        raise ReaderError("Missing boundary in multipart.") from None

    parts = []
    state = {
        "hname": b"",
        "hvalue": b"",
        "cd": None,
        "headers": [],
        "name": None,
        "filename": None,
        "is_file": False,
        "data": bytearray(),
    }

    def on_part_begin():
        state.update(cd=None, headers=[], name=None, filename=None, is_file=False)
        state["data"] = bytearray()

    def on_part_data(data, start, end):
        state["data"] += data[start:end]

    def on_part_end():
        ctype_values = [v for (k, v) in state["headers"] if k == b"content-type"]
        part_ctype = ctype_values[0].decode("latin-1") if ctype_values else None
        if state["is_file"]:
            content = bytes(state["data"])  # UploadFile: the raw bytes
        else:
            content = _user_safe_decode(state["data"], charset)
        parts.append(part(state["name"], state["filename"], part_ctype, content))

    def on_header_field(data, start, end):
        state["hname"] += data[start:end]

    def on_header_value(data, start, end):
        state["hvalue"] += data[start:end]

    def on_header_end():
        field = state["hname"].lower()
        if field == b"content-disposition":
            state["cd"] = state["hvalue"]
        state["headers"].append((field, state["hvalue"]))
        state["hname"] = b""
        state["hvalue"] = b""

    def on_headers_finished():
        _, options = pm_parse_options_header(state["cd"])
        try:
            state["name"] = _user_safe_decode(options[b"name"], charset)
        except KeyError:
            raise ReaderError(
                'The Content-Disposition header field "name" must be provided.'
            ) from None
        if b"filename" in options:
            state["is_file"] = True
            state["filename"] = _user_safe_decode(options[b"filename"], charset)

    callbacks = {
        "on_part_begin": on_part_begin,
        "on_part_data": on_part_data,
        "on_part_end": on_part_end,
        "on_header_field": on_header_field,
        "on_header_value": on_header_value,
        "on_header_end": on_header_end,
        "on_headers_finished": on_headers_finished,
        "on_end": lambda: None,
    }
    parser = python_multipart.MultipartParser(boundary, callbacks)
    parser.write(body)
    parser.finalize()
    return parts


# --- werkzeug, driven as werkzeug.formparser.MultiPartParser.parse drives it -------------

WZ_MAX_FORM_MEMORY_SIZE = 500_000  # flask.Request / werkzeug 3.1 default
WZ_MAX_FORM_PARTS = 1000
WZ_BUFFER_SIZE = 64 * 1024


def read_werkzeug(content_type, body):
    if not HAVE_WERKZEUG:
        raise ReaderError(_WZ_IMPORT_ERROR)
    mimetype, options = wz_parse_options_header(content_type)
    mimetype = mimetype.lower()  # Request.mimetype
    if mimetype != "multipart/form-data":
        raise ReaderError(f"not multipart/form-data ({mimetype!r}): Flask gives an empty form")
    boundary = options.get("boundary", "").encode("ascii")
    if not boundary:
        raise ReaderError("Missing boundary")

    charset_of = WzMultiPartParser().get_part_charset
    decoder = WzMultipartDecoder(
        boundary, max_form_memory_size=WZ_MAX_FORM_MEMORY_SIZE, max_parts=WZ_MAX_FORM_PARTS
    )
    parts = []
    current = None
    container = []
    field_size = None
    stream = io.BytesIO(body)

    def chunks():
        while True:
            data = stream.read(WZ_BUFFER_SIZE)
            if not data:
                break
            yield data
        yield None

    for data in chunks():
        decoder.receive_data(data)
        event = decoder.next_event()
        while not isinstance(event, (WzEpilogue, WzNeedData)):
            if isinstance(event, WzField):
                current = event
                field_size = 0
                container = []
            elif isinstance(event, WzFile):
                current = event
                field_size = None
                container = []
            elif isinstance(event, WzData):
                if field_size is not None:
                    field_size += len(event.data)
                    if field_size > WZ_MAX_FORM_MEMORY_SIZE:
                        raise ReaderError("RequestEntityTooLarge")
                container.append(event.data)
                if not event.more_data:
                    raw = b"".join(container)
                    if isinstance(current, WzField):
                        content = raw.decode(charset_of(current.headers), "replace")
                        filename = None
                    else:
                        content = raw
                        filename = current.filename
                    parts.append(
                        part(
                            current.name,
                            filename,
                            current.headers.get("content-type"),
                            content,
                        )
                    )
            event = decoder.next_event()
    return parts


# --- defnull multipart -------------------------------------------------------------------


def read_defnull_multipart(content_type, body):
    mp = defnull_multipart
    if mp is None:
        raise ReaderError("multipart (defnull) not installed")
    # multipart.parse_form_data(environ, charset="utf8", strict=False), errors raised
    if not content_type:
        raise ReaderError("missing Content-Type: empty form")
    ctype, options = mp.parse_options_header(content_type)
    charset = options.get("charset", "utf8")
    if not mp._is_valid_charset(charset):
        raise ReaderError(f"Invalid charset: {charset!r}")
    if ctype != "multipart/form-data":
        raise ReaderError(f"not multipart/form-data ({ctype!r}): empty form")
    boundary = options.get("boundary", "")
    if not boundary:
        raise ReaderError("Missing boundary for multipart/form-data")
    parts = []
    parser = mp.MultipartParser(io.BytesIO(body), boundary, len(body), charset=charset)
    for p in parser:
        if p.filename or not p.is_buffered():
            content = p.raw
        else:
            content = p.value
        parts.append(part(p.name, p.filename, p.headers.get("Content-Type"), content))
        p.close()
    return parts


READERS = {
    "email": read_email,
    "python_multipart": read_python_multipart,
    "werkzeug": read_werkzeug,
    "multipart": read_defnull_multipart,
}


def read_case(case):
    content_type = case.get("content_type")
    if content_type is None:
        content_type = ""
    try:
        body = base64.b64decode(case.get("body", ""), validate=True)
    except Exception as exc:  # noqa: BLE001
        bad = {"error": f"bad case body: {exc}"[:ERROR_MAX]}
        return {name: bad for name in PARSERS}
    return {name: run_guarded(READERS[name], content_type, body) for name in PARSERS}


def read_all(doc):
    return {"parsers": list(PARSERS), "results": [read_case(c) for c in doc.get("cases", [])]}


def main():
    serve(read_all)


if __name__ == "__main__":
    main()
