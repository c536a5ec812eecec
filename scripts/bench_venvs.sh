#!/usr/bin/env bash
# bench_venvs.sh - the benchmarks' library peers from PyPI, each in its own
# virtual environment in an ignored folder at the repository root (never
# used by `make test` or `make run`):
#   .bench-venv      the newest PyTorch (CPU use; PyPI's wheel carries CUDA
#                    libraries too) and torch-geometric
#   .bench-venv-dgl  DGL's last PyPI release (2.1.0) and the newest PyTorch
#                    its graphbolt library is built for (2.2.1), torchdata
#                    0.7.1 (the datapipes it imports) and numpy 1: DGL's
#                    later wheels are not on PyPI
# A folder whose interpreter already imports its libraries is left alone.
# Versions are pinned so that numbers reported in bench/README can be rerun.
# Usage: scripts/bench_venvs.sh   (make bench-deps runs it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
make_venv() { # folder, import probe, pip requirements...
    local dir="$root/$1" probe=$2
    shift 2
    if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "$probe" 2>/dev/null; then
        echo "gnnscope: $1 ready ($probe)"
        return
    fi
    local log=${TMPDIR:-/tmp}/gnnscope-pip-$1.log
    echo "gnnscope: installing $* into $1 from PyPI (log: $log)"
    rm -rf "$dir"
    if ! { "$py" -m venv "$dir" && "$dir/bin/pip" install -q --upgrade pip && "$dir/bin/pip" install -q "$@"; } >"$log" 2>&1; then
        echo "gnnscope: pip failed for $1; the end of $log:" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
}
make_venv .bench-venv "import torch_geometric" torch==2.15.0 torch_geometric==2.8.1 pandas
make_venv .bench-venv-dgl "import dgl" torch==2.2.1 'numpy<2' 'pandas<2.2' dgl==2.1.0 torchdata==0.7.1 pydantic pyyaml psutil
