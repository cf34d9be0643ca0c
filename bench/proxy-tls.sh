# Sourced by bench/proxy.sh once the peer harness is up (upstream 127.0.0.1:18081, its rendered
# $WORK/run/proxy-common.inc): the TLS rows. utf8gate's proxy listener over TLS (127.0.0.1:18444;
# rustls with aws-lc-rs) against nginx over TLS (127.0.0.1:18443; Debian's nginx, OpenSSL 3), with
# the same certificate (ECDSA P-256, self-signed, made here in $WORK) and in front of the same
# upstream, nginx with the harness's proxy settings (keep-alive to the upstream, keepalive 64).
#   handshakes/s: wrk -H "Connection: close": every request is a new connection and a full
#                 TLS handshake (see resumption below)
#   keep-alive:   wrk with get.lua on kept-alive connections (the GET row of proxy.sh, over TLS)
# Both with -t2 -c32 -d$DUR, REPS times, alternating targets; medians, every rep, utf8gate / nginx.
# wrk shares the cores with the server, and a full handshake costs wrk (OpenSSL 3.0) more CPU
# than it costs either server, so handshakes/s is partly the client's limit. Each run also
# prints CPU time per request (user+system, from /proc, over the wrk run) of the server (nginx's
# workers, or utf8gate's process; not the shared upstream) and of wrk; the server's is a measure
# the client does not bound, and its medians are in the table.
#
# Resumption: wrk does resume sessions. It makes one SSL object per connection slot (wrk.c:
# `c->ssl = SSL_new(cfg.ctx)`) and reconnects a closed one through ssl_close (ssl.c:
# SSL_shutdown, then SSL_clear). OpenSSL's SSL_clear drops the session only when no close_notify
# was sent (ssl_clear_bad_session); after SSL_shutdown it keeps it, so the next SSL_connect on
# that slot offers it (TLS 1.3: the last ticket received). Both servers grant it: utf8gate runs
# rustls's defaults (in-memory cache of 256 sessions shared by its threads, 2 stateful TLS 1.3
# tickets per handshake, TLS 1.2 session ids, no stateless tickets), and nginx is set up the same
# way here (`ssl_session_cache shared`, `ssl_session_tickets off`: OpenSSL then sends 2 stateful
# TLS 1.3 tickets). utf8gate's cannot be switched off from its configuration, so it is the client
# that stops resuming, against both: a small LD_PRELOAD library for wrk (noresume.c below)
# drops the kept session before each handshake (SSL_set_session(ssl, NULL)), counts handshakes
# and resumed ones, and names what was negotiated. Every run must report 0 resumed, or the script
# stops. The run first shows wrk's own behaviour (the library counting only, WRK_TLS_RESUME=1).
#
# Cipher: wrk's OpenSSL reads OPENSSL_CONF, here client.cnf: TLS 1.3 suite TLS_AES_256_GCM_SHA384
# (the first of OpenSSL's default order, so what wrk takes unpinned) and group X25519 only. Both
# servers follow the client's order (rustls: ignore_client_order false; nginx:
# ssl_prefer_server_ciphers off). openssl s_client, with the same file, shows what each negotiates.
# wrk sends no ALPN: HTTP/1.1 on both.
TLSD="$WORK/tls"; mkdir -p "$TLSD/nginx/logs"
declare -A TLSPORT=([nginx]=18443 [utf8gate]=18444)
# Cleartext listeners of the same two processes (utf8gate's API listener is not the proxy: a
# second utf8gate serves cleartext), for the same-run baseline of the keep-alive row.
declare -A PLAINPORT=([nginx]=18447 [utf8gate]=18448)
command -v gcc >/dev/null && [ -f /usr/include/openssl/ssl.h ] \
  || apt-get install -y -q --no-install-recommends gcc libc6-dev libssl-dev >/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=gateway.test \
  -addext "subjectAltName=DNS:gateway.test,IP:127.0.0.1" -keyout "$TLSD/key.pem" -out "$TLSD/cert.pem" 2>/dev/null
cat >"$TLSD/client.cnf" <<'EOF'
openssl_conf = bench
[bench]
ssl_conf = bench_ssl
[bench_ssl]
system_default = bench_client
[bench_client]
Ciphersuites = TLS_AES_256_GCM_SHA384
Groups = X25519
EOF
cat >"$TLSD/noresume.c" <<'EOF'
/* LD_PRELOAD into wrk: before each handshake drop the session wrk's SSL_clear kept, so every
   handshake is a full one (WRK_TLS_RESUME set: keep it, count only). At exit, print how many
   handshakes completed, how many resumed a session, and what the first one negotiated. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <openssl/ssl.h>

static int (*real_connect)(SSL *);
static int keep, named;
static unsigned long calls, done, resumed;
static char negotiated[160] = "nothing";

__attribute__((constructor)) static void start(void) {
    real_connect = (int (*)(SSL *))dlsym(RTLD_NEXT, "SSL_connect");
    keep = getenv("WRK_TLS_RESUME") != NULL;
}

int SSL_connect(SSL *s) {
    if (!keep && SSL_in_before(s))
        SSL_set_session(s, NULL);
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    int r = real_connect(s);
    if (r == 1) {
        __atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
        if (SSL_session_reused(s))
            __atomic_add_fetch(&resumed, 1, __ATOMIC_RELAXED);
        if (!__atomic_exchange_n(&named, 1, __ATOMIC_ACQ_REL)) {
            const char *group = SSL_group_to_name(s, SSL_get_negotiated_group(s));
            snprintf(negotiated, sizeof negotiated, "%s %s %s", SSL_get_version(s),
                     SSL_get_cipher_name(s), group ? group : "?");
        }
    }
    return r;
}

__attribute__((destructor)) static void report(void) {
    if (calls)
        fprintf(stderr, "tls-shim: %lu handshakes, %lu resumed, negotiated %s\n", done, resumed, negotiated);
}
EOF
gcc -O2 -shared -fPIC -o "$TLSD/noresume.so" "$TLSD/noresume.c" -ldl -lssl
cat >"$TLSD/utf8gate.toml" <<EOF
[tls]
listeners = ["proxy"]
cert = "$TLSD/cert.pem"
key = "$TLSD/key.pem"
min_version = "1.2"
watch_seconds = 0.0
EOF
THREADS=${THREADS:-$(nproc)}
cat >"$TLSD/nginx/nginx.conf" <<EOF
worker_processes $THREADS;
pid $TLSD/nginx/nginx.pid;
error_log $TLSD/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    client_body_temp_path $TLSD/nginx/body; proxy_temp_path $TLSD/nginx/proxy;
    fastcgi_temp_path $TLSD/nginx/f; uwsgi_temp_path $TLSD/nginx/u; scgi_temp_path $TLSD/nginx/s;
    include $WORK/run/proxy-common.inc;   # the harness's nginx row: upstream static_up, keepalive 64
    ssl_certificate $TLSD/cert.pem;
    ssl_certificate_key $TLSD/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_prefer_server_ciphers off;
    ssl_session_cache shared:TLS:1m;
    ssl_session_tickets off;
    server {
        listen 127.0.0.1:${TLSPORT[nginx]} ssl reuseport;   # reuseport as the harness's nginx row
        location / { proxy_pass http://static_up; }
    }
    # The same nginx in cleartext: the keep-alive row's same-run baseline.
    server {
        listen 127.0.0.1:${PLAINPORT[nginx]} reuseport;
        location / { proxy_pass http://static_up; }
    }
}
EOF
TLS_NGINX=$(command -v nginx || echo /usr/sbin/nginx)  # the EXIT trap stops it from here on
"$TLS_NGINX" -c "$TLSD/nginx/nginx.conf" -p "$TLSD/nginx"
setsid env -u UTF8GATE_LOG_LEVEL "$ROOT/target/release/utf8gate" serve --upstream http://127.0.0.1:18081 \
    --proxy-addr 127.0.0.1:${TLSPORT[utf8gate]} --api-addr 127.0.0.1:18445 --admin-addr 127.0.0.1:18446 \
    --config "$TLSD/utf8gate.toml" 2>/dev/null &
TLS_UG_PID=$!
setsid env -u UTF8GATE_LOG_LEVEL "$ROOT/target/release/utf8gate" serve --upstream http://127.0.0.1:18081 \
    --proxy-addr 127.0.0.1:${PLAINPORT[utf8gate]} --api-addr 127.0.0.1:18449 --admin-addr 127.0.0.1:18450 \
    2>/dev/null &
PLAIN_UG_PID=$!
for _ in $(seq 1 50); do curl -s -o /dev/null --max-time 1 http://127.0.0.1:18450/healthz && break; sleep 0.1; done
for _ in $(seq 1 50); do curl -s -o /dev/null --max-time 1 http://127.0.0.1:18446/healthz && break; sleep 0.1; done
for t in nginx utf8gate; do
  code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 5 -H 'Host: gateway.test' "https://127.0.0.1:${TLSPORT[$t]}/" || true)
  [ "$code" = 200 ] || { echo "tls $t: GET / answered '$code', not 200" >&2; exit 1; }
done
echo "utf8gate binary: $(stat -c '%y' "$ROOT/target/release/utf8gate"); $(wrk --version 2>&1 | head -1); $(openssl version); nproc $THREADS" >&2

TLS_NGINX_WORKERS=$(pgrep -P "$(cat "$TLSD/nginx/nginx.pid")" | tr '\n' ' ')
declare -A TLSPIDS=([nginx]="$TLS_NGINX_WORKERS" [utf8gate]="$TLS_UG_PID")
declare -A PLAINPIDS=([nginx]="$TLS_NGINX_WORKERS" [utf8gate]="$PLAIN_UG_PID")
# cpu_ticks PID...: the clock ticks (user+system, every thread) the processes have used so far.
cpu_ticks() { local p n=0; for p in "$@"; do n=$((n + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$n"; }
# tls_wrk ARGS...: wrk with the pinned client configuration and the no-resumption library (wrk
# alone: not timeout), then the clock ticks wrk used (this subshell's children's, from /proc).
tls_wrk() {
  timeout 60 env LD_PRELOAD="$TLSD/noresume.so" OPENSSL_CONF="$TLSD/client.cnf" wrk "$@" 2>&1 || true
  awk '{print "client-ticks:", $16 + $17}' "/proc/$BASHPID/stat"
}
# What each server negotiates (s_client with wrk's configuration), how many TLS 1.3 tickets it
# sends, and whether it resumes a session it issued; then what wrk does on its own.
REQ='GET / HTTP/1.1\r\nHost: gateway.test\r\nConnection: close\r\n\r\n'
for t in nginx utf8gate; do
  s=$(printf '%b' "$REQ" | OPENSSL_CONF="$TLSD/client.cnf" timeout 10 openssl s_client -ign_eof \
      -connect "127.0.0.1:${TLSPORT[$t]}" -sess_out "$TLSD/$t.sess" 2>&1 || true)
  r=$(printf '%b' "$REQ" | OPENSSL_CONF="$TLSD/client.cnf" timeout 10 openssl s_client -ign_eof \
      -connect "127.0.0.1:${TLSPORT[$t]}" -sess_in "$TLSD/$t.sess" 2>&1 || true)
  echo "s_client $t-tls: $(grep -m1 -E '^(New|Reused), ' <<<"$s");" \
       "$(grep -m1 -E '^Server Temp Key' <<<"$s"); $(grep -m1 -E '^Peer signature type' <<<"$s");" \
       "$(grep -m1 -E '^ALPN|^No ALPN' <<<"$s"); $(grep -m1 -E '^HTTP/' <<<"$s" | tr -d '\r');" \
       "TLS 1.3 tickets: $(grep -c 'Post-Handshake New Session Ticket' <<<"$s");" \
       "offering one: $(grep -m1 -E '^(New|Reused), ' <<<"$r" | cut -d, -f1)" >&2
done
for t in nginx utf8gate; do
  out=$(WRK_TLS_RESUME=1 tls_wrk -t1 -c4 -d2s -H "Connection: close" -s "$PWD/get.lua" "https://127.0.0.1:${TLSPORT[$t]}/")
  echo "wrk on its own, Connection: close, against $t-tls: $(grep '^tls-shim:' <<<"$out" | cut -d' ' -f2-)" >&2
done

declare -A TLSRPS TLSCPU
for rep in $(seq 1 "$REPS"); do
  for m in handshake keepalive plain; do
    for t in nginx utf8gate; do
      args=(-t2 -c32 -d"$DUR" --timeout 10s -s "$PWD/get.lua")
      [ "$m" != handshake ] || args+=(-H "Connection: close")
      pids=${TLSPIDS[$t]}; [ "$m" != plain ] || pids=${PLAINPIDS[$t]}
      # shellcheck disable=SC2086 # pids holds a list of process ids
      before=$(cpu_ticks $pids)
      if [ "$m" = plain ]; then
        out=$( (timeout 60 wrk "${args[@]}" "http://127.0.0.1:${PLAINPORT[$t]}/" 2>&1 || true;
                echo "tls-shim: 0 handshakes, 0 resumed, cleartext";
                awk '{print "client-ticks:", $16 + $17}' "/proc/$BASHPID/stat") )
      else
        out=$(tls_wrk "${args[@]}" "https://127.0.0.1:${TLSPORT[$t]}/")
      fi
      # shellcheck disable=SC2086
      ticks=$(( $(cpu_ticks $pids) - before ))
      cticks=$(grep '^client-ticks:' <<<"$out" | awk '{print $2}')
      non2xx=$(grep -E 'Non-2xx' <<<"$out" | awk '{print $NF}' || true)
      [ -z "$non2xx" ] || { echo "tls $m $t: $non2xx non-2xx responses" >&2; exit 1; }
      shim=$(grep '^tls-shim:' <<<"$out" || true)
      [ "$(awk '{print $4}' <<<"$shim")" = 0 ] || { echo "tls $m $t: not all full handshakes: $shim" >&2; exit 1; }
      rps=$(grep -E 'Requests/sec' <<<"$out" | awk '{print $2}')
      TLSRPS[$m.$t]="${TLSRPS[$m.$t]:-} $rps"
      reqs=$(grep -E '^ *[0-9]+ requests in' <<<"$out" | awk '{print $1}')
      cpu=$(echo "scale=1; $ticks * 1000000 / $(getconf CLK_TCK) / $reqs" | bc -l)
      wrkcpu=$(echo "scale=1; $cticks * 1000000 / $(getconf CLK_TCK) / $reqs" | bc -l)
      TLSCPU[$m.$t]="${TLSCPU[$m.$t]:-} $cpu"
      errs=$(grep -E 'Socket errors' <<<"$out" | sed 's/^ *//' || true)
      echo "rep $rep tls $m $t: $rps req/s, CPU µs/req server $cpu, wrk $wrkcpu; $(cut -d' ' -f2- <<<"$shim")${errs:+; $errs}" >&2
      sleep 2
    done
  done
done
stop_pids "$TLS_UG_PID" "$PLAIN_UG_PID"; TLS_UG_PID=; PLAIN_UG_PID=
"$TLS_NGINX" -s stop -c "$TLSD/nginx/nginx.conf" -p "$TLSD/nginx" 2>/dev/null || true
TLS_NGINX=
echo
echo "| TLS 1.3, TLS_AES_256_GCM_SHA384, X25519, ECDSA P-256; wrk -t2 -c32 -d$DUR, GET | nginx (reps) | utf8gate (reps) | nginx median | utf8gate median | utf8gate / nginx | server CPU µs/req, nginx / utf8gate (medians) |"
echo "|---|---|---|---|---|---|---|"
for m in handshake keepalive plain; do
  n=$(median <<<"${TLSRPS[$m.nginx]}"); u=$(median <<<"${TLSRPS[$m.utf8gate]}")
  case $m in
    handshake) label="handshakes/s (Connection: close, full handshakes)" ;;
    keepalive) label="keep-alive req/s" ;;
    *) label="keep-alive req/s in cleartext (the same-run baseline)" ;;
  esac
  printf '| %s |%s |%s | %s | %s | %.2f× | %s / %s |\n' "$label" "${TLSRPS[$m.nginx]}" "${TLSRPS[$m.utf8gate]}" \
    "$n" "$u" "$(echo "$u / $n" | bc -l)" "$(median <<<"${TLSCPU[$m.nginx]}")" "$(median <<<"${TLSCPU[$m.utf8gate]}")"
done
