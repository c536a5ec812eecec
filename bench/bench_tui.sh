#!/usr/bin/env bash
# bench_tui.sh - epoch time with the workbench drawing at 10 Hz in a real
# terminal (tmux) against `gnnscope train` on the same settings, side by
# side, alternated ROUNDS times. Bar: TUI epoch time <= 1.05x train.
# Usage: bench/bench_tui.sh [WORKDIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-${TMPDIR:-/tmp}/gnnscope-bench}
rounds=${ROUNDS:-3}
epochs=${EPOCHS:-40}
cd "$root"
make -s gnnscope >/dev/null
mkdir -p "$work"
export GNNSCOPE_CACHE_DIR="$work/cache"
args=(--devices 2 --topology pcie-4gpu-2switch --device-mem 96K --multidev naive)
sock="gnnscope-bench-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null' EXIT
tui=() train=()
for r in $(seq "$rounds"); do
    rm -f "$work/tui.csv" "$work/tui.done"
    tmux -L "$sock" new-session -d -s b -x 120 -y 40 \
        "./gnnscope tui ${args[*]} --max-epochs $epochs --metrics $work/tui.csv; touch $work/tui.done"
    for _ in $(seq 600); do [ -f "$work/tui.done" ] && break; sleep 0.2; done
    tui+=("$(/usr/bin/python3 -c "import csv,statistics,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(statistics.median(float(x['epoch_ms']) for x in r))" "$work/tui.csv")")
    train+=("$(./gnnscope train "${args[@]}" --epochs "$epochs" --profile on --json | tail -n 1 | /usr/bin/python3 -c "import json,sys; print(json.loads(sys.stdin.read())['epoch_ms_median'])")")
done
/usr/bin/python3 - "${tui[*]}" "${train[*]}" <<'PY'
import statistics, sys
t = statistics.median(map(float, sys.argv[1].split()))
r = statistics.median(map(float, sys.argv[2].split()))
print(f"epoch time: tui {t:.2f} ms, train {r:.2f} ms (medians of per-run medians); ratio {t/r:.3f} (bar <= 1.05): "
      f"{'PASS' if t / r <= 1.05 else 'FAIL'}")
sys.exit(0 if t / r <= 1.05 else 1)
PY
