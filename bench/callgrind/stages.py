"""Groups callgrind's inclusive counts of one proxied request by stage (docs/BENCHMARKS.md,
"Where a proxied request's instructions go"). For each workload, two profiles of utf8gate under
callgrind, as bench/callgrind.sh runs it, after 200 and 2 200 requests, annotated with
`callgrind_annotate --inclusive=yes --threshold=100 FILE > DIR/KIND.N.inc`; each stage is the
growth of its function's inclusive count over 2 000 requests, per request. Stages nest (the
indentation); a function inlined away reads 0.

usage: python3 bench/callgrind/stages.py DIR KIND [BINARY]    (KIND: get | json)
  With BINARY, the files are DIR/BINARY.KIND.N.inc, as `KEEP=DIR bash bench/callgrind.sh` keeps
  them (BINARY is the binary's file name, e.g. utf8gate).
"""
import re
import sys

STAGES = [
    ("whole request, one connection's task", "listen::serve::spawn_connection::{{closure}}"),
    ("hyper: read and parse heads (request and upstream response)", "hyper::proto::h1::io::Buffered<T,B>::parse"),
    ("hyper: write response and upstream request heads", "hyper::proto::h1::conn::Conn<I,B,T>::write_head"),
    ("layer: request id", "request_id::SetRequestId<S> as tower_service::Service"),
    ("layer: snapshot and route", "snapshot::WithSnapshot<S> as tower_service::Service"),
    ("proxy handler (all below)", "Proxy as tower_service::Service<http::request::Request<B>>>::call::{{closure}}"),
    ("  body collection (read_whole)", "proxy::read_whole"),
    ("  gate: evaluate, metrics, audit record", "gate::Gate::pass::{{closure}}"),
    ("    evaluate", "utf8gate_policy::evaluate::evaluate "),
    ("      decoding layers and readings (decompose_into)", "utf8gate_policy::layers::decompose_into"),
    ("      checks of each field (check_one)", "utf8gate_policy::evaluate::check_one"),
    ("    metrics (record_verdict)", "Metrics::record_verdict"),
    ("  forwarding (Upstream::request)", "proxy::upstream::Upstream::request"),
    ("audit line (on_response: audit::write)", "audit::Record as utf8gate_server::listen::layers::on_response::Hook>::on_response"),
    ("memcpy (self)", "__memcpy_avx_unaligned_erms"),
]
def load(p):
    d = {}
    for line in open(p):
        m = re.match(r'\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?(.*)$', line)
        if m:
            n = int(m.group(1).replace(',', ''))
            d.setdefault(m.group(2), 0)
            d[m.group(2)] = max(d[m.group(2)], n)
    return d
folder, kind = sys.argv[1], sys.argv[2]
prefix = f'{folder}/{sys.argv[3]}.{kind}' if len(sys.argv) > 3 else f'{folder}/{kind}'
a, b = load(f'{prefix}.200.inc'), load(f'{prefix}.2200.inc')
def per(pattern):
    best = 0
    for k, v in b.items():
        if pattern in k:
            w = (v - max([a[k2] for k2 in a if k2 == k] or [0])) / 2000
            best = max(best, w)
    return best
tot = (b[[k for k in b if 'PROGRAM TOTALS' in k][0]] - a[[k for k in a if 'PROGRAM TOTALS' in k][0]]) / 2000
print(f"TOTAL {tot:.0f}")
for name, pat in STAGES:
    print(f"{per(pat):8.0f}  {name}")
