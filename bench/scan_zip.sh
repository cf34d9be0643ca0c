#!/usr/bin/env bash
# Archives (issue 27). A ZIP of text files (MIB MiB, 256 by default; entries named in several
# scripts, deflated by Python's zipfile) read for its entry names from the raw records, never
# decompressed: uploaded to /v1/scan as application/zip (the body is buffered whole, a ZIP's
# central directory comes last, so max_body_bytes and the budget are raised to hold it), and
# scanned by `utf8gate scan` (buffered up to max_archive_bytes, raised likewise). Then the
# hostile case next to its clean twin: a 7.8 MB ZIP of 29 600 entries named `..\..\...` (each an
# archive_path and a traversal finding) and one of the same size and entry count with clean
# names, to /v1/scan (default limits) and `utf8gate scan`. Wall time and peak RSS, REPS times
# each (3 by default), then the medians. Run by bench/scan.sh.
#
# usage: bench/scan_zip.sh   (MIB=256 REPS=3 by default; needs curl, python3, a release build)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MIB="${MIB:-256}"
REPS="${REPS:-3}"
BIN="${BIN:-$ROOT/target/release/utf8gate}"
[ -x "$BIN" ] || (cd "$ROOT" && cargo build --release -p utf8gate-server -q)
WORK="$(mktemp -d)"
. "$ROOT/bench/stop.sh"
cleanup() { stop_pids "${PID:-}"; rm -rf "$WORK"; }
trap cleanup EXIT

python3 - "$WORK" "$MIB" <<'PY'
import os, sys, zipfile
work, target = sys.argv[1], int(sys.argv[2]) << 20
names = ["docs/readme-{}.txt", "日本語/ファイル-{}.txt", "Ελληνικά/αρχείο-{}.md", "русский/файл-{}.csv"]
# Words deflate barely shrinks, so the archive is about MIB MiB on the wire.
words = [os.urandom(6).hex() for _ in range(4096)]
with zipfile.ZipFile(f"{work}/upload.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
    i = 0
    while z.fp.tell() < target:
        body = " ".join(words[(i * 7 + k) % 4096] for k in range(9000)).encode()
        z.writestr(names[i % 4].format(i), body)
        i += 1
# The hostile ZIP and its clean twin: 29 600 stored entries, names of 90 bytes, 7-byte contents.
for kind, stem in [("hostile", "..\\" * 28), ("clean", "docs/" * 16 + "abcd")]:
    with zipfile.ZipFile(f"{work}/{kind}.zip", "w", zipfile.ZIP_STORED) as z:
        for i in range(29600):
            z.writestr(f"{stem}x{i:05d}", b"content")
PY
size=$(stat -c %s "$WORK/upload.zip")
entries=$(python3 -c "import zipfile,sys; print(len(zipfile.ZipFile(sys.argv[1]).namelist()))" "$WORK/upload.zip")
echo "# $((size >> 20)) MiB ZIP, $entries entries; hostile.zip $(stat -c %s "$WORK/hostile.zip") bytes, clean.zip $(stat -c %s "$WORK/clean.zip") bytes"

serve() { # serve CONFIG: starts the binary on 18395 (api), 18396 (admin)
    env -u UTF8GATE_LOG_LEVEL "$BIN" serve --config "$1" --api-addr 127.0.0.1:18395 \
        --admin-addr 127.0.0.1:18396 2>/dev/null &
    PID=$!
    for _ in $(seq 1 50); do curl -s -o /dev/null --max-time 1 http://127.0.0.1:18396/healthz && break; sleep 0.1; done
    sleep 0.5
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=0; }

RESULTS="$WORK/results"
# scan_api NAME FILE DECISION: one upload to a fresh server; wall seconds and peak RSS.
scan_api() {
    local idle peak t0 t1 verdict
    idle=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
    t0=$(date +%s.%N)
    verdict=$(curl -sS --max-time 600 -X POST -T "$2" -H 'Content-Type: application/zip' \
        -H 'Expect:' http://127.0.0.1:18395/v1/scan)
    t1=$(date +%s.%N)
    peak=$(awk '/^VmHWM/ {print $2}' "/proc/$PID/status")
    grep -q "\"decision\":\"$3\"" <<<"$verdict" || { echo "unexpected verdict: ${verdict:0:300}"; exit 1; }
    echo "$1 $(echo "$t1 - $t0" | bc -l) $((idle / 1024)) $((peak / 1024))" >> "$RESULTS"
}
# scan_cli NAME FILE STATUS: `utf8gate scan` of FILE; wall seconds and peak RSS (GNU time).
scan_cli() {
    local out status
    set +e
    out=$(UTF8GATE_LIMITS_MAX_ARCHIVE_BYTES=$((size + (1 << 20))) /usr/bin/time -f '%e %M' \
        "$BIN" scan --format json "$2" 2>&1 >/dev/null)
    status=$?
    set -e
    [ "$status" = "$3" ] || { echo "unexpected status $status for $1"; exit 1; }
    read -r secs kib <<<"$(tail -n 1 <<<"$out")"
    echo "$1 $secs 0 $((kib / 1024))" >> "$RESULTS"
}

printf '[limits]\nmax_body_bytes = %d\nmax_buffered_bytes = %d\nrequest_timeout_seconds = 600.0\n' \
    $((size + (1 << 20))) $(((size + (1 << 20)) * 3)) > "$WORK/zip.toml"
printf '[limits]\n' > "$WORK/default.toml"
for rep in $(seq 1 "$REPS"); do
    serve "$WORK/zip.toml"; scan_api "api-${MIB}MiB" "$WORK/upload.zip" allow; stop
    scan_cli "cli-${MIB}MiB" "$WORK/upload.zip" 0
    for kind in hostile clean; do
        decision=$([ "$kind" = hostile ] && echo reject || echo allow)
        serve "$WORK/default.toml"; scan_api "api-$kind" "$WORK/$kind.zip" "$decision"; stop
        scan_cli "cli-$kind" "$WORK/$kind.zip" "$([ "$kind" = hostile ] && echo 2 || echo 0)"
    done
done
python3 - "$RESULTS" "$size" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, secs, idle, peak = line.split()
    rows.setdefault(name, []).append((float(secs), int(idle), int(peak)))
size = int(sys.argv[2])
print("| case | wall, every rep (s) | median (s) | throughput at the median | peak RSS, every rep (MiB) |")
print("|---|---|---|---|---|")
for name, reps in rows.items():
    med = statistics.median(r[0] for r in reps)
    nbytes = size if "MiB" in name else None
    rate = f"{nbytes / med / 1e9:.2f} GB/s" if nbytes else ""
    walls = " ".join(f"{r[0]:.3f}" for r in reps)
    peaks = " ".join(f"{r[2]}" + (f" (idle {r[1]})" if r[1] else "") for r in reps)
    print(f"| {name} | {walls} | {med:.3f} | {rate} | {peaks} |")
PY
