#!/usr/bin/env python3
"""Turns criterion's results (target/criterion) into the ratio tables of docs/BENCHMARKS.md.

usage: scripts/bench_table.py GROUP BASELINE [TARGET_DIR]
Prints one row per parameter (corpus/size): GB/s of every function in GROUP (median), then each
function's ratio to BASELINE, measured in the same run.
"""
import json, os, sys

def load(group, target):
    root = os.path.join(target, "criterion")
    rows = {}
    for dirpath, _, files in os.walk(root):
        if "benchmark.json" not in files or not dirpath.endswith(os.sep + "new"):
            continue
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            bench = json.load(f)
        if bench["group_id"] != group:
            continue
        with open(os.path.join(dirpath, "estimates.json")) as f:
            est = json.load(f)
        nbytes = bench["throughput"]["Bytes"]
        gbps = nbytes / est["median"]["point_estimate"]  # bytes per ns = GB/s
        rows.setdefault(bench["value_str"], {})[bench["function_id"]] = gbps
    return rows

def order(param):
    script, _, size = param.partition("/")
    sizes = {"1KiB": 0, "64KiB": 1, "1MiB": 2}
    return (size and sizes.get(size, 9), script)

def main():
    group, baseline = sys.argv[1], sys.argv[2]
    target = sys.argv[3] if len(sys.argv) > 3 else "target"
    rows = load(group, target)
    funcs = sorted({f for r in rows.values() for f in r})
    others = [f for f in funcs if f != baseline]
    head = ["corpus/size"] + ["%s GB/s" % f for f in funcs] + ["%s / %s" % (f, baseline) for f in others]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for param in sorted(rows, key=order):
        r = rows[param]
        cells = [param] + ["%.2f" % r[f] if f in r else "-" for f in funcs]
        cells += ["%.2f×" % (r[f] / r[baseline]) if f in r and baseline in r else "-" for f in others]
        print("| " + " | ".join(cells) + " |")

if __name__ == "__main__":
    main()
