#!/usr/bin/env bash
# bench_cache.sh - reload time of a large graph from the binary dataset
# cache, against parsing the OGB .csv.gz files. Bar: well under one second
# per million edges (we require < 250 ms per million directed edges).
# Usage: bench/bench_cache.sh [WORKDIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-${TMPDIR:-/tmp}/gnnscope-bench}
nodes=${NODES:-100000}
cd "$root"
make -s gnnscope >/dev/null
export GNNSCOPE_CACHE_DIR="$work/cache"
g="$work/gen-$nodes"
[ -f "$g/node-label.csv.gz" ] || ./gnnscope gen --nodes "$nodes" --avg-degree 20 --feats 128 --classes 16 --seed 1 --out "$g"
parse=$(./gnnscope train --dataset "$g" --epochs 0 --no-cache --json | tail -n 1)
./gnnscope train --dataset "$g" --epochs 0 --quiet >/dev/null # writes the cache
cached=$(./gnnscope train --dataset "$g" --epochs 0 --json | tail -n 1)
/usr/bin/python3 - "$parse" "$cached" <<'PY'
import json, sys
p, c = json.loads(sys.argv[1]), json.loads(sys.argv[2])
me = c["edges"] / 1e6
per = c["load_ms"] / me
print(f"{c['nodes']} nodes, {c['edges']} directed edges, {c['features']} features")
print(f"parse .csv.gz: {p['load_ms']:.0f} ms; binary cache: {c['load_ms']:.1f} ms = {per:.1f} ms per million edges; "
      f"CSR/CSC build {c['graph_ms']:.0f} ms")
print(f"cache reload bar (< 250 ms per million edges): {'PASS' if per < 250 else 'FAIL'}")
sys.exit(0 if per < 250 else 1)
PY
