#!/usr/bin/env bash
# A ZIP of text files (MIB MiB, 256 by default; entries named in several scripts, deflated by
# Python's zipfile) uploaded to /v1/scan as application/zip: the archive reading reads every
# entry name from the raw records and never decompresses an entry. Throughput and the
# server's peak RSS above idle. The body is buffered whole (a ZIP's central directory comes
# last), so max_body_bytes and the budget are raised to hold it. Run by bench/scan.sh.
#
# usage: bench/scan_zip.sh   (MIB=256 by default; needs curl, python3 and a release build)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MIB="${MIB:-256}"
BIN="${BIN:-$ROOT/target/release/utf8gate}"
[ -x "$BIN" ] || (cd "$ROOT" && cargo build --release -p utf8gate-server -q)
WORK="$(mktemp -d)"
cleanup() { kill "${PID:-0}" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

python3 - "$WORK/upload.zip" "$MIB" <<'PY'
import os, sys, zipfile
target = int(sys.argv[2]) << 20
names = ["docs/readme-{}.txt", "日本語/ファイル-{}.txt", "Ελληνικά/αρχείο-{}.md", "русский/файл-{}.csv"]
# Words deflate barely shrinks, so the archive is about MIB MiB on the wire.
words = [os.urandom(6).hex() for _ in range(4096)]
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
    i = 0
    while z.fp.tell() < target:
        body = " ".join(words[(i * 7 + k) % 4096] for k in range(9000)).encode()
        z.writestr(names[i % 4].format(i), body)
        i += 1
PY
size=$(stat -c %s "$WORK/upload.zip")
printf '[limits]\nmax_body_bytes = %d\nmax_buffered_bytes = %d\nrequest_timeout_seconds = 600.0\n' \
    $((size + (1 << 20))) $(((size + (1 << 20)) * 3)) > "$WORK/zip.toml"
env -u UTF8GATE_LOG_LEVEL "$BIN" serve --config "$WORK/zip.toml" --api-addr 127.0.0.1:18395 \
    --admin-addr 127.0.0.1:18396 2>/dev/null &
PID=$!
for _ in $(seq 1 50); do curl -s -o /dev/null --max-time 1 http://127.0.0.1:18396/healthz && break; sleep 0.1; done
sleep 0.5
idle_kib=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
t0=$(date +%s.%N)
verdict=$(curl -sS --max-time 600 -X POST -T "$WORK/upload.zip" -H 'Content-Type: application/zip' \
    -H 'Expect:' http://127.0.0.1:18395/v1/scan)
t1=$(date +%s.%N)
peak_kib=$(awk '/^VmHWM/ {print $2}' "/proc/$PID/status")
grep -q '"decision":"allow"' <<<"$verdict" || { echo "unexpected verdict: ${verdict:0:300}"; exit 1; }
entries=$(python3 -c "import zipfile,sys; print(len(zipfile.ZipFile(sys.argv[1]).namelist()))" "$WORK/upload.zip")
printf '| %d MiB ZIP (%d entries) to /v1/scan | %.2f GB/s | %.0f ms | idle RSS %d MiB, peak %d MiB (+%d MiB) | %s |\n' \
    $((size >> 20)) "$entries" "$(echo "$size / ($t1 - $t0) / 1000000000" | bc -l)" \
    "$(echo "($t1 - $t0) * 1000" | bc -l)" $((idle_kib / 1024)) $((peak_kib / 1024)) \
    $(((peak_kib - idle_kib) / 1024)) "$(grep -o '"bytes_inspected":[0-9]*' <<<"$verdict" || true)"
