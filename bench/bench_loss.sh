#!/usr/bin/env bash
# bench_loss.sh - the host's loss against its bound (issue 28: every op of
# the roofline report within 1.5x of its bound): xent_rate.c times
# xent_cpu on ROWS x C logits (default 120000 x 16, the roofline report's
# output layer) with 60% of the rows listed, as a run's later epochs call it
# (only the listed rows written) and as its first does, on THREADS (default
# 2) threads and on one, against the report's bound (the listed logits'
# exponentials at the rate of a parallel gs_expf pass over every row) and
# that pass over the listed rows through their index; medians of 41 calls.
# Seconds to run.
# Bar: the loss at most 1.5x the report's bound (exit 1 otherwise).
# Usage: bench/bench_loss.sh [WORKDIR]
# shellcheck source=bench/bench_c.sh
source "$(dirname "$0")/bench_c.sh" # sets root and work, gives build_harness
# the flags roofline_limits.c is built with, so the exponential pass runs at the rate the report measures
build_harness "$work/xent_rate" bench/xent_rate.c -O3 -march=native -fno-trapping-math -fno-math-errno
rc=0
"$work/xent_rate" "${ROWS:-120000}" "${C:-16}" "${THREADS:-2}" || rc=$?
[ "$rc" -le 1 ] || exit "$rc"
echo "bench_loss: the loss within 1.5x of its bound: $([ "$rc" -eq 0 ] && echo PASS || echo FAIL)"
exit "$rc"
