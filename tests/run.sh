#!/usr/bin/env bash
# run.sh - runs the cmocka binaries and the integration scripts, merging
# stderr into stdout (cmocka prints its summary on stderr), and ends with
# one line: "tests: N passed, M failed".
# A test that exits 77 is counted as skipped (the GPU tests without a GPU).
# Usage: tests/run.sh BUILD_DIR [asan|tsan|gpu]
set -u
build=${1:-build}
mode=${2:-normal}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export GNNSCOPE_CACHE_DIR=${GNNSCOPE_CACHE_DIR:-$(mktemp -d)}
pass=0
fail=0
skip=0
failed=()
run_one() {
    local name=$1
    shift
    local start=$SECONDS rc=0
    echo "=== $name"
    "$@" 2>&1 || rc=$?
    if [ "$rc" -eq 77 ]; then
        skip=$((skip + 1))
        echo "--- $name: SKIPPED ($((SECONDS - start)) s)"
    elif [ "$rc" -eq 0 ]; then
        pass=$((pass + 1))
        echo "--- $name: ok ($((SECONDS - start)) s)"
    else
        fail=$((fail + 1))
        failed+=("$name")
        echo "--- $name: FAILED ($((SECONDS - start)) s)"
    fi
}
if [ "$mode" = gpu ]; then
    export GNNSCOPE_BIN="$root/gnnscope"
    for t in "$build"/tests/gpu/test_*; do
        case "$t" in *.d) continue ;; esac
        run_one "gpu/$(basename "$t")" "$t"
    done
    run_one "gpu/cli_gpu" tests/gpu/cli_gpu.sh
elif [ "$mode" = asan ]; then
    export GNNSCOPE_BIN="$root/gnnscope-asan"
    for t in test_loaders test_kernels test_gradcheck test_linkmodel test_memplan test_partition test_profiler test_streamer \
        test_stream_train; do
        run_one "asan/$t" "$build/tests/$t"
    done
    run_one "asan/cli_errors" tests/cli_errors.sh
    run_one "asan/cli_trace" tests/cli_trace.sh
elif [ "$mode" = tsan ]; then
    export GNNSCOPE_BIN="$root/gnnscope-tsan"
    export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$root/tests/tsan.supp"
    for t in test_session test_streamer test_stream_train test_profiler test_views; do
        run_one "tsan/$t" "$build/tests/$t"
    done
    run_one "tsan/tui_tmux" tests/tui_tmux.sh
    run_one "tsan/cli_trace" tests/cli_trace.sh
    run_one "tsan/tui_attach" tests/tui_attach.sh
    # the pipelined sampled driver prepares the next batch on a second thread while the step runs
    run_one "tsan/sampling_pipelined" "$GNNSCOPE_BIN" train --epochs 3 --batch-size 32 --fanout 5,3 --prepro pipelined
else
    export GNNSCOPE_BIN="$root/gnnscope"
    for t in "$build"/tests/test_*; do
        case "$t" in *.d) continue ;; esac
        run_one "$(basename "$t")" "$t"
    done
    for s in tests/cli_errors.sh tests/cli_limits.sh tests/cli_train.sh tests/cli_trace.sh tests/tui_tmux.sh tests/tui_keys.sh tests/tui_hostile.sh tests/tui_attach.sh tests/dist.sh tests/partitioner.sh tests/fusion.sh tests/sampling.sh tests/demos.sh tests/cora_accuracy.sh; do run_one "$(basename "$s" .sh)" "$s"; done
fi
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
