#!/usr/bin/env bash
# bench_profiler.sh - the cost of recording profiler events: the same
# streamed GCN run (100K-vertex graph, 2 emulated devices, P = 8) with the
# profiler on and off, alternated ROUNDS times; compares the medians of the
# per-run median epoch times. Bar: recording costs <= 3% of the epoch time.
# Usage: bench/bench_profiler.sh [WORKDIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-${TMPDIR:-/tmp}/gnnscope-bench}
rounds=${ROUNDS:-3}
cd "$root"
make -s gnnscope >/dev/null
export GNNSCOPE_CACHE_DIR="$work/cache"
g="$work/gen-100000"
[ -f "$g/node-label.csv.gz" ] || ./gnnscope gen --nodes 100000 --avg-degree 20 --feats 128 --classes 16 --seed 1 --out "$g"
args=(--dataset "$g" --hidden 128 --epochs 5 --devices 2 --topology pcie-4gpu-2switch --chunks 8 --link-scale 4 --json)
on=() off=()
for _ in $(seq "$rounds"); do
    off+=("$(./gnnscope train "${args[@]}" --profile off | tail -n 1)")
    on+=("$(./gnnscope train "${args[@]}" --profile on | tail -n 1)")
done
/usr/bin/python3 - "${#on[@]}" "${on[@]}" "${off[@]}" <<'PY'
import json, statistics, sys
n = int(sys.argv[1])
on = [json.loads(x) for x in sys.argv[2:2 + n]]
off = [json.loads(x) for x in sys.argv[2 + n:]]
m_on = statistics.median(r["epoch_ms_median"] for r in on)
m_off = statistics.median(r["epoch_ms_median"] for r in off)
cost = m_on / m_off - 1
ev = on[0]["profile_events"] / on[0]["epochs"]
print(f"profiler off: {m_off:.1f} ms/epoch; on: {m_on:.1f} ms/epoch ({ev:.0f} events/epoch, "
      f"{on[0]['profile_dropped']} dropped); cost {100*cost:+.1f}% (bar <= 3%): {'PASS' if cost <= 0.03 else 'FAIL'}")
sys.exit(0 if cost <= 0.03 else 1)
PY
