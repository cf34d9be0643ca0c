#!/usr/bin/env python3
r"""Reads form submissions with the standard library's parsers, for the Chromium end-to-end
test (tests/tests/e2e/fronts/chromium.rs): an independent reading of what reached the
upstream, needed where the browser chose the bytes (a multipart boundary is random).

Input (stdin), one JSON document: [{"kind": K, "content_type": str, "body": "<hex>"}, ...]
Output (stdout), one JSON document, one reading per input:

* "multipart": email.parser.BytesParser(policy=email.policy.HTTP) on a Content-Type head and
  the body, as tests/python/multipart_readers.py's "email" reader (raw UTF-8 header bytes read
  as UTF-8, RFC 6532): [{"name", "filename", "content_type", "content": "<hex>"}, ...], with
  content = get_payload(decode=True) and content_type null for a part without one.
* "urlencoded": urllib.parse.parse_qsl (strict UTF-8, blank values kept): [[name, value], ...].
* "json": json.loads of the body decoded as strict UTF-8.

Standard library only: runs on the system python3. Any error exits non-zero.
"""
import email.parser
import email.policy
import json
import sys
import urllib.parse


def multipart(content_type, body):
    head = b"Content-Type: " + content_type.encode("latin-1") + b"\r\nMIME-Version: 1.0\r\n\r\n"
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    if not msg.is_multipart():
        raise SystemExit(f"not multipart: {content_type!r}")
    return [
        {
            "name": part.get_param("name", header="content-disposition"),
            "filename": part.get_filename(),
            "content_type": part.get_content_type() if "content-type" in part else None,
            "content": part.get_payload(decode=True).hex(),
        }
        for part in msg.iter_parts()
    ]


def urlencoded(body):
    text = body.decode("ascii")
    pairs = urllib.parse.parse_qsl(
        text, keep_blank_values=True, strict_parsing=True, encoding="utf-8", errors="strict"
    )
    return [list(p) for p in pairs]


READERS = {
    "multipart": lambda c: multipart(c["content_type"], bytes.fromhex(c["body"])),
    "urlencoded": lambda c: urlencoded(bytes.fromhex(c["body"])),
    "json": lambda c: json.loads(bytes.fromhex(c["body"]).decode("utf-8")),
}

json.dump([READERS[c["kind"]](c) for c in json.load(sys.stdin)], sys.stdout)
