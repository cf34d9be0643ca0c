#!/usr/bin/env bash
# Issue 23: hostile requests against their clean twins (same type, size and shape) through
# utf8gate's proxy and /v1/scan, 1 at a time and 4 at a time. The cases are the ones of
# crates/policy/benches/support/hostile.rs, written out by `examples/hostile.rs write`.
# Per case and mode: wall time per request (every rep, median), hostile / clean (medians of the
# same run), and the gateway's peak RSS above its idle RSS (VmHWM in /proc/PID/status). The
# gateway is restarted for each case and mode, and runs the clean twin first; VmHWM is reset
# through /proc/PID/clear_refs before the hostile side, whose peak is therefore over what the
# gateway kept from the clean side (a few MiB).
# The upstream is a Python server on loopback that reads each body and answers 200; a
# rejected request never reaches it. Everything listens on 127.0.0.1 only.
#
# usage: bench/hostile.sh                        every case at 8 MiB (`hostile list` names them)
#   CASES="text-nul json-nul-escapes"            only these cases
#   SIZE=8388608 REPS=3                          body size; reps per side and mode (medians)
#   TIMEOUT=60                                   seconds per request (curl --max-time); a
#                                                request that takes longer is a timeout
#   BUDGET=60                                    seconds per case: no rep or mode starts after
#                                                it (reported as skipped), and after a timeout
#                                                the rest of the case is skipped
#   MODES="proxy:1 scan:1 proxy:4 scan:4"       where to send (proxy or scan) and how many at once
#   MEM_CAP_MIB=12288                            the gateway's address space (ulimit -v): a
#                                                shared machine is not swapped to death; a
#                                                gateway that dies is reported as such
# Progress and every rep go to stderr, the Markdown table to stdout. Builds with cargo into
# $CARGO_TARGET_DIR (default target/). Before issue 23's fix every case takes 23 to 55 min (the
# slow cases end at their budget, a timeout or a death); a quick look at the worst ones:
#   CASES="text-json-continuation form-bare-percent text-bom-controls multipart-repeated-headers
#          gzip-continuation head-query" MODES="proxy:1 proxy:4" REPS=1 TIMEOUT=20
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
SIZE="${SIZE:-8388608}"; REPS="${REPS:-3}"; TIMEOUT="${TIMEOUT:-60}"; BUDGET="${BUDGET:-60}"
MEM_CAP_MIB="${MEM_CAP_MIB:-12288}"; MODES="${MODES:-proxy:1 scan:1 proxy:4 scan:4}"
(cd "$ROOT" && cargo build --release -q -p utf8gate-server --bin utf8gate \
    && cargo build --release -q -p utf8gate-policy --example hostile)
BIN="$TARGET_DIR/release/utf8gate"
WORK="$(mktemp -d)"
# Stops one process this script started, by its id (never `kill 0`: that is the process group).
stop() { [ -z "${1:-}" ] || kill -KILL "$1" 2>/dev/null || true; }
cleanup() { stop "${SAMPLER:-}"; stop "${PID:-}"; stop "${UP_PID:-}"; rm -rf "$WORK"; }
trap cleanup EXIT
"$TARGET_DIR/release/examples/hostile" write "$WORK/cases" "$SIZE"
CASES="${CASES:-$("$TARGET_DIR/release/examples/hostile" list | cut -f1 | tr '\n' ' ')}"

UP=127.0.0.1:18481; PROXY=127.0.0.1:18484; API=127.0.0.1:18485; ADMIN=127.0.0.1:18486
cat > "$WORK/upstream.py" <<'EOF'
import http.server, socketserver, sys
class Discard(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The head and the body are two writes: without this, Nagle and the peer's delayed ACK
    # hold the second one for 40 ms.
    disable_nagle_algorithm = True
    def do_POST(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                self.rfile.read(size + 2)
        else:
            left = int(self.headers.get("Content-Length") or 0)
            while left > 0:
                chunk = self.rfile.read(min(left, 1 << 20))
                if not chunk:
                    break
                left -= len(chunk)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
    do_GET = do_PUT = do_POST
    def log_message(self, *args):
        pass
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
host, port = sys.argv[1].split(":")
Server((host, int(port)), Discard).serve_forever()
EOF
python3 "$WORK/upstream.py" "$UP" &
UP_PID=$!

rss() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$PID/status" 2>/dev/null || echo 0; }
start_gateway() {  # $1: case directory
    local profile files=""
    profile=$(cat "$1/profile")
    [ ! -f "$1/profile.toml" ] || files="profile_files = [\"$1/profile.toml\"]"
    printf '[policy]\nprofile = "%s"\n%s\n[limits]\nrequest_timeout_seconds = %s\n' \
        "$profile" "$files" "$((TIMEOUT + 30))" > "$WORK/gateway.toml"
    (ulimit -v $((MEM_CAP_MIB * 1024)); exec env -u UTF8GATE_LOG_LEVEL "$BIN" serve \
        --config "$WORK/gateway.toml" --upstream "http://$UP" --proxy-addr "$PROXY" \
        --api-addr "$API" --admin-addr "$ADMIN" 2>/dev/null) &
    PID=$!
    for _ in $(seq 1 100); do curl -s -o /dev/null --max-time 1 "http://$ADMIN/healthz" && break; sleep 0.1; done
    sleep 0.3
    IDLE_KIB=$(rss VmRSS)
}
# SIGKILL: a graceful stop would wait for an evaluation still burning after a timeout.
stop_gateway() { stop "$PID"; wait "$PID" 2>/dev/null || true; PID=""; }

# send DIR SIDE MODE N: N requests at once; prints "status seconds" per request.
send() {
    local dir=$1 side=$2 mode=$3 n=$4 url ct ce pids=() i
    ct=$(cat "$dir/content-type"); ce=$(cat "$dir/content-encoding")
    local args=(-sS -o /dev/null -w '%{http_code} %{time_total}\n' --max-time "$TIMEOUT"
                --path-as-is -X POST --data-binary "@$dir/$side.body" -H 'Expect:'
                -H "@$dir/$side.headers")
    [ -z "$ct" ] || args+=(-H "Content-Type: $ct")
    [ -z "$ce" ] || args+=(-H "Content-Encoding: $ce")
    case $mode in
        proxy) url="http://$PROXY$(cat "$dir/$side.target")" ;;
        scan) url="http://$API/v1/scan" ;;
    esac
    for i in $(seq 1 "$n"); do
        curl "${args[@]}" "$url" > "$WORK/out.$i" 2>/dev/null &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || true; done
    for i in $(seq 1 "$n"); do cat "$WORK/out.$i"; done
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else printf "%.3f\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# The highest VmHWM seen while the gateway lives, every 0.1 s, into $WORK/peak: the peak of a
# gateway that dies is the last one seen.
sample_peak() {
    local peak=0 v
    while kill -0 "$PID" 2>/dev/null; do
        v=$(rss VmHWM); v=${v:-0}
        if (( v > peak )); then peak=$v; echo "$peak" > "$WORK/peak"; fi
        sleep 0.1
    done
}

echo "| case | through | clean s/request (reps) | hostile s/request (reps) | hostile / clean | clean peak RSS − idle | hostile peak RSS − idle | hostile answers |"
echo "|---|---|---|---|---|---|---|---|"
for name in $CASES; do
    dir="$WORK/cases/$name"
    [ -d "$dir" ] || { echo "unknown case $name" >&2; exit 1; }
    started=$(date +%s)
    stop_case=""
    modes=$MODES
    [ -s "$dir/hostile.body" ] || modes=$(tr ' ' '\n' <<<"$MODES" | grep proxy | tr '\n' ' ')  # heads: /v1/scan reads bodies only
    for m in $modes; do
        mode=${m%%:*}; n=${m##*:}
        if [ -n "$stop_case" ] || (( $(date +%s) - started > BUDGET )); then
            printf '| %s | %s ×%s | | skipped: %s | | | | |\n' "$name" "$mode" "$n" "${stop_case:-budget}"
            continue
        fi
        declare -A T=([clean]="" [hostile]="") PEAK=() CODES=()
        start_gateway "$dir"
        for side in clean hostile; do
            echo 5 > "/proc/$PID/clear_refs" 2>/dev/null || true
            echo 0 > "$WORK/peak"
            sample_peak &
            SAMPLER=$!
            for rep in $(seq 1 "$REPS"); do
                (( rep == 1 )) || (( $(date +%s) - started <= BUDGET )) || break
                out=$(send "$dir" "$side" "$mode" "$n")
                echo "$name $mode×$n $side rep $rep: $(tr '\n' ' ' <<<"$out")" >&2
                CODES[$side]="${CODES[$side]:-} $(awk '{print $1}' <<<"$out" | tr '\n' ' ')"
                T[$side]="${T[$side]} $(awk '{print $2}' <<<"$out" | median)"
                if ! kill -0 "$PID" 2>/dev/null; then stop_case="gateway died"; break; fi
                if grep -q '^000 ' <<<"$out"; then stop_case="timeout (> ${TIMEOUT} s)"; break; fi
            done
            stop "$SAMPLER"; wait "$SAMPLER" 2>/dev/null || true
            peak=$(cat "$WORK/peak"); now=$(rss VmHWM); (( ${now:-0} <= peak )) || peak=$now
            PEAK[$side]=$(( (peak - IDLE_KIB) / 1024 ))
            [ -z "$stop_case" ] || PEAK[$side]="≥ ${PEAK[$side]}"
            [ -z "$stop_case" ] || break
        done
        echo "  ($name $mode×$n: idle RSS $((IDLE_KIB / 1024)) MiB)" >&2
        stop_gateway
        c=$(median <<<"${T[clean]}"); h=$(median <<<"${T[hostile]}")
        ratio=$(awk -v h="$h" -v c="$c" 'BEGIN {if (h == "-" || c == "-" || c == 0) print "-"; else printf "%.0f×", h / c}')
        answers=$(tr ' ' '\n' <<<"${CODES[hostile]:-}" | grep -v '^$' | sort | uniq -c | awk '{printf "%s%s×%s", (NR>1?", ":""), $2, $1}')
        if [ -n "$stop_case" ]; then
            answers="$answers; $stop_case"
            [[ $stop_case != timeout* ]] || { h=">$h"; ratio=">$ratio"; }
        fi
        printf '| %s | %s ×%s | %s (%s) | %s (%s) | %s | %s MiB | %s MiB | %s |\n' "$name" "$mode" "$n" \
            "$c" "${T[clean]# }" "$h" "${T[hostile]# }" "$ratio" "${PEAK[clean]:--}" "${PEAK[hostile]:--}" "$answers"
        unset T PEAK CODES
    done
    echo "  ($name: $(( $(date +%s) - started )) s)" >&2
done
