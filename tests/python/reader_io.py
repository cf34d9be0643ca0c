"""What the parser-differential readers (`*_readers.py`) share: one JSON document in on stdin,
one out on stdout, and errors short enough and ASCII enough for any JSON reader."""

import json
import sys

ERROR_MAX = 200


def short_error(text, limit=ERROR_MAX):
    """{"error": text}, cut to `limit` characters and made ASCII (a message may quote a lone
    surrogate, which strict JSON readers refuse)."""
    return {"error": text[:limit].encode("ascii", "backslashreplace").decode("ascii")}


def serve(read_all):
    """Reads the request document from stdin, writes `read_all(doc)` to stdout as compact
    ASCII JSON with a newline. Parsers recurse: the limit is raised so that a deep case is a
    reading, not a crash of the reader."""
    sys.setrecursionlimit(5000)
    doc = json.load(sys.stdin)
    json.dump(read_all(doc), sys.stdout, ensure_ascii=True, separators=(",", ":"))
    sys.stdout.write("\n")
    sys.stdout.flush()
