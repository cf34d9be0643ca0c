#!/usr/bin/env python3
r"""How Python backends read a YAML body, for utf8gate's YAML differential test.

Input (stdin), one JSON document:

    {"cases": [{"body": "<base64 of the body bytes>"}, ...]}

Output (stdout), one JSON document:

    {"parsers": ["pyyaml", "pyyaml_libyaml", "ruamel"],
     "results": [{"pyyaml": READING, ...}, ...]}

one result per case, in input order.  READING is {"error": "<short text>"} when the parser
refused the stream or raised, else {"strings": [B64, ...]}: every `str` the application gets
(mapping keys and values, sequence items, in every document of the stream), each encoded
as `s.encode("utf-8", "surrogatepass")` so that a lone surrogate from an escape (`"\ud800"`)
shows as the bytes ED A0 80, which no UTF-8 field can equal; `bytes` (from `!!binary`) are
reported as strings too, prefixed with "bytes:".  A value reached twice (an alias) is
walked once; other types (numbers, booleans, null, dates, sets) are not strings.

The parsers:

* "pyyaml": PyYAML's `yaml.safe_load_all` with the pure-Python `SafeLoader` (YAML 1.1).
* "pyyaml_libyaml": `yaml.load_all(body, Loader=yaml.CSafeLoader)`, libyaml's scanner and
  parser (what Ruby's Psych uses too); skipped when PyYAML was built without libyaml.
* "ruamel": ruamel.yaml's `YAML(typ="safe", pure=True).load_all` (YAML 1.2).

Each parser reads the body as bytes, detecting UTF-8/UTF-16 by BOM as it does itself.
"""

import base64
import json
import sys
import warnings

import yaml
from ruamel.yaml import YAML

from reader_io import serve

ERROR_MAX = 200


def strings_of(documents):
    out = []
    seen = set()
    stack = list(documents)[::-1]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            out.append(base64.b64encode(value.encode("utf-8", "surrogatepass")).decode())
            continue
        if isinstance(value, (bytes, bytearray)):
            out.append(base64.b64encode(b"bytes:" + bytes(value)).decode())
            continue
        if id(value) in seen:
            continue
        if isinstance(value, dict):
            seen.add(id(value))
            for k, v in reversed(list(value.items())):
                stack.append(v)
                stack.append(k)
        elif isinstance(value, (list, tuple, set, frozenset)):
            seen.add(id(value))
            stack.extend(reversed(list(value)))
    return out


def read_pyyaml(body):
    return list(yaml.load_all(body, Loader=yaml.SafeLoader))


def read_libyaml(body):
    return list(yaml.load_all(body, Loader=yaml.CSafeLoader))


def read_ruamel(body):
    return list(YAML(typ="safe", pure=True).load_all(body))


READERS = {"pyyaml": read_pyyaml, "ruamel": read_ruamel}
if getattr(yaml, "__with_libyaml__", False):
    READERS["pyyaml_libyaml"] = read_libyaml
PARSERS = list(READERS)


def run_guarded(reader, body):
    try:
        return {"strings": strings_of(reader(body))}
    except RecursionError:
        return {"error": "recursion"}
    except Exception as exc:  # noqa: BLE001  any refusal is a refusal
        text = f"{type(exc).__name__}: {exc}"[:ERROR_MAX]
        # ASCII only: a message may quote a lone surrogate, which strict JSON readers refuse.
        return {"error": text.encode("ascii", "backslashreplace").decode("ascii")}


def read_all(doc):
    results = []
    for case in doc.get("cases", []):
        body = base64.b64decode(case.get("body", ""), validate=True)
        results.append({name: run_guarded(READERS[name], body) for name in PARSERS})
    return {"parsers": PARSERS, "results": results}


def main():
    warnings.simplefilter("ignore")  # ruamel.yaml warns of reused anchors
    serve(read_all)


if __name__ == "__main__":
    main()
