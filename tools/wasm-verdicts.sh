#!/usr/bin/env bash
# The policy's verdicts are the same natively and as Wasm: crates/policy/examples/verdict_lines.rs
# (a seeded random corpus, one line per request) built for this machine (the AVX2 and AVX-512
# classifier where the CPU has them) and for wasm32-wasip1 with simd128 (.cargo/config.toml: the
# build the proxy-wasm filter ships), run under Node's WASI (V8, Envoy's runtime); every line
# must match. usage: tools/wasm-verdicts.sh [REQUESTS]   (default 4000; needs node and the
# wasm32-wasip1 target)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
N="${1:-4000}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
cd "$ROOT"
cargo build --release --locked -q -p utf8gate-policy --example verdict_lines
cargo build --release --locked -q -p utf8gate-policy --example verdict_lines --target wasm32-wasip1
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$TARGET/release/examples/verdict_lines" "$N" >"$WORK/native"
node --no-warnings tools/wasi-run.mjs "$TARGET/wasm32-wasip1/release/examples/verdict_lines.wasm" "$N" >"$WORK/wasm"
lines=$(wc -l <"$WORK/native")
[ "$lines" -eq "$N" ] || { echo "wasm-verdicts: $lines native lines, expected $N" >&2; exit 1; }
if ! diff -q "$WORK/native" "$WORK/wasm" >/dev/null; then
    echo "wasm-verdicts: the Wasm build decides otherwise:" >&2
    diff "$WORK/native" "$WORK/wasm" | head -20 >&2
    exit 1
fi
echo "wasm-verdicts: $N requests, the same verdicts natively and as Wasm ($(awk '{print $2}' "$WORK/native" | sort | uniq -c | tr -s ' ' | paste -sd, -))"
