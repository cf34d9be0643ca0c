#!/usr/bin/env python3
"""Checks the shape of Markdown documents (and, optionally, Rust module docs).

    python3 tools/doc-shape.py ARCHITECTURE.md [MORE.md ...]
    python3 tools/doc-shape.py ARCHITECTURE.md --rust-modules crates/codec/src crates/policy/src

Markdown: fails on any table cell longer than 300 characters and on any line longer than
400 characters outside fenced code blocks (``` or ~~~). Rust (with --rust-modules DIR...):
fails on any .rs file under those directories whose first non-empty line is not a `//!`
module doc comment; files named tests.rs, and files under a tests/, benches/ or examples/
directory, are skipped. Each failure is printed as file:line: reason; a one-line summary
follows. Exit status: 0 if nothing failed, 1 otherwise, 2 on a usage error. Standard library
only. Lengths are counted in characters (code points), not bytes.
"""

import os
import re
import sys

MAX_CELL = 300
MAX_LINE = 400
SKIPPED_DIRS = {"tests", "benches", "examples"}
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def split_cells(line):
    """The cells of a Markdown table row: split on `|` outside code spans, `\\|` kept."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    cells, current, i, tick_run = [], [], 0, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            current.append(text[i : i + 2])
            i += 2
            continue
        if c == "`":
            j = i
            while j < len(text) and text[j] == "`":
                j += 1
            run = j - i
            if tick_run == 0:
                tick_run = run
            elif run == tick_run:
                tick_run = 0
            current.append(text[i:j])
            i = j
            continue
        if c == "|" and tick_run == 0:
            cells.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    cells.append("".join(current))
    return [cell.strip() for cell in cells]


def is_table_row(line):
    return line.lstrip().startswith("|")


def check_markdown(path):
    failures = []
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        return [f"{path}:0: cannot read: {e}"], 0
    fence = None
    cells_seen = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and line.strip() == m.group(1):
                fence = None
            continue
        if len(line) > MAX_LINE:
            failures.append(
                f"{path}:{number}: line of {len(line)} characters (at most {MAX_LINE} "
                f"outside code blocks)"
            )
        if is_table_row(line):
            for index, cell in enumerate(split_cells(line), start=1):
                cells_seen += 1
                if len(cell) > MAX_CELL:
                    failures.append(
                        f"{path}:{number}: table cell {index} of {len(cell)} characters "
                        f"(at most {MAX_CELL}): {cell[:60]!r}..."
                    )
    return failures, cells_seen


def rust_files(directory):
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(files):
            if name.endswith(".rs") and name != "tests.rs":
                yield os.path.join(root, name)


def check_rust(path):
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if line.strip():
                    if line.lstrip().startswith("//!"):
                        return None
                    return f"{path}:{number}: first non-empty line is not a `//!` module doc"
    except (OSError, UnicodeDecodeError) as e:
        return f"{path}:0: cannot read: {e}"
    return f"{path}:0: empty file, no `//!` module doc"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    docs, dirs = [], []
    into = docs
    for arg in argv:
        if arg == "--rust-modules":
            into = dirs
        elif arg.startswith("--"):
            print(f"doc-shape: unknown option {arg}", file=sys.stderr)
            return 2
        else:
            into.append(arg)
    if not docs and not dirs:
        print("doc-shape: no Markdown file and no --rust-modules directory given", file=sys.stderr)
        return 2
    failures = []
    cells = 0
    for path in docs:
        found, seen = check_markdown(path)
        failures.extend(found)
        cells += seen
    modules = 0
    for directory in dirs:
        if not os.path.isdir(directory):
            failures.append(f"{directory}:0: not a directory")
            continue
        for path in rust_files(directory):
            modules += 1
            failure = check_rust(path)
            if failure:
                failures.append(failure)
    for failure in failures:
        print(failure)
    summary = f"doc-shape: {len(docs)} Markdown file(s), {cells} table cell(s)"
    if dirs:
        summary += f", {modules} Rust module(s) under {len(dirs)} dir(s)"
    verdict = "ok" if not failures else f"{len(failures)} failure(s)"
    print(f"{summary}: {verdict}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
