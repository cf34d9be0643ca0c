#!/usr/bin/env bash
# Throughput and latency of utf8gate's proxy side by side with plain nginx proxy_pass, both in
# front of the same loopback upstream from the peer harness (../shared/peers/modsec/), measured
# with wrk in the same run, alternating. Prints ratios for docs/BENCHMARKS.md.
# Also runs the floor: crates/server/examples/floor_proxy.rs, a bare forwarder on the same HTTP
# stack and threading as utf8gate's proxy without anything of utf8gate, to tell the stack's
# share of the gap to nginx from utf8gate's own.
#
# HTTP/2: h2load (nghttp2-client) -n 100000 -c 32 -m 10 against utf8gate's proxy over h2c and
# against nginx with an h2c listener (`listen ... http2`) proxying to the same upstream over
# HTTP/1.1 keep-alive, as utf8gate does by default: the same protocols on both sides, so the
# two are comparable. utf8gate over HTTP/1.1 (h2load --h1) shows h2's own share.
#
# TLS (bench/proxy-tls.sh, sourced after the h2 rows): utf8gate's proxy listener over TLS against
# nginx over TLS, same certificate and cipher, same upstream: full handshakes per second and
# keep-alive requests per second.
#
# usage: bench/proxy.sh            (DUR=10s REPS=2 by default; needs root for apt)
#        ONLY=tls bench/proxy.sh   the TLS rows alone, against target/release/utf8gate as it is
#        (no cargo build: build it first).
#        BASELINE=/path/to/older/utf8gate bench/proxy.sh   also measures an older build of
#        utf8gate in the same run, alternating, and prints utf8gate / baseline per rep.
# The harness is read-only in shared/, so it is copied to a temporary folder and run from there;
# nothing of it is part of the product.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DUR="${DUR:-10s}"; REPS="${REPS:-2}"; ONLY="${ONLY:-}"
case "$ONLY" in ""|tls) ;; *) echo "ONLY: tls or nothing" >&2; exit 2;; esac
WORK="$(mktemp -d)"
# Everything the run started stops when it ends, however it ends: the peer harness's nginx
# instances and upstream (by the PID files in the run folder start.sh was given), the h2c
# nginx, utf8gate, the floor and the baseline, and the TLS rows' nginx and utf8gate.
. "$ROOT/bench/stop.sh"
cleanup() {
  stop_pids "${UG_PID:-}" "${FLOOR_PID:-}" "${BASE_PID:-}" "${TLS_UG_PID:-}" "${PLAIN_UG_PID:-}"
  [ -z "${NGINX_BIN:-}" ] || "$NGINX_BIN" -s stop -c "$WORK/h2nginx/nginx.conf" -p "$WORK/h2nginx" 2>/dev/null || true
  [ -z "${TLS_NGINX:-}" ] || "$TLS_NGINX" -s stop -c "$WORK/tls/nginx/nginx.conf" -p "$WORK/tls/nginx" 2>/dev/null || true
  (cd "$WORK/modsec" && PEER_RUN_DIR="$WORK/run" ./stop.sh >/dev/null 2>&1) || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# wrk's latencies (790.00us, 2.95ms, 1.02s) in milliseconds.
to_ms() { awk '{v=$1+0; if ($1 ~ /us$/) v/=1000; else if ($1 ~ /[0-9]s$/ && $1 !~ /ms$/) v*=1000; printf "%.2f", v}'; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
cp -r "$ROOT/../shared/peers/modsec" "$WORK/modsec"; chmod -R u+w "$WORK/modsec"
cd "$WORK/modsec"
./install.sh >/dev/null
python3 make_bodies.py >/dev/null
PEER_RUN_DIR="$WORK/run" ./start.sh --pl 1 --allow-text-plain >/dev/null
if [ "$ONLY" = tls ]; then . "$ROOT/bench/proxy-tls.sh"; exit 0; fi
(cd "$ROOT" && cargo build --release -q -p utf8gate-server --bin utf8gate --example floor_proxy)
THREADS=$(nproc)
# Each server in a session of its own, as nginx is (it daemonizes): the kernel's autogroup
# scheduler shares the CPU between sessions first, so a server started in wrk's session would
# share wrk's share, and its p99 would show wrk's load (docs/BENCHMARKS.md, "The p99 tail").
setsid "$ROOT/target/release/examples/floor_proxy" 127.0.0.1:18074 http://127.0.0.1:18081 "$THREADS" &
FLOOR_PID=$!
setsid env -u UTF8GATE_LOG_LEVEL "$ROOT/target/release/utf8gate" serve --upstream http://127.0.0.1:18081 \
    --proxy-addr 127.0.0.1:18084 --api-addr 127.0.0.1:18085 --admin-addr 127.0.0.1:18086 2>/dev/null &
UG_PID=$!
TARGETS=(nginx floor utf8gate)
if [ -n "${BASELINE:-}" ]; then
  setsid env -u UTF8GATE_LOG_LEVEL "$BASELINE" serve --upstream http://127.0.0.1:18081 \
      --proxy-addr 127.0.0.1:18094 --api-addr 127.0.0.1:18095 --admin-addr 127.0.0.1:18096 2>/dev/null &
  BASE_PID=$!
  TARGETS+=(baseline)
  for _ in $(seq 1 50); do curl -s -o /dev/null --max-time 1 http://127.0.0.1:18096/healthz && break; sleep 0.1; done
fi
for _ in $(seq 1 50); do curl -s -o /dev/null --max-time 1 http://127.0.0.1:18086/healthz && break; sleep 0.1; done

declare -A PORT=([nginx]=18080 [floor]=18074 [utf8gate]=18084 [baseline]=18094)
WORKLOADS=("get|get.lua||" "json16k|post.lua|payloads/json_16k.json|application/json"
           "json1m|post.lua|payloads/json_1m.json|application/json")
declare -A RPS P50 P99
for rep in $(seq 1 "$REPS"); do
  for w in "${WORKLOADS[@]}"; do
    IFS='|' read -r name script body ct <<<"$w"
    for t in "${TARGETS[@]}"; do
      out=$(BODY_FILE="$PWD/$body" CT="$ct" timeout 60 wrk -t2 -c32 -d"$DUR" --timeout 10s --latency \
            -s "$PWD/$script" "http://127.0.0.1:${PORT[$t]}/" 2>&1 || true)
      non2xx=$(grep -E 'Non-2xx' <<<"$out" | awk '{print $NF}' || true)
      [ -z "$non2xx" ] || { echo "$name $t: $non2xx non-2xx responses" >&2; exit 1; }
      rps=$(grep -E 'Requests/sec' <<<"$out" | awk '{print $2}')
      RPS[$name.$t]="${RPS[$name.$t]:-} $rps"
      p50=$(grep -E '^ +50%' <<<"$out" | awk '{print $2}'); p99=$(grep -E '^ +99%' <<<"$out" | awk '{print $2}')
      echo "rep $rep $name $t: $rps req/s, p50 $p50, p99 $p99" >&2
      P50[$name.$t]="${P50[$name.$t]:-} $(to_ms <<<"$p50")"
      P99[$name.$t]="${P99[$name.$t]:-} $(to_ms <<<"$p99")"
      sleep 2
    done
  done
done
echo "| workload | nginx req/s | floor req/s | utf8gate req/s | floor / nginx | utf8gate / nginx | utf8gate / floor | nginx p50 / p99 (medians) | floor p50 / p99 | utf8gate p50 / p99 |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for w in "${WORKLOADS[@]}"; do
  name=${w%%|*}
  n=$(median <<<"${RPS[$name.nginx]}"); f=$(median <<<"${RPS[$name.floor]}"); u=$(median <<<"${RPS[$name.utf8gate]}")
  printf '| %s | %s | %s | %s | %.2f× | %.2f× | %.2f× | %s / %s | %s / %s | %s / %s |\n' "$name" "$n" "$f" "$u" \
    "$(echo "$f / $n" | bc -l)" "$(echo "$u / $n" | bc -l)" "$(echo "$u / $f" | bc -l)" \
    "$(median <<<"${P50[$name.nginx]}")ms" "$(median <<<"${P99[$name.nginx]}")ms" \
    "$(median <<<"${P50[$name.floor]}")ms" "$(median <<<"${P99[$name.floor]}")ms" \
    "$(median <<<"${P50[$name.utf8gate]}")ms" "$(median <<<"${P99[$name.utf8gate]}")ms"
done
# HTTP/2 (h2c, prior knowledge): a second nginx with an h2c listener in front of the same upstream.
command -v h2load >/dev/null || apt-get install -y -q --no-install-recommends nghttp2-client >/dev/null
mkdir -p "$WORK/h2nginx/logs"
cat >"$WORK/h2nginx/nginx.conf" <<EOF
worker_processes $THREADS;
pid $WORK/h2nginx/nginx.pid;
error_log $WORK/h2nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $WORK/h2nginx/body; proxy_temp_path $WORK/h2nginx/proxy;
    fastcgi_temp_path $WORK/h2nginx/f; uwsgi_temp_path $WORK/h2nginx/u; scgi_temp_path $WORK/h2nginx/s;
    upstream app { server 127.0.0.1:18081; keepalive 64; }
    server {
        listen 127.0.0.1:18079 http2;
        http2_max_concurrent_streams 100;
        keepalive_requests 1000000;
        location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
EOF
NGINX_BIN=$(command -v nginx || echo /usr/sbin/nginx)  # the EXIT trap stops it from here on
"$NGINX_BIN" -c "$WORK/h2nginx/nginx.conf" -p "$WORK/h2nginx"
H2ROWS=("nginx-h2c|http://127.0.0.1:18079/|" "utf8gate-h2c|http://127.0.0.1:18084/|" "utf8gate-h1|http://127.0.0.1:18084/|--h1")
declare -A H2RPS
for rep in $(seq 1 "$REPS"); do
  for r in "${H2ROWS[@]}"; do
    IFS='|' read -r name url flag <<<"$r"
    out=$(timeout 120 h2load $flag -n 100000 -c 32 -m 10 "$url" 2>&1 || true)
    grep -qE 'requests: 100000 total, 100000 started, 100000 done, 100000 succeeded' <<<"$out" \
      || { echo "h2 $name: not every request succeeded: $(grep -E '^requests:' <<<"$out")" >&2; exit 1; }
    rps=$(grep -E '^finished in' <<<"$out" | awk '{print $4}')
    H2RPS[$name]="${H2RPS[$name]:-} $rps"
    echo "rep $rep h2 $name: $rps req/s" >&2
    sleep 2
  done
done
"$NGINX_BIN" -s stop -c "$WORK/h2nginx/nginx.conf" -p "$WORK/h2nginx" || true
NGINX_BIN=
echo
echo "| h2load -n 100000 -c 32 -m 10, GET | nginx h2c req/s | utf8gate h2c req/s | utf8gate h1 req/s | utf8gate h2c / nginx h2c |"
echo "|---|---|---|---|---|"
n=$(median <<<"${H2RPS[nginx-h2c]}"); u=$(median <<<"${H2RPS[utf8gate-h2c]}"); h=$(median <<<"${H2RPS[utf8gate-h1]}")
printf '| get | %s | %s | %s | %.2f× |\n' "$n" "$u" "$h" "$(echo "$u / $n" | bc -l)"
. "$ROOT/bench/proxy-tls.sh"
if [ -n "${BASELINE:-}" ]; then
  echo
  echo "| workload | baseline req/s (reps) | utf8gate req/s (reps) | utf8gate / baseline (median) |"
  echo "|---|---|---|---|"
  for w in "${WORKLOADS[@]}"; do
    name=${w%%|*}
    b=$(median <<<"${RPS[$name.baseline]}"); u=$(median <<<"${RPS[$name.utf8gate]}")
    printf '| %s |%s |%s | %.3f× |\n' "$name" "${RPS[$name.baseline]}" "${RPS[$name.utf8gate]}" "$(echo "$u / $b" | bc -l)"
  done
fi
