#!/usr/bin/env python3
r"""How Python reads archive entry names, for utf8gate's archive differential test.

Standard library only. Input (stdin), one JSON document:

    {"read": ["<base64 of an archive>", ...], "write": [["<name>", ...], ...]}

Output (stdout), one JSON document:

    {"read": [{"zipfile": READING, "tarfile": READING}, ...],
     "written": [{"zip": B64, "pax": B64, "gnu": B64, "ustar": B64,
                  "tgz": B64}, ...]}

READING is {"error": "<short text>"} when the module refused the archive (or it is not of
its format), else {"names": [B64, ...]}: each member's name as the application receives it,
as UTF-8 bytes (tarfile's surrogateescape bytes restored). "written" holds, for each list of
names, the archives zipfile and tarfile write of them (an entry "x" for each name); a format
that cannot hold a name is left out.
"""

import base64
import io
import json
import sys
import tarfile
import zipfile


def b64(data):
    return base64.b64encode(data).decode("ascii")


def read_zip(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return [n.encode("utf-8", "surrogateescape") for n in z.namelist()]


def read_tar(data):
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as t:
        return [m.name.encode("utf-8", "surrogateescape") for m in t.getmembers()]


def reading(reader, data):
    try:
        return {"names": [b64(n) for n in reader(data)]}
    except Exception as e:  # a refusal is the answer
        return {"error": type(e).__name__}


def write(names):
    out = {}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for n in names:
            z.writestr(n, b"x")
    out["zip"] = b64(buf.getvalue())
    for key, fmt in [("pax", tarfile.PAX_FORMAT), ("gnu", tarfile.GNU_FORMAT),
                     ("ustar", tarfile.USTAR_FORMAT), ("tgz", tarfile.PAX_FORMAT)]:
        buf = io.BytesIO()
        try:
            mode = "w:gz" if key == "tgz" else "w"
            with tarfile.open(fileobj=buf, mode=mode, format=fmt) as t:
                for n in names:
                    info = tarfile.TarInfo(n)
                    info.size = 1
                    t.addfile(info, io.BytesIO(b"x"))
            out[key] = b64(buf.getvalue())
        except Exception:
            pass
    return out


def main():
    doc = json.load(sys.stdin)
    read = [{"zipfile": reading(read_zip, base64.b64decode(c)),
             "tarfile": reading(read_tar, base64.b64decode(c))} for c in doc.get("read", [])]
    written = [write(names) for names in doc.get("write", [])]
    json.dump({"read": read, "written": written}, sys.stdout)


if __name__ == "__main__":
    main()
