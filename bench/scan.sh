#!/usr/bin/env bash
# 1 GiB of valid multilingual UTF-8 uploaded to /v1/scan (curl -T from a file in the page cache,
# text/plain): throughput and the server's peak RSS above idle. Baseline in the same run: the
# same upload to nginx answering `return 200`, which reads the body and discards it (what the
# loopback and curl alone cost on this machine).
#
# usage: bench/scan.sh        (GIB=1 by default; needs curl, nginx and a release build)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
GIB="${GIB:-1}"
BIN="$ROOT/target/release/utf8gate"
[ -x "$BIN" ] || (cd "$ROOT" && cargo build --release -p utf8gate-server -q)
WORK="$(mktemp -d)"
. "$ROOT/bench/stop.sh"
cleanup() {
    stop_pids "${PID:-}"
    nginx -s stop -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# GIB GiB of valid NFC text in several scripts (1 MiB units cut at a character boundary).
python3 - "$WORK/upload" "$GIB" <<'EOF'
import sys
unit = "Grüße aus Köln. こんにちは世界。 Καλή μέρα. Привет, мир! 🦀✓ नमस्ते 안녕하세요\n".encode()
mib = (unit * (2**20 // len(unit) + 1))[: 2**20]
while True:
    try:
        mib.decode("utf-8")
        break
    except UnicodeDecodeError:
        mib = mib[:-1]
mib += b" " * (2**20 - len(mib))
with open(sys.argv[1], "wb") as f:
    for _ in range(int(sys.argv[2]) * 1024):
        f.write(mib)
EOF

mkdir -p "$WORK/nginx"
cat > "$WORK/nginx/nginx.conf" <<EOF
worker_processes 1; daemon on; pid $WORK/nginx/nginx.pid; error_log $WORK/nginx/error.log warn;
events { worker_connections 64; }
http {
  access_log off; client_body_temp_path $WORK/nginx/body; proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/f; uwsgi_temp_path $WORK/nginx/u; scgi_temp_path $WORK/nginx/s;
  server { listen 127.0.0.1:18387; client_max_body_size 0; location / { return 200 "discarded"; } }
}
EOF
nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx"

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

upload() {
    curl -sS --max-time 600 -X POST -T "$WORK/upload" -H 'Content-Type: text/plain; charset=utf-8' \
        -H 'Expect:' "$1"
}
rate() { echo "$GIB * 1073741824 / ($2 - $1) / 1000000000" | bc -l; }

t0=$(date +%s.%N); upload http://127.0.0.1:18387/ >/dev/null; t1=$(date +%s.%N)
base=$(rate "$t0" "$t1")
t0=$(date +%s.%N); verdict=$(upload http://127.0.0.1:18385/v1/scan); t1=$(date +%s.%N)
scan=$(rate "$t0" "$t1")
peak_kib=$(awk '/^VmHWM/ {print $2}' "/proc/$PID/status")
grep -q '"decision":"allow"' <<<"$verdict" || { echo "unexpected verdict: ${verdict:0:300}"; exit 1; }
inspected=$(grep -o '"bytes_inspected":[0-9]*' <<<"$verdict" || true)

# The same text gzip-coded (Content-Encoding: gzip): decoded as it streams in, the checks read
# the decoded text. Throughput in decoded bytes per second; baseline: GNU gzip inflating the
# same file to /dev/null on one core (what inflating alone costs). The peak RSS is reset first.
gzip -1 -c "$WORK/upload" > "$WORK/upload.gz"
echo 5 > "/proc/$PID/clear_refs" 2>/dev/null || true
gz_idle_kib=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
t0=$(date +%s.%N); gzip -dc "$WORK/upload.gz" >/dev/null; t1=$(date +%s.%N)
gz_base=$(rate "$t0" "$t1")
t0=$(date +%s.%N)
gz_verdict=$(curl -sS --max-time 600 -X POST -T "$WORK/upload.gz" -H 'Content-Type: text/plain; charset=utf-8' \
    -H 'Content-Encoding: gzip' -H 'Expect:' http://127.0.0.1:18385/v1/scan)
t1=$(date +%s.%N)
gz_scan=$(rate "$t0" "$t1")
gz_peak_kib=$(awk '/^VmHWM/ {print $2}' "/proc/$PID/status")
grep -q '"decision":"allow"' <<<"$gz_verdict" || { echo "unexpected gzip verdict: ${gz_verdict:0:300}"; exit 1; }
gz_inspected=$(grep -o '"bytes_inspected":[0-9]*' <<<"$gz_verdict" || true)

printf '| %s GiB to /v1/scan | %.2f GB/s | nginx discarding: %.2f GB/s | %.2f× nginx | idle RSS %d MiB, peak %d MiB (+%d MiB) | %s |\n' \
    "$GIB" "$scan" "$base" "$(echo "$scan / $base" | bc -l)" $((idle_kib / 1024)) $((peak_kib / 1024)) \
    $(((peak_kib - idle_kib) / 1024)) "${inspected:-}"
printf '| %s GiB gzip-coded (%d MiB) to /v1/scan | %.2f GB/s decoded | gzip -dc: %.2f GB/s | %.2f× gzip -dc | RSS before %d MiB, peak %d MiB (+%d MiB) | %s |\n' \
    "$GIB" $(($(stat -c %s "$WORK/upload.gz") >> 20)) "$gz_scan" "$gz_base" "$(echo "$gz_scan / $gz_base" | bc -l)" \
    $((gz_idle_kib / 1024)) $((gz_peak_kib / 1024)) $(((gz_peak_kib - gz_idle_kib) / 1024)) "${gz_inspected:-}"

# A 256 MiB ZIP of text files, read for its entry names (its own server: the body is buffered).
"$ROOT/bench/scan_zip.sh"
