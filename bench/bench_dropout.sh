#!/usr/bin/env bash
# bench_dropout.sh - the host's dropout against ReLU and the memory bound
# (issue: the CPU engine at its roofline): ew_rate.c times dropout
# (p = 0.5) forward and backward, ReLU forward and backward, and a parallel
# copy of the same tensor (ROWS x COLS, default 120000 x 128: a GCN layer's
# activations on a 120K-vertex graph) through the engine's own kernel
# table, best of 7 each, on THREADS (default 2) threads.
# Bar: dropout's forward at most 2.5x ReLU's on the same tensor.
# Usage: bench/bench_dropout.sh [WORKDIR]
# shellcheck source=bench/bench_c.sh
source "$(dirname "$0")/bench_c.sh" # sets root and work, gives build_harness
build_harness "$work/ew_rate" bench/ew_rate.c -O2
out=$("$work/ew_rate" "${ROWS:-120000}" "${COLS:-128}" "${THREADS:-2}")
echo "$out"
ratio=$(sed -n 's/^dropout\/relu: forward \([0-9.]*\)x.*/\1/p' <<<"$out")
awk -v r="$ratio" 'BEGIN { printf "dropout forward / relu forward: %.2fx (bar <= 2.5): %s\n", r, r <= 2.5 ? "PASS" : "FAIL"; exit !(r <= 2.5) }'
