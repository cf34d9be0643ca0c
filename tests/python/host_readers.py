#!/usr/bin/env python3
r"""Which host a resolver or a URL parser reaches from a host name, for utf8gate's host test.

Input (stdin), one JSON document:

    {"cases": [{"host": "<base64 of the host bytes: a host name, maybe with a port>"}, ...]}

Output (stdout), one JSON document:

    {"parsers": ["idna_uts46", "whatwg_url"],
     "results": [{"idna_uts46": READING, "whatwg_url": READING}, ...]}

one result per case, in input order.  Both parsers get the same str, the UTF-8 decoding of
the bytes; bytes that are not valid UTF-8 (those the "surrogateescape" decoding would have
to smuggle through as lone surrogates) give {"error": "not UTF-8: ..."} for both, without
running either.  Every string below is reported as base64 of its UTF-8 encoding.

* "idna_uts46": Kim Davies' `idna` package (pinned in requirements.txt), the way a UTS #46
  resolver maps a name: the port is stripped first (a trailing ":<ASCII digits>", after
  "]" for a bracketed literal), then `idna.encode(host, uts46=True, std3_rules=False,
  transitional=False)` and `idna.decode` of that, so the READING {"host": B64} is the
  Unicode host the lookup reaches (mapped, so lowercased and NFC'd, with U+3002 and its
  kin as "."); {"error": ...} when idna raises (IDNAError, UnicodeError or anything else).
* "whatwg_url": Node's WHATWG `URL` (the `node` on PATH, or $NODE; one process for all
  cases): `new URL("http://" + host + "/").hostname`, the ASCII (punycode) form, plus
  `require("node:url").domainToUnicode(hostname)`; READING {"ascii": B64, "unicode": B64},
  or {"error": ...} when the URL constructor throws (an invalid host, or an invalid port,
  which this parser sees).  `domainToUnicode` gives "" for what it cannot convert.
"""

import base64
import json
import os
import re
import shutil
import subprocess
import sys

import idna

from reader_io import serve, short_error

PARSERS = ["idna_uts46", "whatwg_url"]

# Reads {"hosts": [str or null, ...]} on stdin, writes {"results": [...]} with the JS strings.
NODE_SCRIPT = r"""
"use strict";
const { domainToUnicode } = require("node:url");
const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const doc = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const results = doc.hosts.map((host) => {
    if (host === null) return null;
    try {
      const ascii = new URL("http://" + host + "/").hostname;
      return { ascii, unicode: domainToUnicode(ascii) };
    } catch (e) {
      return { error: String(e && e.name ? `${e.name}: ${e.message}` : e) };
    }
  });
  process.stdout.write(JSON.stringify({ results }) + "\n");
});
"""


def b64_str(s):
    return base64.b64encode(s.encode("utf-8", "surrogatepass")).decode("ascii")


def strip_port(host):
    m = re.fullmatch(r"(\[[^\]]*\]|[^:]*)(?::[0-9]*)?", host, re.S)
    return m.group(1) if m else host


def read_idna(host):
    try:
        ace = idna.encode(strip_port(host), uts46=True, std3_rules=False, transitional=False)
        return {"host": b64_str(idna.decode(ace))}
    except RecursionError:
        return {"error": "recursion"}
    except Exception as exc:  # noqa: BLE001  IDNAError, UnicodeError: any refusal is a refusal
        return short_error(f"{type(exc).__name__}: {exc}")


def read_whatwg(hosts):
    """One node process for all cases; a READING per host (None where the host is None)."""
    node = shutil.which(os.environ.get("NODE") or "node")
    try:
        if not node:
            raise RuntimeError(f"node not found ({os.environ.get('NODE') or 'node'})")
        done = subprocess.run([node, "-e", NODE_SCRIPT], input=json.dumps({"hosts": hosts}).encode(),
                              capture_output=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"node exited {done.returncode}: {done.stderr.decode(errors='replace').strip()}")
        results = json.loads(done.stdout.decode("utf-8"))["results"]
        if len(results) != len(hosts):
            raise RuntimeError(f"node gave {len(results)} results for {len(hosts)} cases")
    except Exception as exc:  # noqa: BLE001  the node run as a whole failed: every case says so
        return [short_error(f"{type(exc).__name__}: {exc}")] * len(hosts)
    out = []
    for r in results:
        if r is None or "error" in r:
            out.append(r and short_error(r["error"]))
        else:
            out.append({"ascii": b64_str(r["ascii"]), "unicode": b64_str(r["unicode"])})
    return out


def read_all(doc):
    hosts = []  # the str both parsers get, or an error READING when the bytes are not UTF-8
    for case in doc.get("cases", []):
        raw = base64.b64decode(case.get("host", ""), validate=True)
        try:
            hosts.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            hosts.append(short_error(f"not UTF-8: {exc}"))
    whatwg = read_whatwg([h if isinstance(h, str) else None for h in hosts])
    results = []
    for host, url_reading in zip(hosts, whatwg):
        if isinstance(host, str):
            results.append({"idna_uts46": read_idna(host), "whatwg_url": url_reading})
        else:
            results.append({"idna_uts46": host, "whatwg_url": host})
    return {"parsers": PARSERS, "results": results}


def main():
    serve(read_all)


if __name__ == "__main__":
    main()
