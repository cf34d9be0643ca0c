#!/usr/bin/env bash
# User-space instructions per request that the tower layer adds to an axum app (callgrind),
# next to what the sidecar adds to a plain hyper proxy: the same method as bench/callgrind.sh
# (one thread, sequential keep-alive requests from one client, the count for 2200 requests
# minus the count for 200, divided by 2000; a small GET and a 16 KiB multilingual JSON POST).
#
#   app + layer   crates/tower/examples/bench_app.rs        (axum, utf8gate's layer, "ok")
#   app alone     the same with --bare
#
# The layer's cost is their difference; bench/callgrind.sh gives the sidecar's (utf8gate minus
# examples/floor_proxy). usage: bench/tower-callgrind.sh. Needs valgrind and python3.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
(cd "$ROOT" && cargo build --release -q -p utf8gate-tower --example bench_app)
APP="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/bench_app"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
instructions() { # MODE KIND N
  local out="$WORK/cg.out"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$APP" 127.0.0.1:18191 $1 >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 300); do
    curl -s -o /dev/null --max-time 1 http://127.0.0.1:18191/ && break; sleep 0.2
  done
  python3 "$ROOT/bench/callgrind/client.py" 18191 "$3" "$2"
  kill -INT $pid; wait $pid 2>/dev/null || true
  callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !seen {gsub(",", "", $1); print $1; seen=1}'
}
printf '%-16s %12s %12s\n' app "GET" "16KiB JSON"
declare -A PER
for mode in --bare layer; do
  row=()
  for kind in get json; do
    flag=$([ "$mode" = --bare ] && echo --bare || true)
    small=$(instructions "$flag" "$kind" 200); large=$(instructions "$flag" "$kind" 2200)
    PER[$mode.$kind]=$(( (large - small) / 2000 ))
    row+=("${PER[$mode.$kind]}")
  done
  printf '%-16s %12s %12s\n' "$([ "$mode" = --bare ] && echo "app alone" || echo "app + layer")" "${row[0]}" "${row[1]}"
done
printf '%-16s %12s %12s\n' "the layer adds" "$(( PER[layer.get] - PER[--bare.get] ))" "$(( PER[layer.json] - PER[--bare.json] ))"
