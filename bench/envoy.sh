#!/usr/bin/env bash
# Requests per second through Envoy with and without utf8gate, measured with wrk in the same
# run, alternating: Envoy without the ext_authz filter (the shipped envoy.yaml with that filter
# taken out), Envoy with the shipped deploy/envoy/envoy.yaml (HTTP check on utf8gate's api
# listener), with deploy/envoy/envoy-grpc.yaml (gRPC check on its grpc_authz listener), with
# deploy/envoy/envoy-ext-proc.yaml (ext_proc, bodies BUFFERED) and with the same file streaming
# every route's bodies (STREAMED; a JSON body is switched to BUFFERED by utf8gate), and inside
# Envoy: deploy/envoy/envoy-wasm.yaml loading utf8gate's proxy-wasm filter, and the same file
# loading a filter that only reads one header (crates/proxy-wasm/examples/one_header.rs: the
# Wasm runtime's own cost). The shipped files run with their addresses replaced, as in
# tests/tests/e2e/fronts/envoy.rs. The application is nginx answering 200 from memory, so the
# figures are Envoy's and utf8gate's. Envoy is the pinned one (tests/fronts/setup-envoy.sh).
# The floor of the out-of-process ways: the gRPC check and ext_proc (buffered) served by
# crates/server/examples/null_processor.rs, which reads nothing and allows everything.
#
# usage: bench/envoy.sh            (DUR=10s REPS=3 CONNS=16 WORKERS=1 by default; WORKERS is
#                                   each Envoy's --concurrency; ONLY="T..." a subset of targets)
# Prints every rep and tables of medians for docs/BENCHMARKS.md: requests per second, and the
# CPU time of a request (Envoy's, the check's process's, and their sum: what a request costs
# the machine, whichever process spends it).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DUR="${DUR:-10s}"; REPS="${REPS:-3}"; CONNS="${CONNS:-16}"; WORKERS="${WORKERS:-1}"
command -v wrk >/dev/null || { echo "bench/envoy.sh needs wrk (apt-get install wrk)" >&2; exit 1; }
NGINX_BIN=$(command -v nginx || echo /usr/sbin/nginx)
ENVOY_BIN=${ENVOY_BIN:-$(bash "$ROOT/tests/fronts/setup-envoy.sh" | tail -n 1)}
(cd "$ROOT" && cargo build --release -q -p utf8gate-server --bin utf8gate --example null_processor)
UTF8GATE="${CARGO_TARGET_DIR:-$ROOT/target}/release/utf8gate"
NULL_PROCESSOR="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/null_processor"
(cd "$ROOT" && cargo build --profile wasm -q --target wasm32-wasip1 -p utf8gate-proxy-wasm --lib --example one_header)
WASM_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/wasm32-wasip1/wasm"

WORK="$(mktemp -d)"
PIDS=()
. "$ROOT/bench/stop.sh"
cleanup() {
  stop_pids "${PIDS[@]}"
  "$NGINX_BIN" -s stop -c "$WORK/nginx.conf" -p "$WORK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Ports: application 18401, utf8gate api 18402, admin 18403, gRPC check 18404, the null
# processor 18405; Envoy without the check 18410, with the HTTP check 18411, with the gRPC check
# 18412, with ext_proc buffered 18413 and streamed 18414, with the one-header Wasm filter 18415
# and utf8gate's 18416 (admin 18425, 18426), with the null gRPC check 18417 and the null
# ext_proc 18418.
mkdir -p "$WORK/logs"
cat >"$WORK/nginx.conf" <<EOF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $WORK/body; proxy_temp_path $WORK/proxy;
    fastcgi_temp_path $WORK/f; uwsgi_temp_path $WORK/u; scgi_temp_path $WORK/s;
    client_max_body_size 16m;
    client_body_buffer_size 1m;
    server {
        listen 127.0.0.1:18401;
        keepalive_requests 1000000;
        location / { return 200 "ok\n"; }
    }
}
EOF
"$NGINX_BIN" -c "$WORK/nginx.conf" -p "$WORK"

printf '[listen]\ngrpc_authz_addr = "127.0.0.1:18404"\n' >"$WORK/utf8gate.toml"
# Each server in a session of its own, as nginx is (it daemonizes): the kernel's autogroup
# scheduler shares the CPU between sessions first, so a server started in wrk's session would
# share one group's time with wrk (bench/proxy.sh, docs/BENCHMARKS.md "The p99 tail").
setsid env -u UTF8GATE_LOG_LEVEL "$UTF8GATE" serve --config "$WORK/utf8gate.toml" \
    --api-addr 127.0.0.1:18402 --admin-addr 127.0.0.1:18403 2>/dev/null &
PIDS+=($!)
GATE_PID=$!
setsid "$NULL_PROCESSOR" 127.0.0.1:18405 2>/dev/null &
PIDS+=($!)
NULL_PID=$!
# A process's CPU time so far (user + system), in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICKS=$(getconf CLK_TCK)

# The shipped files, addresses replaced (the same replacements as the e2e test).
python3 - "$ROOT" "$WORK" "$WASM_DIR" <<'PY'
import re, sys
root, work, wasm = sys.argv[1], sys.argv[2], sys.argv[3]
def load(name, port):
    s = open(f"{root}/deploy/envoy/{name}").read()
    for old, new in [("address: 0.0.0.0", "address: 127.0.0.1"), ("port_value: 10000", f"port_value: {port}"),
                     ("port_value: 3000", "port_value: 18401")]:
        assert s.count(old) == 1, old
        s = s.replace(old, new)
    return s
http = load("envoy.yaml", 18411)
http = http.replace("uri: http://127.0.0.1:8081", "uri: http://127.0.0.1:18402").replace("port_value: 8081", "port_value: 18402")
open(f"{work}/http.yaml", "w").write(http)
grpc = load("envoy-grpc.yaml", 18412).replace("port_value: 9191", "port_value: 18404")
open(f"{work}/grpc.yaml", "w").write(grpc)
# Without the check: envoy.yaml with its ext_authz filter entry (up to the router's) removed.
bare = load("envoy.yaml", 18410)
start = bare.index("                  - name: envoy.filters.http.ext_authz")
end = bare.index("                  - name: envoy.filters.http.router")
open(f"{work}/bare.yaml", "w").write(bare[:start] + bare[end:])
proc = load("envoy-ext-proc.yaml", 18413).replace("port_value: 9191", "port_value: 18404")
open(f"{work}/proc.yaml", "w").write(proc)
# The floor: the gRPC check and ext_proc buffered, answered by the null processor.
open(f"{work}/nullgrpc.yaml", "w").write(
    load("envoy-grpc.yaml", 18417).replace("port_value: 9191", "port_value: 18405"))
open(f"{work}/nullproc.yaml", "w").write(
    load("envoy-ext-proc.yaml", 18418).replace("port_value: 9191", "port_value: 18405"))
# Streamed: the filter's own mode (the last request_body_mode of the file) set to STREAMED.
streamed = load("envoy-ext-proc.yaml", 18414).replace("port_value: 9191", "port_value: 18404")
at = streamed.rindex("request_body_mode: BUFFERED")
streamed = streamed[:at] + "request_body_mode: STREAMED" + streamed[at + len("request_body_mode: BUFFERED"):]
open(f"{work}/streamed.yaml", "w").write(streamed)
# Inside Envoy: the shipped file with the filter's path and admin port replaced.
for name, port, filename in [("trivial", 18415, "examples/one_header.wasm"),
                             ("wasm", 18416, "utf8gate_proxy_wasm.wasm")]:
    y = load("envoy-wasm.yaml", port).replace("port_value: 9901", f"port_value: {port + 10}")
    shipped = "filename: target/wasm32-wasip1/wasm/utf8gate_proxy_wasm.wasm"
    assert y.count(shipped) == 1
    open(f"{work}/{name}.yaml", "w").write(y.replace(shipped, f"filename: {wasm}/{filename}"))
PY
declare -A ENVOY_PID
for cfg in bare http grpc proc streamed trivial wasm nullgrpc nullproc; do
  setsid "$ENVOY_BIN" -c "$WORK/$cfg.yaml" --disable-hot-restart --concurrency "$WORKERS" -l warn \
      >"$WORK/logs/envoy-$cfg.log" 2>&1 &
  PIDS+=($!)
  ENVOY_PID[$cfg]=$!
done
declare -A PORT=([no-authz]=18410 [http-authz]=18411 [grpc-authz]=18412 [ext-proc]=18413 [ext-proc-streamed]=18414
                 [wasm-one-header]=18415 [wasm-utf8gate]=18416 [null-grpc-authz]=18417 [null-ext-proc]=18418)
# Each target's Envoy, and the process that answers its checks (none inside Envoy).
declare -A CFG=([no-authz]=bare [http-authz]=http [grpc-authz]=grpc [ext-proc]=proc [ext-proc-streamed]=streamed
                [wasm-one-header]=trivial [wasm-utf8gate]=wasm [null-grpc-authz]=nullgrpc [null-ext-proc]=nullproc)
declare -A CHECKER=([http-authz]=$GATE_PID [grpc-authz]=$GATE_PID [ext-proc]=$GATE_PID [ext-proc-streamed]=$GATE_PID
                    [null-grpc-authz]=$NULL_PID [null-ext-proc]=$NULL_PID)
TARGETS=(no-authz null-grpc-authz null-ext-proc http-authz grpc-authz ext-proc ext-proc-streamed wasm-one-header
         wasm-utf8gate)
# ONLY="grpc-authz ext-proc" measures only those (every rep printed, no tables of medians).
[ -z "${ONLY:-}" ] || read -ra TARGETS <<<"$ONLY"
for t in "${TARGETS[@]}"; do
  for _ in $(seq 1 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:${PORT[$t]}/ready")" = 200 ] && break
    sleep 0.1
  done
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${PORT[$t]}/ready")" = 200 ] \
    || { echo "envoy $t is not ready" >&2; cat "$WORK"/logs/*.log >&2; exit 1; }
done

# Workloads: a GET with a non-ASCII path and query, a 16 KiB JSON POST of mixed scripts and a
# 1 MiB plain-text POST of the same words.
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
words = ["Αθήνα", "東京", "Привет", "مرحبا", "नमस्ते", "Zoë", "résumé", "👍🏽", "plain ascii text"]
doc, n = {}, 0
while len(json.dumps(doc, ensure_ascii=False).encode()) < 16 * 1024:
    doc[f"k{n}"] = " ".join(words[(n + i) % len(words)] for i in range(6)); n += 1
open(f"{work}/json16k.json", "w", encoding="utf-8").write(json.dumps(doc, ensure_ascii=False))
text, n = [], 0
while sum(len(t.encode()) + 1 for t in text) < 1024 * 1024:
    text.append(" ".join(words[(n + i) % len(words)] for i in range(6))); n += 1
open(f"{work}/text1m.txt", "w", encoding="utf-8").write("\n".join(text))
PY
cat >"$WORK/post.lua" <<'EOF'
local f = assert(io.open(os.getenv("BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = os.getenv("BODY_TYPE")
EOF
WORKLOADS=("get|/caf%C3%A9/%E6%9D%B1%E4%BA%AC?q=%D0%9F%D1%80%D0%B8%D0%B2%D0%B5%D1%82||"
           "json16k|/api/json|$WORK/post.lua|$WORK/json16k.json|application/json"
           "text1m|/api/text|$WORK/post.lua|$WORK/text1m.txt|text/plain; charset=utf-8")
declare -A RPS P50 P99 CPU ENVOY_CPU
# Microseconds of CPU per request from a difference of clock ticks.
per_request() { awk -v t="$1" -v hz="$TICKS" -v n="$2" 'BEGIN {printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0)}'; }
for rep in $(seq 1 "$REPS"); do
  for w in "${WORKLOADS[@]}"; do
    IFS='|' read -r name path script body type <<<"$w"
    for t in "${TARGETS[@]}"; do
      envoy=${ENVOY_PID[${CFG[$t]}]}; checker=${CHECKER[$t]:-}
      envoy_before=$(ticks "$envoy"); before=$([ -z "$checker" ] && echo 0 || ticks "$checker")
      out=$(BODY_FILE="$body" BODY_TYPE="$type" timeout 60 wrk -t1 -c"$CONNS" -d"$DUR" --timeout 10s --latency \
            ${script:+-s "$script"} "http://127.0.0.1:${PORT[$t]}$path" 2>&1 || true)
      non2xx=$(grep -E 'Non-2xx' <<<"$out" | awk '{print $NF}' || true)
      [ -z "$non2xx" ] || { echo "$name $t: $non2xx non-2xx responses" >&2; echo "$out" >&2; exit 1; }
      rps=$(grep -E 'Requests/sec' <<<"$out" | awk '{print $2}')
      requests=$(grep -E 'requests in' <<<"$out" | awk '{print $1}')
      # The checking process's CPU per request, in microseconds (0 where Envoy asks none), and
      # Envoy's.
      cpu=$(per_request $(( $([ -z "$checker" ] && echo 0 || ticks "$checker") - before )) "$requests")
      envoy_cpu=$(per_request $(( $(ticks "$envoy") - envoy_before )) "$requests")
      CPU[$name.$t]="${CPU[$name.$t]:-} $cpu"; ENVOY_CPU[$name.$t]="${ENVOY_CPU[$name.$t]:-} $envoy_cpu"
      p50=$(grep -E '^ +50%' <<<"$out" | awk '{print $2}'); p99=$(grep -E '^ +99%' <<<"$out" | awk '{print $2}')
      RPS[$name.$t]="${RPS[$name.$t]:-} $rps"
      P50[$name.$t]="${P50[$name.$t]:-} $p50"; P99[$name.$t]="${P99[$name.$t]:-} $p99"
      echo "rep $rep $name $t: $rps req/s, p50 $p50, p99 $p99, CPU µs/request: Envoy $envoy_cpu, checker $cpu"
      sleep 2
    done
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# The tables of medians need every target; with ONLY, only the reps below are printed.
if [ -z "${ONLY:-}" ]; then
echo
echo "| workload | Envoy alone req/s | + HTTP ext_authz | + gRPC ext_authz | + ext_proc buffered | + ext_proc streamed | + one-header Wasm filter | + utf8gate Wasm filter | utf8gate Wasm / one-header Wasm | utf8gate Wasm / best out-of-process |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for w in "${WORKLOADS[@]}"; do
  name=${w%%|*}
  a=$(median <<<"${RPS[$name.no-authz]}"); h=$(median <<<"${RPS[$name.http-authz]}"); g=$(median <<<"${RPS[$name.grpc-authz]}")
  b=$(median <<<"${RPS[$name.ext-proc]}"); s=$(median <<<"${RPS[$name.ext-proc-streamed]}")
  o=$(median <<<"${RPS[$name.wasm-one-header]}"); u=$(median <<<"${RPS[$name.wasm-utf8gate]}")
  best=$(printf '%s\n' "$h" "$g" "$b" "$s" | sort -g | tail -n 1)
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %.2f× | %.2f× |\n' "$name" "$a" "$h" "$g" "$b" "$s" "$o" "$u" \
    "$(echo "$u / $o" | bc -l)" "$(echo "$u / $best" | bc -l)"
done
# The floor of the out-of-process ways (the null processor) against utf8gate's.
echo
echo "| workload | + null gRPC check req/s | + null ext_proc buffered | gRPC ext_authz / null | ext_proc buffered / null | null ext_proc / null gRPC | null ext_proc / Envoy alone |"
echo "|---|---|---|---|---|---|---|"
for w in "${WORKLOADS[@]}"; do
  name=${w%%|*}
  a=$(median <<<"${RPS[$name.no-authz]}"); g=$(median <<<"${RPS[$name.grpc-authz]}"); b=$(median <<<"${RPS[$name.ext-proc]}")
  ng=$(median <<<"${RPS[$name.null-grpc-authz]}"); np=$(median <<<"${RPS[$name.null-ext-proc]}")
  printf '| %s | %s | %s | %.2f× | %.2f× | %.2f× | %.2f× |\n' "$name" "$ng" "$np" "$(echo "$g / $ng" | bc -l)" \
    "$(echo "$b / $np" | bc -l)" "$(echo "$np / $ng" | bc -l)" "$(echo "$np / $a" | bc -l)"
done
# What a request costs the machine: the medians of each rep's Envoy + checker CPU.
echo
echo "CPU µs per request, medians of the reps (Envoy + the checking process = total):"
echo
echo "| workload | $(printf '%s | ' "${TARGETS[@]}")"
echo "|---|$(printf -- '---|%.0s' "${TARGETS[@]}")"
for w in "${WORKLOADS[@]}"; do
  name=${w%%|*}
  row="| $name |"
  for t in "${TARGETS[@]}"; do
    totals=$(paste -d+ <(tr ' ' '\n' <<<"${ENVOY_CPU[$name.$t]}" | grep -v '^$') \
                       <(tr ' ' '\n' <<<"${CPU[$name.$t]}" | grep -v '^$') | bc -l | tr '\n' ' ')
    row="$row $(median <<<"${ENVOY_CPU[$name.$t]}") + $(median <<<"${CPU[$name.$t]}") = $(median <<<"$totals") |"
  done
  echo "$row"
done
fi
# Envoy's peak resident memory with utf8gate's filter, after every workload ran through it.
echo
echo "Envoy with utf8gate's Wasm filter: peak RSS $(awk '/VmHWM/ {print $2, $3}' "/proc/${ENVOY_PID[wasm]}/status"); with the one-header filter: $(awk '/VmHWM/ {print $2, $3}' "/proc/${ENVOY_PID[trivial]}/status"); alone: $(awk '/VmHWM/ {print $2, $3}' "/proc/${ENVOY_PID[bare]}/status")"
echo
echo "every rep (req/s; p50 / p99 latency as wrk prints them):"
for w in "${WORKLOADS[@]}"; do
  name=${w%%|*}
  for t in "${TARGETS[@]}"; do
    echo "$name $t:${RPS[$name.$t]} | p50:${P50[$name.$t]} | p99:${P99[$name.$t]} | CPU µs/request, Envoy:${ENVOY_CPU[$name.$t]}, checker:${CPU[$name.$t]}"
  done
done
