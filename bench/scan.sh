#!/usr/bin/env bash
# 1 GiB of valid multilingual UTF-8 streamed to /v1/scan (chunked, text/plain): throughput and
# the server's peak RSS above idle. Baseline in the same run: the same generator into `wc -c`
# (what the client side alone can push through a pipe on this machine).
#
# usage: bench/scan.sh        (GIB=1 by default; needs curl and a release build)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
GIB="${GIB:-1}"
BIN="$ROOT/target/release/utf8gate"
[ -x "$BIN" ] || (cd "$ROOT" && cargo build --release -p utf8gate-server -q)
WORK="$(mktemp -d)"
trap 'kill "${PID:-0}" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# One MiB of valid NFC text in several scripts, cut at a character boundary.
python3 - "$WORK/mib" <<'EOF'
import sys
unit = "Grüße aus Köln. こんにちは世界。 Καλή μέρα. Привет, мир! 🦀✓ नमस्ते 안녕하세요\n".encode()
out = (unit * (2**20 // len(unit) + 1))[: 2**20]
while True:
    try:
        out.decode("utf-8")
        break
    except UnicodeDecodeError:
        out = out[:-1]
out += b" " * (2**20 - len(out))
open(sys.argv[1], "wb").write(out)
EOF
gen() {
    python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); w = sys.stdout.buffer.write
for _ in range(int(sys.argv[2]) * 1024): w(b)' "$WORK/mib" "$GIB"
}

cat > "$WORK/scan.toml" <<EOF
[limits]
max_scan_bytes = $((GIB << 30))
request_timeout_seconds = 600.0
EOF
env -u UTF8GATE_LOG_LEVEL "$BIN" serve --config "$WORK/scan.toml" --api-addr 127.0.0.1:18385 \
    --admin-addr 127.0.0.1:18386 2>/dev/null &
PID=$!
for _ in $(seq 1 50); do curl -s -o /dev/null --max-time 1 http://127.0.0.1:18386/healthz && break; sleep 0.1; done
sleep 0.5
idle_kib=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")

t0=$(date +%s.%N); gen | wc -c >/dev/null; t1=$(date +%s.%N)
pipe=$(echo "$GIB * 1073741824 / ($t1 - $t0) / 1000000000" | bc -l)

t0=$(date +%s.%N)
verdict=$(gen | curl -sS --max-time 600 -X POST -T - -H 'Content-Type: text/plain; charset=utf-8' \
    -H 'Expect:' http://127.0.0.1:18385/v1/scan)
t1=$(date +%s.%N)
scan=$(echo "$GIB * 1073741824 / ($t1 - $t0) / 1000000000" | bc -l)
peak_kib=$(awk '/^VmHWM/ {print $2}' "/proc/$PID/status")
grep -q '"decision":"allow"' <<<"$verdict" || { echo "unexpected verdict: ${verdict:0:300}"; exit 1; }
inspected=$(grep -o '"bytes_inspected":[0-9]*' <<<"$verdict" || true)

printf '| %s GiB to /v1/scan | %.2f GB/s | pipe baseline %.2f GB/s | %.2f× pipe | idle RSS %d MiB, peak %d MiB (+%d MiB) | %s |\n' \
    "$GIB" "$scan" "$pipe" "$(echo "$scan / $pipe" | bc -l)" $((idle_kib / 1024)) $((peak_kib / 1024)) \
    $(((peak_kib - idle_kib) / 1024)) "${inspected:-}"
