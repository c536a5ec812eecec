#!/usr/bin/env bash
# bench_dropout.sh - the host's dropout against ReLU and the memory bound
# (issue: the CPU engine at its roofline): ew_rate.c times dropout
# (p = 0.5) forward and backward, ReLU forward and backward, and a parallel
# copy of the same tensor (ROWS x COLS, default 120000 x 128: a GCN layer's
# activations on a 120K-vertex graph) through the engine's own kernel
# table, best of 7 each, on THREADS (default 2) threads.
# Bar: dropout's forward at most 2.5x ReLU's on the same tensor.
# Usage: bench/bench_dropout.sh [WORKDIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-${TMPDIR:-/tmp}/gnnscope-bench}
mkdir -p "$work"
cd "$root"
make -s gnnscope >/dev/null
mpi_link=$(mpicc -showme:link 2>/dev/null || true)
# shellcheck disable=SC2086
cc -O2 -std=c11 -D_GNU_SOURCE -I. -o "$work/ew_rate" bench/ew_rate.c build/libgnnscope.a \
    -lopenblas -lmetis -lz -lm -ldl -pthread $mpi_link
out=$("$work/ew_rate" "${ROWS:-120000}" "${COLS:-128}" "${THREADS:-2}")
echo "$out"
ratio=$(sed -n 's/^dropout\/relu: forward \([0-9.]*\)x.*/\1/p' <<<"$out")
awk -v r="$ratio" 'BEGIN { printf "dropout forward / relu forward: %.2fx (bar <= 2.5): %s\n", r, r <= 2.5 ? "PASS" : "FAIL"; exit !(r <= 2.5) }'
