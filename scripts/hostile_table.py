#!/usr/bin/env python3
"""Turns the `hostile` criterion group's results into the table of docs/BENCHMARKS.md.

usage: scripts/hostile_table.py [TARGET_DIR]   (default: $CARGO_TARGET_DIR, else target)
One row per case and path (evaluate, evaluate_upload, scan), in the order the cases are
listed: median time of the clean twin and of the hostile request, hostile / clean (same run),
the hostile request's bytes, nanoseconds per byte and MB/s.
"""
import json, os, sys

def load(target):
    root = os.path.join(target, "criterion")
    rows = {}
    for dirpath, _, files in os.walk(root):
        if "benchmark.json" not in files or not dirpath.endswith(os.sep + "new"):
            continue
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            bench = json.load(f)
        if bench["group_id"] != "hostile":
            continue
        with open(os.path.join(dirpath, "estimates.json")) as f:
            est = json.load(f)
        case, _, side = bench["value_str"].rpartition("/")
        rows.setdefault((case, bench["function_id"]), {})[side] = (
            est["median"]["point_estimate"], bench["throughput"]["Bytes"])
    return rows

def main():
    target = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CARGO_TARGET_DIR", "target")
    rows = load(target)
    listing = os.popen(os.path.join(target, "release", "examples", "hostile") + " list").read()
    names = [line.split("\t")[0] for line in listing.splitlines()] or sorted({c for c, _ in rows})
    paths = ["evaluate", "evaluate_upload", "scan"]
    print("| case | path | clean | hostile | hostile / clean | hostile bytes | ns / byte | MB/s |")
    print("|---|---|---|---|---|---|---|---|")
    fmt = lambda ns: f"{ns / 1e6:.1f} ms" if ns >= 1e5 else f"{ns / 1e3:.0f} µs"
    for name in names:
        for path in paths:
            sides = rows.get((name, path))
            if not sides or "hostile" not in sides or "clean" not in sides:
                continue
            (c, _), (h, n) = sides["clean"], sides["hostile"]
            ratio = h / c
            ratio = f"{ratio:.1f}×" if ratio < 10 else f"{ratio:.0f}×"
            print(f"| {name} | {path} | {fmt(c)} | {fmt(h)} | {ratio} | {n} | "
                  f"{h / n:.1f} | {n / h * 1e3:.1f} |")

main()
