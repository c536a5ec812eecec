#!/usr/bin/env bash
# gpu_batch.sh - issue 32's GPU batch in one command, for the sessions
# that are lent a GPU (device time is scarce: one call does everything and
# leaves its evidence in OUTDIR). Run by hand on the GPU machine; a
# machine without a GPU skips it (exit 77). Steps, each under a "== step"
# header:
#   1. make test-gpu: every op against the CPU reference, 5-epoch losses
#      against the cpu backend in memory and streamed, CUPTI spans;
#   2. compute-sanitizer memcheck and racecheck on each GPU test binary;
#   3. a streamed GPU run with a trace (CUPTI spans tagged with chunks),
#      its JSON, and a tmux capture of the workbench on the GPU;
#   4. bench/bench_gpu_pyg.sh: speed against torch-geometric's GCNConv and
#      the out-of-core run at a quarter of the working set (needs
#      `make bench-deps`; NODES, DEGREE as there);
#   5. calibration: the same streamed configuration on the virtual clock
#      (roofline kernels) and on the GPU, epoch times side by side
#      (gnnscope compare).
# Usage: scripts/gpu_batch.sh [OUTDIR]   (default $OUT, else /tmp/gpu-batch)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=${1:-${OUT:-/tmp/gpu-batch}}
mkdir -p "$out"
export GNNSCOPE_CACHE_DIR="$out/cache"
log() { echo; echo "== $*"; }
status=0
step() { # step NAME CMD...: runs CMD, its output into OUTDIR/NAME.log and on screen; a failure is remembered
    local name=$1
    shift
    log "$name: $*"
    "$@" 2>&1 | tee "$out/$name.log"
    local rc=${PIPESTATUS[0]}
    echo "-- $name: exit $rc"
    [ "$rc" -eq 0 ] || status=1
}
make -s gnnscope plugin >/dev/null || { echo "build failed"; exit 1; }
if ! ./gnnscope train --backend cuda --epochs 1 --quiet >/dev/null 2>"$out/probe.err"; then
    echo "skipped: no GPU answers ($(cat "$out/probe.err"))"
    exit 77
fi
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
step test-gpu make test-gpu
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in build/tests/gpu/test_gpu_*; do
    step "memcheck-$(basename "$t")" "$san" --tool memcheck --error-exitcode 1 "$t"
    step "racecheck-$(basename "$t")" "$san" --tool racecheck --error-exitcode 1 "$t"
done
streamed=(--backend cuda --devices 2 --chunks 8 --subchunks 2 --selective on --epochs 5)
step streamed ./gnnscope train "${streamed[@]}" --trace "$out/streamed.trace.json" --json
tail -n 1 "$out/streamed.log" >"$out/streamed.json"
if command -v tmux >/dev/null; then
    log "workbench: tmux capture at 120x40"
    tmux -L gpu-batch new-session -d -s w -x 120 -y 40 "./gnnscope --backend cuda --devices 2 --chunks 8; sleep 60"
    sleep 20
    tmux -L gpu-batch capture-pane -p -t w | tee "$out/workbench.txt"
    tmux -L gpu-batch kill-server
fi
step pyg bench/bench_gpu_pyg.sh "$out/pyg"
emulated=(--devices 2 --chunks 8 --subchunks 2 --selective on --epochs 5 --clock virtual --kernel-time roofline)
step emulated ./gnnscope train "${emulated[@]}" --json
tail -n 1 "$out/emulated.log" >"$out/emulated.json"
step calibration ./gnnscope compare "$out/emulated.json" "$out/streamed.json"
log "done: evidence in $out (status $status)"
exit $status
