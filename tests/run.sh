#!/usr/bin/env bash
# run.sh - runs the test suite, merging stderr into stdout (cmocka prints its
# summary on stderr), and ends with one line: "tests: N passed, M failed".
# Tests are found by glob, never listed here:
#   tests/unit/test_*.c  cmocka binaries, built as BUILD_DIR/tests/unit/test_*
#   tests/cli/*.sh, tests/tui/*.sh, tests/dist/*.sh  integration scripts
#   tests/gpu/           the GPU tests (mode gpu)
# and, in a normal run, scripts/arch_check.py (the layout docs/ARCHITECTURE.md
# describes: no include cycles, dependencies downward, bounded sizes).
# A sanitizer run (asan, tsan) takes the tests whose source says so on a
# line "run-under: asan tsan" (a comment). A test that exits 77 is counted
# as skipped (the GPU tests without a GPU).
# Modes cuda-cpu-asan and cuda-cpu-tsan run tests/gpu on the CPU test
# double of the CUDA runtime (make test-cuda-cpu), where a skip is a failure.
# Usage: tests/run.sh BUILD_DIR [asan|tsan|gpu|cuda-cpu-asan|cuda-cpu-tsan]
set -u
build=${1:-build}
mode=${2:-normal}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# the suite's dataset cache (unless one is given) and the default a test gets without one, in a folder
# removed when the suite ends: a run leaves nothing behind, in /tmp or in ~/.cache
suite_tmp=$(mktemp -d)
trap 'rm -rf "$suite_tmp"' EXIT
export GNNSCOPE_CACHE_DIR=${GNNSCOPE_CACHE_DIR:-$suite_tmp/cache} XDG_CACHE_HOME=$suite_tmp/xdg
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
    if [ "$rc" -eq 77 ] && [ -n "${must_run:-}" ]; then
        fail=$((fail + 1))
        failed+=("$name")
        echo "--- $name: SKIPPED where it must run: FAILED ($((SECONDS - start)) s)"
    elif [ "$rc" -eq 77 ]; then
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
# wanted SOURCE: whether this mode runs the test whose source is SOURCE
wanted() {
    case "$mode" in
    normal | gpu | cuda-cpu-*) return 0 ;;
    *) grep -qE "run-under:.*\b$mode\b" "$1" ;;
    esac
}
# the cmocka binaries of tests/unit (or tests/gpu), then the scripts of the given folders
run_all() {
    local unit=$1 src name
    shift
    for src in tests/"$unit"/test_*.c; do
        wanted "$src" || continue
        name=$(basename "$src" .c)
        run_one "$prefix$name" "$build/tests/$unit/$name"
    done
    for src in "${@/#/tests/}"; do
        for s in "$src"/*.sh; do
            [ -e "$s" ] && wanted "$s" || continue
            run_one "$prefix$(basename "$s" .sh)" "$s"
        done
    done
}
prefix=$mode/
[ "$mode" = normal ] && prefix=
case "$mode" in
gpu) export GNNSCOPE_BIN="$root/gnnscope"; run_all gpu gpu ;;
cuda-cpu-asan | cuda-cpu-tsan) # the plugin on the CPU test double of the CUDA runtime: nothing may skip
    san=${mode#cuda-cpu-}
    export GNNSCOPE_BIN="$root/gnnscope-$san" GNNSCOPE_CUDA_TEST_DOUBLE=1
    export GNNSCOPE_CUDA_PLUGIN="$root/$build/cuda-cpu/libgnnscope_cuda_cpu.so"
    # under ASan, two emulated GPUs: the logical devices spread over both (peer copies, per-GPU events)
    [ "$san" = asan ] && export GNNSCOPE_CPU_GPUS=2
    export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$root/tests/tsan.supp"
    [ "$san" = tsan ] && export OPENBLAS_NUM_THREADS=1 # see tests/tsan.supp
    must_run=1
    run_all gpu gpu
    ;;
asan) export GNNSCOPE_BIN="$root/gnnscope-asan"; run_all unit cli tui dist ;;
tsan)
    export GNNSCOPE_BIN="$root/gnnscope-tsan"
    export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$root/tests/tsan.supp"
    export OPENBLAS_NUM_THREADS=1 # see tests/tsan.supp
    run_all unit cli tui dist
    ;;
*)
    export GNNSCOPE_BIN="$root/gnnscope"
    run_one arch python3 scripts/arch_check.py # the layout: no include cycles, layers respected, sizes bounded
    run_all unit cli tui dist
    ;;
esac
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
