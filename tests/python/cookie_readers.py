#!/usr/bin/env python3
r"""How backends read a `Cookie:` request header, for utf8gate's cookie differential test.

Input (stdin), one JSON document:

    {"cases": [{"header": "<base64 of the Cookie header value bytes>"}, ...]}

Output (stdout), one JSON document:

    {"parsers": ["simplecookie", "django", "werkzeug", "node_cookie"],
     "results": [{"simplecookie": READING, ...}, ...]}

one result per case, in input order.  READING is {"error": "<short text>"} when the parser
raised, else {"pairs": [[B64name, B64value], ...]}: every (name, value) pair the application
sees, in the order the parser's container yields them.  Where the container is a multi-dict
(werkzeug) every pair is listed, duplicates included; where it is a dict (SimpleCookie,
Django, the npm `cookie` object) it is the dict's items, so a repeated name shows once with
the value that parser kept (last for SimpleCookie and Django, first for npm `cookie`).  A
parser that gives up on the header gives an empty list, not an error.

How the header bytes become a string, and how each string is turned back into bytes:

* "simplecookie": `http.cookies.SimpleCookie().load(s)` of the Python running this script
  (the venv's CPython), items as (key, morsel.value).  A WSGI server would hand the header
  over as a latin-1 str (PEP 3333 environ) and an ASGI server as bytes the framework decodes
  itself; we chose the UTF-8 decoding with errors="surrogateescape" (what a UTF-8-minded
  framework builds), and report each string as `s.encode("utf-8", "surrogateescape")`, so
  bytes copied from the header come back exactly, valid UTF-8 or not.  SimpleCookie's
  patterns are ASCII-only (re.ASCII), so the choice changes values, never where it splits.
  It drops the whole header when it meets a name-only chunk or a reserved attribute name
  (path, domain, ...) before any pair, stops silently at the first chunk its pattern does
  not match (keeping the pairs before it), and raises CookieError on an unknown `$attr`
  after a pair.  Its `_unquote` turns `\ooo` octal escapes into the character U+0000-U+00FF
  of that number (so `"\303\251"` reads as "Ã©", reported as C3 83 C2 A9).
* "django": exactly what Django's `WSGIRequest.COOKIES` does:
  `parse_cookie(get_str_from_wsgi(environ, "HTTP_COOKIE", ""))` with environ["HTTP_COOKIE"]
  the latin-1 decoding of the bytes; `get_str_from_wsgi` re-encodes latin-1 and decodes
  UTF-8 with errors="replace" (invalid bytes become U+FFFD).  Strings are reported as
  `s.encode("utf-8", "surrogatepass")`.  `parse_cookie` splits on every ";" (quotes do
  not protect one), strips names and values with `str.strip()` (Unicode whitespace too, so
  a U+2000 before a name vanishes), and unquotes with the stdlib's `_unquote` as above.
* "werkzeug": Flask's `request.cookies`, i.e. `werkzeug.wrappers.Request(environ).cookies`
  with environ["HTTP_COOKIE"] the latin-1 decoding of the bytes, all items via
  `.items(multi=True)`.  Note that werkzeug 3.x does NOT re-decode that str as UTF-8 on this
  path (only `werkzeug.http.parse_cookie(environ)` does), so a raw UTF-8 "é" reaches the
  application as "Ã©"; inside a quoted value, `\ooo` escapes are collected as bytes and
  decoded as UTF-8 with errors="replace".
* "node_cookie": the npm `cookie` package's `parse` (version NODE_COOKIE_VERSION below), run
  by Node (`node` on PATH, or $NODE), on `Buffer.from(bytes).toString("latin1")`, the str
  Node's http module builds from header bytes.  The package is installed by this script
  with npm into target/node-cookie (or $UTF8GATE_NODE_COOKIE); when npm or node cannot be
  used, the parser is left out of "parsers" and one line on stderr says why.  Its `parse`
  strips spaces and tabs only, keeps double quotes as part of the value, and runs
  `decodeURIComponent` on a value holding "%" (keeping the raw value when that throws).
  Pairs are listed in `Object.keys` order (JavaScript puts integer-like names first).

Strings that came from latin-1 decoding ("werkzeug", "node_cookie") are reported with
`latin1_bytes`: `s.encode("latin-1")` when every character is at most U+00FF (so bytes
copied from the header come back exactly), else `s.encode("utf-8", "surrogatepass")` (only
possible for characters the parser made itself: werkzeug's decoded escapes or U+FFFD,
`decodeURIComponent` results such as "%E2%80%80").  A percent- or escape-decoded "é" (U+00E9)
therefore shows as the single byte E9.
"""

import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
from http.cookies import SimpleCookie
from pathlib import Path

from django.core.handlers.wsgi import get_str_from_wsgi
from django.http.cookie import parse_cookie as django_parse_cookie
from werkzeug.wrappers import Request

from reader_io import serve, short_error

NODE_COOKIE_VERSION = "1.1.1"  # npm `cookie`, newest 1.x; also noted in requirements.txt
REPO = Path(__file__).resolve().parents[2]
NODE_COOKIE_DIR = Path(os.environ.get("UTF8GATE_NODE_COOKIE", REPO / "target" / "node-cookie"))
NPM_TIMEOUT = 180

# Reads {"module": path, "cases": [...]} on stdin, writes {"results": [...]} with the JS
# strings themselves; Python encodes them (lone surrogates survive JSON as \udXXX escapes).
NODE_SCRIPT = r"""
"use strict";
const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const doc = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const cookie = require(doc.module);
  const results = doc.cases.map((c) => {
    try {
      const header = Buffer.from(c.header || "", "base64").toString("latin1");
      const jar = cookie.parse(header);
      return { pairs: Object.keys(jar).map((name) => [name, jar[name]]) };
    } catch (e) {
      return { error: String(e && e.name ? `${e.name}: ${e.message}` : e) };
    }
  });
  process.stdout.write(JSON.stringify({ results }) + "\n");
});
"""


def b64(data):
    return base64.b64encode(data).decode("ascii")


def latin1_bytes(s):
    try:
        return s.encode("latin-1")
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogatepass")


def read_simplecookie(header):
    jar = SimpleCookie()
    jar.load(header.decode("utf-8", "surrogateescape"))
    return [
        (k.encode("utf-8", "surrogateescape"), m.value.encode("utf-8", "surrogateescape"))
        for k, m in jar.items()
    ]


def wsgi_environ(header):
    return {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": "/",
        "QUERY_STRING": "",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http",
        "HTTP_HOST": "localhost",
        "HTTP_COOKIE": header.decode("latin-1"),
    }


def read_django(header):
    raw = get_str_from_wsgi(wsgi_environ(header), "HTTP_COOKIE", "")
    jar = django_parse_cookie(raw)
    return [(k.encode("utf-8", "surrogatepass"), v.encode("utf-8", "surrogatepass")) for k, v in jar.items()]


def read_werkzeug(header):
    jar = Request(wsgi_environ(header)).cookies
    return [(latin1_bytes(k), latin1_bytes(v)) for k, v in jar.items(multi=True)]


PY_READERS = {"simplecookie": read_simplecookie, "django": read_django, "werkzeug": read_werkzeug}


def run_guarded(reader, header):
    try:
        return {"pairs": [[b64(k), b64(v)] for k, v in reader(header)]}
    except RecursionError:
        return {"error": "recursion"}
    except Exception as exc:  # noqa: BLE001  any refusal is a refusal
        return short_error(f"{type(exc).__name__}: {exc}")


def node_cookie_module():
    """Path of the installed npm `cookie` package, installing it if needed; or (None, why)."""
    module = NODE_COOKIE_DIR / "node_modules" / "cookie"

    def installed():
        try:
            return json.loads((module / "package.json").read_text())["version"] == NODE_COOKIE_VERSION
        except (OSError, ValueError, KeyError):
            return False

    node = shutil.which(os.environ.get("NODE") or "node")
    if not node:
        return None, None, f"node not found ({os.environ.get('NODE') or 'node'})"
    if installed():
        return node, module, None
    npm = shutil.which("npm")
    if not npm:
        return None, None, "npm not found"
    NODE_COOKIE_DIR.mkdir(parents=True, exist_ok=True)
    # Two test processes may get here at once: one installs, the other waits and reuses.
    with open(f"{NODE_COOKIE_DIR}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed():
            return node, module, None
        cmd = [npm, "install", "--prefix", str(NODE_COOKIE_DIR), "--no-audit", "--no-fund",
               "--save-exact", "--fetch-retries=1", "--fetch-timeout=30000",
               f"cookie@{NODE_COOKIE_VERSION}"]
        try:
            done = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=NPM_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, None, f"npm install cookie@{NODE_COOKIE_VERSION} failed: {exc}"
        if done.returncode != 0 or not installed():
            lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
            # npm's first lines are "npm error code ECONNREFUSED" and the like.
            why = " / ".join(lines[:4]) or f"exit status {done.returncode}"
            return None, None, f"npm install cookie@{NODE_COOKIE_VERSION} failed: {why}"
    return node, module, None


def read_node_cookie(node, module, headers_b64):
    """One node process for all cases; a list of READINGs, one per case."""
    doc = {"module": str(module), "cases": [{"header": h} for h in headers_b64]}
    try:
        done = subprocess.run([node, "-e", NODE_SCRIPT], input=json.dumps(doc).encode(),
                              capture_output=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"node exited {done.returncode}: {done.stderr.decode(errors='replace').strip()}")
        results = json.loads(done.stdout.decode("utf-8"))["results"]
        if len(results) != len(headers_b64):
            raise RuntimeError(f"node gave {len(results)} results for {len(headers_b64)} cases")
    except Exception as exc:  # noqa: BLE001  the node run as a whole failed: every case says so
        return [short_error(f"{type(exc).__name__}: {exc}")] * len(headers_b64)
    out = []
    for r in results:
        if "error" in r:
            out.append(short_error(r["error"]))
        else:
            out.append({"pairs": [[b64(latin1_bytes(k)), b64(latin1_bytes(v))] for k, v in r["pairs"]]})
    return out


def read_all(doc):
    cases = doc.get("cases", [])
    headers = [base64.b64decode(case.get("header", ""), validate=True) for case in cases]
    parsers = list(PY_READERS)
    results = [{name: run_guarded(reader, h) for name, reader in PY_READERS.items()} for h in headers]
    node, module, why = node_cookie_module()
    if module is None:
        print(f"cookie_readers: node_cookie left out: {why}", file=sys.stderr)
    else:
        parsers.append("node_cookie")
        readings = read_node_cookie(node, module, [b64(h) for h in headers])
        for result, reading in zip(results, readings):
            result["node_cookie"] = reading
    return {"parsers": parsers, "results": results}


def main():
    serve(read_all)


if __name__ == "__main__":
    main()
