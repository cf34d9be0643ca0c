#!/usr/bin/env bash
# User-space instructions per proxied request (callgrind), which the noise of a shared machine
# does not move: one proxy thread, sequential keep-alive requests from one client to a loopback
# upstream, the count for 2200 requests minus the count for 200 (start-up and table building
# cancel out), divided by 2000. Workloads: a small GET and a 16 KiB multilingual JSON POST.
#
# usage: bench/callgrind.sh [BINARY...]   (default: target/release/utf8gate; give an older
#        build too to compare in the same run; target/release/examples/floor_proxy, the same
#        hyper stack without utf8gate, is run with its own arguments: utf8gate minus the floor
#        is what utf8gate adds). LOG=info writes the audit lines (as a
#        default deployment does); the default, LOG=error, leaves them out. TLS=1 serves the
#        proxy listener over TLS (a throwaway ECDSA P-256 certificate made with openssl) and the
#        client speaks TLS 1.3 on its one connection: the difference from a run without is TLS's
#        own cost per request. KEEP=DIR keeps each profile (BINARY.KIND.N.out) and its inclusive
#        annotation (.inc) for bench/callgrind/stages.py. Needs valgrind and python3 (and openssl with TLS=1).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HERE="$ROOT/bench/callgrind"
BINS=("$@"); [ ${#BINS[@]} -gt 0 ] || BINS=("$ROOT/target/release/utf8gate")
WORK="$(mktemp -d)"
python3 "$HERE/upstream.py" 18181 & UP=$!
. "$ROOT/bench/stop.sh"
trap 'stop_pids "$UP"; rm -rf "$WORK"' EXIT
TLS_ARGS=()
if [ "${TLS:-}" = 1 ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
  printf '[tls]\nlisteners = ["proxy"]\ncert = "%s"\nkey = "%s"\nwatch_seconds = 0.0\n' \
    "$WORK/cert.pem" "$WORK/key.pem" >"$WORK/tls.toml"
  TLS_ARGS=(--config "$WORK/tls.toml")
fi
instructions() { # BIN KIND N
  local out="$WORK/cg.out"
  if [ "$(basename "$1")" = floor_proxy ]; then
    valgrind --tool=callgrind --callgrind-out-file="$out" "$1" 127.0.0.1:18184 http://127.0.0.1:18181 1 \
      >/dev/null 2>&1 &
  else
    UTF8GATE_LOG_LEVEL="${LOG:-error}" UTF8GATE_LISTEN_PROXY_THREADS=1 valgrind --tool=callgrind \
      --callgrind-out-file="$out" "$1" serve --upstream http://127.0.0.1:18181 \
      --proxy-addr 127.0.0.1:18184 --api-addr 127.0.0.1:18185 --admin-addr 127.0.0.1:18186 \
      "${TLS_ARGS[@]}" >/dev/null 2>&1 &
  fi
  local pid=$!
  for _ in $(seq 1 300); do
    (exec 3<>/dev/tcp/127.0.0.1/18184) 2>/dev/null && break; sleep 0.2
  done
  python3 "$HERE/client.py" 18184 "$3" "$2"
  # An asynchronous child of a script ignores SIGINT unless it installs a handler (utf8gate
  # does, the floor does not): the floor is stopped with SIGTERM, and valgrind still writes
  # its profile.
  if [ "$(basename "$1")" = floor_proxy ]; then kill -TERM $pid; else kill -INT $pid; fi
  wait $pid 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP"
    callgrind_annotate --inclusive=yes --threshold=100 "$out" >"$KEEP/$(basename "$1").$2.$3.inc" 2>/dev/null
    cp "$out" "$KEEP/$(basename "$1").$2.$3.out"
  fi
  callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !seen {gsub(",", "", $1); print $1; seen=1}'
}
# REPS=N (default 1) measures each binary N times, the binaries alternating within a rep: the
# count moves by a few hundred instructions from run to run (how often the runtime parks
# between a request and its upstream's answer), so compare medians.
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
declare -A GOT
for rep in $(seq 1 "${REPS:-1}"); do
  for bin in "${BINS[@]}"; do
    for kind in get json; do
      small=$(instructions "$bin" "$kind" 200); large=$(instructions "$bin" "$kind" 2200)
      GOT[$bin.$kind]+="$(( (large - small) / 2000 )) "
    done
  done
done
printf '%-50s %12s %12s   %s\n' binary "GET" "16KiB JSON" "(median; every rep: GET | JSON)"
for bin in "${BINS[@]}"; do
  g=$(tr ' ' '\n' <<<"${GOT[$bin.get]}" | grep . | median)
  j=$(tr ' ' '\n' <<<"${GOT[$bin.json]}" | grep . | median)
  printf '%-50s %12s %12s   %s| %s\n' "$bin" "$g" "$j" "${GOT[$bin.get]}" "${GOT[$bin.json]}"
done
