#!/usr/bin/env bash
# bench_simulate.sh - what --simulate buys (issue: the papers' machines,
# paper-scale what-ifs): on a 150K-vertex, 1.5M-edge graph (128 features,
# hidden 128, 2 emulated devices, 3 epochs) the real and the simulated run
# in one go, their wall times and peak memory, and whether their emulated
# epoch times agree; then NeuGraph's amazon shape on neugraph-8xp100 (8
# devices, GCN hidden 128, 2 epochs) simulated at growing scales, the wall
# time and peak RSS of each, which extrapolate to the full shape.
# Bars: simulated at least 5x faster in wall time; equal epoch times.
# Usage: bench/bench_simulate.sh [SCALES] (default "0.02 0.05 0.1")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
make -s gnnscope >/dev/null
G=./gnnscope
D=gen:nodes=150000,degree=10,feats=128,seed=5
"$G" train --dataset "$D" --epochs 0 --quiet >/dev/null 2>&1 # the real run reads the cached graph, as a user's would
run() {
    local t0 t1 json
    t0=$(date +%s.%N)
    json=$("$G" train --dataset "$D" --epochs 3 --devices 2 --device-mem 64M --hidden 128 --json "$@" 2>/dev/null | tail -n 1)
    t1=$(date +%s.%N)
    python3 -c "import json,sys; d=json.loads(sys.argv[1]); print('%.2f %.6f %.0f' % ($t1 - $t0, d['epoch_ms_median'], d['peak_rss_bytes'] / 1e6))" "$json"
}
read -r rw re rm <<<"$(run)"
read -r sw se sm <<<"$(run --simulate)"
echo "150K vertices, 1.5M edges: real $rw s (epoch $re ms emulated, peak $rm MB); simulated $sw s (epoch $se ms, peak $sm MB)"
python3 - "$rw" "$sw" "$re" "$se" <<'PYEOF'
import sys
rw, sw, re_, se = map(float, sys.argv[1:])
speed, diff = rw / sw, abs(re_ - se) / re_
print("wall speedup %.1fx (bar >= 5): %s; epoch times differ by %.1e (bar <= 1e-6): %s"
      % (speed, "PASS" if speed >= 5 else "FAIL", diff, "PASS" if diff <= 1e-6 else "FAIL"))
PYEOF
for s in ${1:-0.02 0.05 0.1}; do
    /usr/bin/time -f "%e %M" -o /tmp/gnnscope-sim-time "$G" train --dataset "gen:like=amazon,scale=$s" --model gcn --hidden 128 \
        --topology neugraph-8xp100 --devices 8 --simulate --epochs 2 --quiet >/tmp/gnnscope-sim-out 2>&1
    read -r wall kb </tmp/gnnscope-sim-time
    echo "amazon x $s on neugraph-8xp100, 8 devices, simulated: $wall s wall, peak RSS $((kb / 1024)) MB; $(tail -n 1 /tmp/gnnscope-sim-out)"
done
