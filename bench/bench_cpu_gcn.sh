#!/usr/bin/env bash
# bench_cpu_gcn.sh - gnnscope against the PyTorch CPU peer, side by side in
# one run, on the same generated OGB directory (issue: foundation).
#   graph: 100K vertices, avg degree 20 (2.1M directed edges with self-loops),
#          128 features, 16 planted classes
#   model: GCN, 2 layers, hidden 128, dropout 0.5, Adam lr 0.01 wd 5e-4
#   both sides on THREADS (default 2) threads, EPOCHS (default 20) epochs
# Bar: gnnscope's median epoch time <= 0.5x the peer's. Also reports the
# achieved GFLOP/s against the sgemm rate measured here, and peak RSS.
# Usage: bench/bench_cpu_gcn.sh [WORKDIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-${TMPDIR:-/tmp}/gnnscope-bench}
threads=${THREADS:-2}
epochs=${EPOCHS:-20}
nodes=${NODES:-100000}
mkdir -p "$work"
cd "$root"
scripts/deps.sh --bench # the PyTorch peer
make -s gnnscope >/dev/null
export GNNSCOPE_CACHE_DIR="$work/cache"
g="$work/gen-$nodes"
[ -f "$g/node-label.csv.gz" ] || ./gnnscope gen --nodes "$nodes" --avg-degree 20 --feats 128 --classes 16 --seed 1 --out "$g"
cc -O2 -o "$work/sgemm_rate" bench/sgemm_rate.c -lopenblas
./gnnscope train --dataset "$g" --epochs 1 --quiet >/dev/null # fills the binary cache
args=(--model gcn --layers 2 --hidden 128 --dropout 0.5 --lr 0.01 --weight-decay 5e-4 --epochs "$epochs" --threads "$threads")
ours=$(./gnnscope train --dataset "$g" "${args[@]}" --json | tail -n 1)
peer=$(/usr/bin/python3 bench/peer_gcn.py "$g" --epochs "$epochs" --threads "$threads" --hidden 128)
sgemm=$("$work/sgemm_rate" "$nodes" 128 128 "$threads")
/usr/bin/python3 - "$ours" "$peer" "$sgemm" <<'PY'
import json, sys
o, p, s = json.loads(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3])
ratio = o["epoch_ms_median"] / p["epoch_ms_median"]
print(f"graph: {o['nodes']} nodes, {o['edges']} directed edges (self-loops included), {o['features']} features")
print(f"gnnscope : epoch {o['epoch_ms_median']:8.1f} ms  eval {o['eval_ms_median']:7.1f} ms  test_acc {o['test_acc']:.3f}  "
      f"peak RSS {o['peak_rss_bytes']/2**20:7.0f} MiB  {o['gflops']:.1f} GFLOP/s")
print(f"pytorch  : epoch {p['epoch_ms_median']:8.1f} ms  eval {p['eval_ms_median']:7.1f} ms  test_acc {p['test_acc']:.3f}  "
      f"peak RSS {p['peak_rss_bytes']/2**20:7.0f} MiB  (torch {p['torch']})")
print(f"sgemm ceiling on this machine: {s:.1f} GFLOP/s; gnnscope achieves {100*o['gflops']/s:.0f}% of it over a whole epoch")
print(f"epoch-time ratio gnnscope/pytorch: {ratio:.3f} (bar <= 0.5): {'PASS' if ratio <= 0.5 else 'FAIL'}")
sys.exit(0 if ratio <= 0.5 else 1)
PY
