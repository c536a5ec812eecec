#!/usr/bin/env bash
# bench_gpu_pyg.sh - gnnscope's cuda backend against torch-geometric's
# GCNConv on the same GPU and graph, side by side in one run (issue: CUDA).
#   graph: generated power-law, NODES vertices (default 2M), DEGREE directed
#          edges per vertex (default 25), 128 features, 16 classes
#   model: GCN, 2 layers, hidden 256, dropout 0.5, Adam lr 0.01, full batch
# Bar: gnnscope's median epoch time <= 0.5x PyG's.
# Out of core first: --device-mem at 25% of N x 256 x 4 x 3 bytes (three hidden-width tensors),
# epoch time against max(H2D bytes / measured H2D bandwidth, in-memory epoch).
# PART=ours runs gnnscope alone (in memory, then out of core); PART=peer the
# peer alone, against the ours.json a PART=ours run left in WORKDIR (so a
# batch can put other steps between them); the default runs both.
# OOC_TRACE=FILE traces the out-of-core run.
# Usage: bench/bench_gpu_pyg.sh [WORKDIR]   (python: $GNNSCOPE_PY)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-${TMPDIR:-/tmp}/gnnscope-gpu-bench}
nodes=${NODES:-2000000}
degree=${DEGREE:-25}
epochs=${EPOCHS:-20}
py=${GNNSCOPE_PY:-python3}
mkdir -p "$work"
cd "$root"
export GNNSCOPE_CACHE_DIR="$work/cache"
g="$work/gen-$nodes-$degree"
[ -f "$g/node-label.csv.gz" ] || ./gnnscope gen --nodes "$nodes" --avg-degree "$degree" --feats 128 --classes 16 --seed 1 --out "$g"
args=(--dataset "$g" --model gcn --layers 2 --hidden 256 --dropout 0.5 --lr 0.01 --weight-decay 5e-4 --epochs "$epochs")
part=${PART:-all}
if [ "$part" != peer ]; then
ours=$(./gnnscope train "${args[@]}" --backend cuda --json --quiet | tail -n 1)
echo "$ours" >"$work/ours.json"
# out of core: the pinned H2D bandwidth of this machine, then a streamed run at a quarter of the memory
bw=$($py -c "
import torch, time
x = torch.empty(1 << 28, dtype=torch.float32).pin_memory(); y = torch.empty_like(x, device='cuda')
for _ in range(3): y.copy_(x, non_blocking=True)
torch.cuda.synchronize(); t = time.perf_counter()
for _ in range(10): y.copy_(x, non_blocking=True)
torch.cuda.synchronize(); print(10 * x.numel() * 4 / (time.perf_counter() - t))")
ws=$(( nodes * 256 * 4 * 3 ))
cap=$(( ws / 4 ))
ooc=$(./gnnscope train "${args[@]}" --epochs 5 --backend cuda --device-mem "$cap" --chunks auto --order metis \
    ${OOC_TRACE:+--trace "$OOC_TRACE"} --json --quiet | tail -n 1)
echo "$ooc" >"$work/ooc.json"
$py - "$ours" "$ooc" "$bw" "$cap" <<'PY'
import json, sys
o, s, bw, cap = json.loads(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
epoch = s["epoch_ms_median"] / 1e3
floor = max(s["h2d_bytes"] / bw, o["epoch_ms_median"] / 1e3)
print(f"out of core: cap {cap/2**20:.0f} MiB per device, {s['chunks']} chunks, H2D {s['h2d_bytes']/1e9:.2f} GB per epoch "
      f"at {bw/1e9:.1f} GB/s measured; epoch {1e3*epoch:.1f} ms vs 1.3 x max(transfer, in-memory) = {1.3e3*floor:.1f} ms: "
      f"{'PASS' if epoch <= 1.3 * floor else 'FAIL'}")
n = min(len(o["losses"]), len(s["losses"]))
gap = max(abs(a - b) / abs(a) for a, b in zip(o["losses"][:n], s["losses"][:n]))
print(f"losses, first {n} epochs: in memory {[round(x, 5) for x in o['losses'][:n]]}, out of core "
      f"{[round(x, 5) for x in s['losses'][:n]]}: largest relative gap {gap:.2e}")
PY
fi
# the peer last: the slowest part (its loader parses the CSVs), so a time limit cuts it first
if [ "$part" != ours ]; then
ours=$(cat "$work/ours.json")
peer=$($py bench/peer_pyg.py "$g" --epochs "$epochs" --hidden 256 | tail -n 1)
echo "$peer" >"$work/peer.json"
$py - "$ours" "$peer" <<'PY'
import json, sys
o, p = json.loads(sys.argv[1]), json.loads(sys.argv[2])
r = o["epoch_ms_median"] / p["epoch_ms_median"]
print(f"graph: {o['nodes']} nodes, {o['edges']} directed edges (self-loops included), {o['features']} features; GPU {p['gpu']}")
print(f"gnnscope cuda : epoch {o['epoch_ms_median']:8.2f} ms  eval {o['eval_ms_median']:7.2f} ms  test_acc {o['test_acc']:.3f}  "
      f"layer orders {[d['order'] for d in o['dkp']]}")
print(f"PyG GCNConv   : epoch {p['epoch_ms_median']:8.2f} ms  eval {p['eval_ms_median']:7.2f} ms  test_acc {p['test_acc']:.3f}  "
      f"(torch {p['torch']})")
print(f"epoch-time ratio gnnscope/PyG: {r:.3f} (bar <= 0.5): {'PASS' if r <= 0.5 else 'FAIL'}")
PY
fi
