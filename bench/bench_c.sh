# shellcheck shell=bash
# bench_c.sh - sourced by the shell benchmarks that time the engine's
# kernels from a C harness: sets root and work (the script's first
# argument, or $TMPDIR/gnnscope-bench), builds gnnscope, and gives
# build_harness OUT SOURCE [CFLAGS...], which links SOURCE against
# build/libgnnscope.a.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-${TMPDIR:-/tmp}/gnnscope-bench}
mkdir -p "$work"
cd "$root"
make -s gnnscope >/dev/null

build_harness() {
    local out=$1 src=$2
    shift 2
    # shellcheck disable=SC2046
    cc "$@" -std=c11 -D_GNU_SOURCE -I. -o "$out" "$src" build/libgnnscope.a -lopenblas -lmetis -lz -lm -ldl -pthread \
        $(mpicc -showme:link 2>/dev/null || true)
}
