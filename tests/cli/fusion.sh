#!/usr/bin/env bash
# fusion.sh - --fuse end to end (NeuGraph §3.4 as a program transform):
# every model trains the same losses in plain SAGA-NN form and fused (within
# 1e-5), in memory, streamed through emulated devices and across MPI ranks;
# the JSON says what the pass did and the edge tensors before and after;
# `set fuse on` in a script rebuilds the program at the next epoch boundary
# and the loss trajectory carries on unchanged; bad values are refused with
# one line, a bad `set` in a script with its file and line. (The effect size is demos.sh's and bench/bench_fusion.py's.)
source "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GNNSCOPE_CACHE_DIR=${GNNSCOPE_CACHE_DIR:-$tmp/cache}
# G-GCN on a 32-feature graph: on Cora its gate is 1433 wide, and its plain
# program's 1433 x 1433 products on every edge take seconds an epoch; with
# row-normalised features, since its unnormalised sums over a generated
# graph's hubs start the loss near 100 otherwise
g="gen:nodes=3000,degree=20,feats=32,classes=4,seed=3"
for model in gcn gin commnet gat ggcn mpgcn ggnn resgcn; do
    data=cora norm=auto
    [ "$model" = ggcn ] && data=$g norm=row
    for f in on off; do
        "$BIN" train --dataset "$data" --feat-norm "$norm" --model "$model" --epochs 5 --fuse "$f" --metrics "$tmp/$model-$f.csv" --json \
            >"$tmp/$model-$f.json" 2>"$tmp/err" || bad "$model --fuse $f: $(cat "$tmp/err")"
    done
    same_losses "$tmp/$model-on.csv" "$tmp/$model-off.csv" 1e-5 && ok "$model: plain and fused train the same losses ($(losses "$tmp/$model-on.csv"))" \
        || bad "$model: fused $(losses "$tmp/$model-on.csv") / plain $(losses "$tmp/$model-off.csv")"
done
$PY - "$tmp/ggcn-on.json" "$tmp/ggcn-off.json" "$tmp/gat-on.json" "$tmp/gcn-on.json" "$tmp/ggnn-on.json" "$tmp/mpgcn-on.json" <<'PYEOF' \
    && ok "JSON: G-GCN fused hoists 4 products into 2 fused gathers and allocates no edge tensor; GAT sums its scores; GCN's and GG-NN's gathers are plain and typed; MP-GCN's max over edges is the vertex max" \
    || bad "fusion JSON"
import json, sys
on, off, gat, gcn, ggnn, mp = (json.loads(open(f).read().strip().splitlines()[-1])["fusion"] for f in sys.argv[1:7])
assert on == {"fuse": "on", "hoisted": 4, "fused": 2, "summed": 0, "edge_bytes_plain": on["edge_bytes_plain"], "edge_bytes": 0}, on
assert mp["hoisted"] == 4 and mp["fused"] == 2 and mp["edge_bytes"] == 0 < mp["edge_bytes_plain"], mp
assert on["edge_bytes_plain"] > 1e7 and off["edge_bytes"] == off["edge_bytes_plain"] == on["edge_bytes_plain"], (on, off)
assert off["hoisted"] == off["fused"] == 0, off
assert gat["hoisted"] == 4 and gat["summed"] == 2 and 0 < gat["edge_bytes"] < gat["edge_bytes_plain"], gat
assert gcn["fused"] == 2 and gcn["edge_bytes"] == 0, gcn
assert ggnn["hoisted"] == 2 and ggnn["fused"] == 2 and ggnn["edge_bytes"] == 0 < ggnn["edge_bytes_plain"], ggnn
PYEOF
for f in on off; do
    "$BIN" train --dataset "$g" --model ggcn --feat-norm row --devices 2 --topology nvlink-4 --chunks 4 --epochs 4 --fuse "$f" \
        --metrics "$tmp/stream-$f.csv" >/dev/null 2>"$tmp/err" || bad "streamed --fuse $f: $(cat "$tmp/err")"
done
"$BIN" train --dataset "$g" --model ggcn --feat-norm row --epochs 4 --metrics "$tmp/memory.csv" >/dev/null 2>&1
same_losses "$tmp/stream-on.csv" "$tmp/stream-off.csv" 1e-5 && same_losses "$tmp/stream-on.csv" "$tmp/memory.csv" 1e-5 \
    && ok "streamed over 2 emulated devices: fused, plain and in-memory G-GCN train the same losses" \
    || bad "streamed: $(losses "$tmp/stream-on.csv") / $(losses "$tmp/stream-off.csv") / $(losses "$tmp/memory.csv")"
if command -v mpirun >/dev/null; then
    for f in on off; do
        "$BIN" train --dataset "$g" --model ggcn --feat-norm row --ranks 2 --epochs 3 --fuse "$f" --metrics "$tmp/dist-$f.csv" >/dev/null \
            2>"$tmp/err" || bad "--ranks 2 --fuse $f: $(cat "$tmp/err")"
    done
    "$BIN" train --dataset "$g" --model ggcn --feat-norm row --epochs 3 --metrics "$tmp/one.csv" >/dev/null 2>&1
    same_losses "$tmp/dist-on.csv" "$tmp/dist-off.csv" 1e-5 && same_losses "$tmp/dist-on.csv" "$tmp/one.csv" 1e-5 \
        && ok "2 MPI ranks: fused and plain G-GCN train the single process's losses" \
        || bad "ranks: $(losses "$tmp/dist-on.csv") / $(losses "$tmp/dist-off.csv") / $(losses "$tmp/one.csv")"
fi
printf 'wait epochs 2\nset fuse on\nwait epochs 3\n' >"$tmp/switch.gs"
"$BIN" --script "$tmp/switch.gs" --dataset "$g" --model ggcn --feat-norm row --fuse off --max-epochs 5 --metrics "$tmp/live.csv" >"$tmp/live.out" 2>&1
"$BIN" train --dataset "$g" --model ggcn --feat-norm row --epochs 5 --metrics "$tmp/fused5.csv" >/dev/null 2>&1
$PY - "$tmp/live.csv" <<'PYEOF' && same_losses "$tmp/live.csv" "$tmp/fused5.csv" 1e-5 \
    && ok "set fuse on while training: the edge tensors go at an epoch boundary and the losses carry on unchanged" \
    || bad "live switch: $(tail -3 "$tmp/live.out"); losses $(losses "$tmp/live.csv") / $(losses "$tmp/fused5.csv")"
import csv, sys
eb = [float(r["edge_bytes"]) for r in csv.DictReader(open(sys.argv[1]))]
assert len(eb) == 5 and eb[0] > 1e7 and eb[-1] == 0 and eb == sorted(eb, reverse=True), eb
PYEOF
expect_fail 2 "--fuse: 'maybe' is not valid (expected off|on)" -- "$BIN" train --fuse maybe
expect_fail 2 "--fuse" -- "$BIN" train --fuse
printf 'set fuse sometimes\n' >"$tmp/bad.gs"
expect_fail 2 "bad.gs:1: set fuse: 'sometimes' is not valid (expected off|on)" -- "$BIN" --script "$tmp/bad.gs" --max-epochs 1
finish
