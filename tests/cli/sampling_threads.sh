#!/usr/bin/env bash
# sampling_threads.sh - a pipelined sampled run, where a second thread
# prepares batch b+1 while the engine thread runs batch b's step: it trains
# 3 epochs and prints its result (under ThreadSanitizer, the two threads'
# sharing of the thread pool and the batch buffers is checked); then a
# run whose DKP reorders a layer for its first batch's blocks, so the
# executor is reopened while the second thread prepares the next batch,
# with serial (Dynamic-GT) preprocessing, which overlaps batches too.
# run-under: tsan
source "$(dirname "$0")/../lib.sh"
out=$("$BIN" train --epochs 3 --batch-size 32 --fanout 5,3 --prepro pipelined --json --quiet 2>&1)
rc=$?
batches=$(json_get batches <<<"$out" 2>/dev/null)
[ "$rc" -eq 0 ] && [ "${batches%.*}" = 5 ] && ok "pipelined sampled run: 3 epochs of $batches batches" \
    || bad "pipelined sampled run: exit $rc: $(tail -2 <<<"$out")"
out=$("$BIN" train --dataset gen:nodes=5000,degree=10,feats=256,classes=8,seed=1 --hidden 64 --epochs 2 --batch-size 256 \
    --fanout 10,5 --prepro serial --json --quiet 2>&1)
rc=$?
order=$($PY -c "import json, sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])['dkp'][0]['order'])" <<<"$out" 2>/dev/null)
[ "$rc" -eq 0 ] && [ "$order" = aggregation-first ] && ok "serial sampled run, DKP reordering for the blocks: layer 0 $order" \
    || bad "serial sampled run with a DKP reorder: exit $rc: $(tail -2 <<<"$out")"
finish
