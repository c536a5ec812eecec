#!/usr/bin/env bash
# sampling_threads.sh - a pipelined sampled run, where a second thread
# prepares batch b+1 while the engine thread runs batch b's step: it trains
# 3 epochs and prints its result (under ThreadSanitizer, the two threads'
# sharing of the thread pool and the batch buffers is checked).
# run-under: tsan
source "$(dirname "$0")/../lib.sh"
out=$("$BIN" train --epochs 3 --batch-size 32 --fanout 5,3 --prepro pipelined --json --quiet 2>&1)
rc=$?
batches=$(json_get batches <<<"$out" 2>/dev/null)
[ "$rc" -eq 0 ] && [ "${batches%.*}" = 5 ] && ok "pipelined sampled run: 3 epochs of $batches batches" \
    || bad "pipelined sampled run: exit $rc: $(tail -2 <<<"$out")"
finish
