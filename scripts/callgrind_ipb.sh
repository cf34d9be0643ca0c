#!/usr/bin/env bash
# Instructions per byte of the codec's error-path decoders and their baselines on the 1 %-invalid
# bench corpora, counted by callgrind (noise-free, unlike wall time).
#
# usage: scripts/callgrind_ipb.sh [SIZE_BYTES] [RUNS]   (default 65536 bytes, 20 runs)
# Needs `cargo build --release -p utf8gate-codec --example invalid_profile` first.
set -euo pipefail
size=${1:-65536}
runs=${2:-20}
bin=target/release/examples/invalid_profile
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '| corpus | %s |\n|---|---|---|---|---|\n' "diagnose | lossy | std_lossy | encoding_rs"
for corpus in ascii-json latin cyrillic cjk emoji mixed; do
    base=$(count none "$corpus" "$size" "$runs")
    len=$("$bin" none "$corpus" "$size" 0 | sed -n 's/.* \([0-9]*\) bytes.*/\1/p')
    row="| $corpus"
    for func in diagnose lossy std_lossy encoding_rs; do
        ir=$(count "$func" "$corpus" "$size" "$runs")
        row="$row | $(awk -v a="$ir" -v b="$base" -v n="$runs" -v l="$len" 'BEGIN { printf "%.2f", (a - b) / (n * l) }')"
    done
    echo "$row |"
done
