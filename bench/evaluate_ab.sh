#!/usr/bin/env bash
# Wall-clock rate of two builds of the `evaluate_corpus` example on the same inputs, rounds
# alternating between them so that the machine's drift falls on both: every round's GB/s and
# the medians, one line per input.
#
# usage: bench/evaluate_ab.sh BEFORE AFTER ROUNDS "SCRIPT SIZE REPS MODE"...
#   BEFORE, AFTER: two `target/release/examples/evaluate_corpus` binaries (build the older one
#   from a worktree with its own CARGO_TARGET_DIR); each quoted argument is one input, as the
#   example takes it (with `file`, give the file's size as SIZE: the rate is SIZE * REPS over
#   the time).
set -euo pipefail
[ $# -ge 4 ] || { sed -n 2,9p "$0"; exit 2; }
before=$1; after=$2; rounds=$3; shift 3
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
rate() { "$@" 2>&1 >/dev/null | awk '{print $(NF - 1)}'; }
printf '%s | %s | %s | %s\n' input "before, every round" "after, every round" "medians, after / before"
for input in "$@"; do
  b=(); a=()
  for _ in $(seq 1 "$rounds"); do
    # shellcheck disable=SC2086 # the input is the example's arguments, split on purpose
    b+=("$(rate "$before" $input)")
    # shellcheck disable=SC2086
    a+=("$(rate "$after" $input)")
  done
  mb=$(printf '%s\n' "${b[@]}" | median); ma=$(printf '%s\n' "${a[@]}" | median)
  printf '%s | %s | %s | %s → %s (%.2f×)\n' "$input" "${b[*]}" "${a[*]}" "$mb" "$ma" \
    "$(echo "$ma / $mb" | bc -l)"
done
