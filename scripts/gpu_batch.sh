#!/usr/bin/env bash
# gpu_batch.sh - issue 32's GPU batch in one command, for the sessions
# that are lent a GPU (device time is scarce: one call does everything, each
# step under its own time limit, and leaves its evidence in OUTDIR). A
# machine without a GPU skips it (exit 77). With .dev/gpu-bundle.tar.xz
# (scripts/gpu_bundle.sh, carried in the call) nothing is built there.
# Steps, each under a "== step" header, logs in OUTDIR/STEP.log:
#   gen        (in the background from the start) the benchmark's graph;
#   sanitizers (in the background) compute-sanitizer memcheck on each GPU
#              test binary, racecheck on those with shared-memory kernels;
#   test-gpu   every op against the CPU reference, 5-epoch losses against
#              the cpu backend in memory and streamed, CUPTI spans;
#   overhead   (not by default) a streamed Cora run untraced, traced, and
#              in fewer chunks: where a streamed epoch's time goes;
#   streamed   a streamed GPU run with a trace (CUPTI spans tagged with
#              chunks) and its JSON; then a tmux capture of the workbench;
#   calibration the same streamed configuration on the virtual clock
#              (roofline kernels, CAL_TOPOLOGY: h200-pcie5) beside the GPU's;
#   big-*      the benchmark's graph in GPU memory, traced, beside the same
#              run simulated on CAL_TOPOLOGY: per-op times (bench/trace_ops.py);
#   peaks      the GPU's measured ceilings (torch): device-to-device copy
#              bandwidth (bytes read + written), pinned H2D bandwidth;
#   pyg        bench/bench_gpu_pyg.sh PART=ours: gnnscope in GPU memory,
#              then out of core at a quarter of the working set (NODES,
#              DEGREE, EPOCHS as there); ooc-ops: its time per op;
#   peer       PART=peer: torch-geometric's GCNConv on the same graph, last
#              (the slowest: its loader parses the CSVs);
#   oocsan     (not by default) pyg's out-of-core configuration under
#              compute-sanitizer memcheck, OOC_SAN_NODES vertices;
#   ooccheck   (not by default) the same with GNNSCOPE_CUDA_CHECK=1: every
#              H2D read back and compared, every chunk gather's indices
#              checked before it runs (cuda/check_calls.cu; slow).
# STEPS="tests san streamed workbench pyg big peer" (the default) picks steps.
# Ends with one line per step: name, exit status, seconds; with PACK=FILE,
# every log and trace is packed into that one tar.gz (a device call brings
# back few files), also when the batch is stopped by a signal.
# Usage: scripts/gpu_batch.sh [OUTDIR]   (default $OUT, else /tmp/gpu-batch)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=${1:-${OUT:-/tmp/gpu-batch}}
mkdir -p "$out"
work=${GPU_BATCH_WORK:-/tmp/gpu-batch-work}
mkdir -p "$work"
export GNNSCOPE_CACHE_DIR="$work/cache" GNNSCOPE_PY=${GNNSCOPE_PY:-python3} PYTHONUNBUFFERED=1
export NODES=${NODES:-1000000} DEGREE=${DEGREE:-25} EPOCHS=${EPOCHS:-10}
export GNNSCOPE_DATA="$root/datasets" # the shipped datasets, wherever the binaries were built
steps=" ${STEPS:-tests san streamed workbench pyg big peer} "
want() { [[ $steps == *" $1 "* ]]; }
summary=()
status=0
pack() { [ -n "${PACK:-}" ] && tar -czf "$PACK" -C "$(dirname "$out")" "$(basename "$out")" 2>/dev/null; }
trap pack EXIT
trap 'exit 143' TERM INT
step() { # step NAME LIMIT_S CMD...: runs CMD under a time limit, output into OUTDIR/NAME.log and on screen
    local name=$1 limit=$2 t0=$SECONDS
    shift 2
    echo
    echo "== $name: $*"
    if declare -F "$1" >/dev/null; then # a function of this script: timeout runs programs only
        export -f "$1"
        set -- bash -c '"$@"' "$1" "$@"
    fi
    timeout -k 5 "$limit" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    tail -n 40 "$out/$name.log"
    echo "-- $name: exit $rc ($((SECONDS - t0)) s)"
    summary+=("$(printf '%-34s exit %3d %5d s' "$name" "$rc" $((SECONDS - t0)))")
    [ "$rc" -eq 0 ] || status=1
}
if [ -f .dev/gpu-bundle.tar.xz ]; then
    tar -xJf .dev/gpu-bundle.tar.xz -C "$root" || exit 1
    export LD_LIBRARY_PATH="$root/.dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PATH="$root/.dev/bin:$PATH"
else
    make -s gnnscope plugin >/dev/null || { echo "build failed"; exit 1; }
fi
export GNNSCOPE_CUDA_PLUGIN="$root/build/libgnnscope_cuda.so"
if ldd "$GNNSCOPE_CUDA_PLUGIN" | grep -q "not found"; then # CUDA's libraries where this machine keeps them
    for d in $(find /usr/local /opt /usr/lib -name 'libcublas*.so.13' -o -name 'libcupti.so.13' 2>/dev/null | xargs -r -n1 dirname | sort -u); do
        LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
    done
fi
ldd "$GNNSCOPE_CUDA_PLUGIN" >"$out/ldd.txt" 2>&1
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
if ! ./gnnscope train --backend cuda --epochs 1 --quiet >/dev/null 2>"$out/probe.err"; then
    echo "skipped: no GPU answers ($(cat "$out/probe.err"))"
    cat "$out/ldd.txt"
    exit 77
fi
g="$work/pyg/gen-$NODES-$DEGREE"
mkdir -p "$work/pyg"
(./gnnscope gen --nodes "$NODES" --avg-degree "$DEGREE" --feats 128 --classes 16 --seed 1 --out "$g" --force >"$out/gen.log" 2>&1; echo "gen exit $?" >>"$out/gen.log") &
gen_pid=$!
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
sanitize() { # sanitize TOOL BINARY: one compute-sanitizer run, its log in OUTDIR
    local log="$out/san-$1-$(basename "$2").log" quiet=()
    # the errors test provokes failing CUDA calls on purpose: memory accesses are checked, those calls not reported
    [[ $2 == *test_gpu_errors ]] && quiet=(--report-api-errors no)
    timeout -k 5 "${SAN_LIMIT:-240}" "$san" --tool "$1" "${quiet[@]}" --error-exitcode 1 "$2" >"$log" 2>&1
    echo "exit $?" >>"$log"
}
export -f sanitize
export san out
want san && (ls build/tests/gpu/test_gpu_* | grep -v '\.d$' | sed 's/^/memcheck /'
 printf 'racecheck %s\n' build/tests/gpu/test_gpu_sparse build/tests/gpu/test_gpu_dense build/tests/gpu/test_gpu_stream) |
    xargs -P 6 -L 1 bash -c 'sanitize "$0" "$1"' &
san_pid=$!
want tests && step test-gpu 300 tests/run.sh build gpu
wait "$san_pid" # what follows is timed: the sanitizers' runs (6 at once) slowed a streamed Cora epoch 7x
streamed=(--backend cuda --devices 1 --chunks 8 --subchunks 2 --selective on --epochs 5)
want streamed && step streamed 90 ./gnnscope train "${streamed[@]}" --trace "$out/streamed.trace.json" --json
tail -n 1 "$out/streamed.log" >"$out/streamed.json"
if want workbench && command -v tmux >/dev/null; then
    echo "== workbench: tmux capture at 120x40"
    # each metrics window logged (on an H200 the CUPTI lines read 0 until the metrics flushed CUPTI themselves)
    tmux -L gpu-batch new-session -d -s w -x 120 -y 40 "GNNSCOPE_CUPTI_TRACE=$out/cupti-window.log ./gnnscope --backend cuda; sleep 60"
    sleep 12
    tmux -L gpu-batch capture-pane -p -t w | tee "$out/workbench.txt"
    sleep 4 # a second frame: the CUPTI lines move with the run
    tmux -L gpu-batch capture-pane -p -t w >"$out/workbench-later.txt"
    tmux -L gpu-batch kill-server
fi
emulated=(--devices 1 --chunks 8 --subchunks 2 --selective on --epochs 5 --clock virtual --kernel-time roofline --topology "${CAL_TOPOLOGY:-h200-pcie5}")
# where a streamed GPU epoch's time goes: the same run untraced, traced, and with 4x fewer chunks
overhead() {
    for v in "--chunks 8" "--chunks 8 --trace /tmp/overhead.trace.json" "--chunks 2" "--chunks 2 --subchunks 1 --pipeline off"; do
        # shellcheck disable=SC2086
        ./gnnscope train --backend cuda --devices 1 $v --selective on --epochs 5 --json --quiet | tail -n 1 |
            python3 -c "import json,sys; d=json.load(sys.stdin); print('$v:', 'epochs ms', [round(x, 1) for x in d['epochs_ms']], 'h2d', d['h2d_bytes'], 'busy', d.get('gpu_measured', {}).get('busy'))"
    done
}
want overhead && step overhead 60 overhead
want streamed && step emulated 90 ./gnnscope train "${emulated[@]}" --json
tail -n 1 "$out/emulated.log" >"$out/emulated.json"
want streamed && step calibration 30 ./gnnscope compare "$out/emulated.json" "$out/streamed.json"
for f in $(ls "$out"/san-*.log 2>/dev/null); do
    summary+=("$(printf '%-34s %s' "$(basename "$f" .log)" "$(tail -n 1 "$f")  $(grep -m1 -E 'ERROR SUMMARY|error' "$f")")")
    tail -n 1 "$f" | grep -q "exit 0" || status=1
done
wait "$gen_pid"
tail -n 2 "$out/gen.log"
want pyg && step peaks 60 python3 -c "
import torch
d = torch.empty(1 << 28, dtype=torch.float32, device='cuda'); e = torch.empty_like(d)
h = torch.empty(1 << 28, dtype=torch.float32).pin_memory()
def rate(f, nbytes):
    for _ in range(3): f()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(10): f()
    b.record(); torch.cuda.synchronize()
    return 10 * nbytes / (a.elapsed_time(b) / 1e3) / 1e9
print(f'device copy {rate(lambda: e.copy_(d), 2 * d.numel() * 4):.0f} GB/s (read + written)')
print(f'pinned H2D {rate(lambda: d.copy_(h, non_blocking=True), h.numel() * 4):.1f} GB/s')"
want pyg && PART=ours OOC_TRACE="$out/ooc.trace.json" step pyg "${PYG_LIMIT:-240}" bench/bench_gpu_pyg.sh "$work/pyg"
want pyg && step ooc-ops 60 python3 bench/trace_ops.py "$out/ooc.trace.json" 5
if want big; then # per-op calibration on the benchmark's graph (its cache now built by pyg)
    big=(--dataset "$g" --model gcn --layers 2 --hidden 256 --epochs 3 --profile on)
    step big-traced 150 ./gnnscope train "${big[@]}" --backend cuda --trace "$out/big-gpu.trace.json" --json
    step big-simulated 120 ./gnnscope train "${big[@]}" --simulate --topology "${CAL_TOPOLOGY:-h200-pcie5}" \
        --trace "$out/big-sim.trace.json" --json
    step big-ops 60 python3 bench/trace_ops.py "$out/big-sim.trace.json" "$out/big-gpu.trace.json" 3
fi
want peer && PART=peer step peer "${PEER_LIMIT:-300}" bench/bench_gpu_pyg.sh "$work/pyg"
# the out-of-core configuration of pyg (a quarter of the working set), one epoch, on a graph made in memory (OOC_SAN_NODES vertices)
ooc_run() {
    local n=${OOC_SAN_NODES:-2000000}
    "$@" ./gnnscope train --dataset "gen:nodes=$n,degree=$DEGREE,feats=128,classes=16,seed=1" --model gcn --layers 2 --hidden 256 \
        --dropout 0.5 --epochs 1 --backend cuda --device-mem $((n * 256 * 3)) --chunks auto --order metis --json --quiet
}
# no launch timeout: the graph and its METIS order take minutes before CUDA starts (the default 10 s gave "No attachable process found")
oocsan() { ooc_run "$san" --tool memcheck --launch-timeout 0 --print-limit 4 --error-exitcode 1; }
ooccheck() { ooc_run env GNNSCOPE_CUDA_CHECK=1; }
export -f ooc_run
want oocsan && step ooc-memcheck "${OOC_SAN_LIMIT:-400}" oocsan
want ooccheck && step ooc-check "${OOC_SAN_LIMIT:-400}" ooccheck
echo
echo "== summary ($out)"
printf '%s\n' "${summary[@]}"
exit $status
