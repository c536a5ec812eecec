#!/usr/bin/env bash
# deps.sh - installs the Debian packages gnnscope needs, if any are missing.
# Usage: scripts/deps.sh [--check] [--bench]
#   --check  exit 1 (naming them) if something is missing; install nothing
#   --bench  also the benchmarks' Debian peer, PyTorch 1.13 (python3-torch,
#            ~850 MB, and python3-pandas to read the OGB files fast), and
#            python3-venv for scripts/bench_venvs.sh (PyG and DGL from
#            PyPI); `make test` and `make run` never need them
#   --fuzz   also clang and libFuzzer, for `make fuzz` and `make fuzz-ci`
# apt's output goes to a log; one line says what is installed and where the
# log is, and a failure prints the log's end.
set -euo pipefail
PKGS=(build-essential libopenblas-dev zlib1g-dev libmetis-dev libcmocka-dev libncurses-dev
      libreadline-dev libopenmpi-dev openmpi-bin tmux python3)
check=0
for a in "$@"; do
    case "$a" in
    --check) check=1 ;;
    --bench) PKGS+=(python3-torch python3-pandas python3-venv) ;;
    --fuzz) PKGS+=(clang libclang-rt-14-dev) ;;
    *) echo "scripts/deps.sh: unknown option '$a' (use --check, --bench, --fuzz)" >&2; exit 2 ;;
    esac
done
missing=()
for p in "${PKGS[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$check" -eq 1 ] && { echo "missing: ${missing[*]}"; exit 1; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "gnnscope: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
fi
log=${TMPDIR:-/tmp}/gnnscope-apt.log
echo "gnnscope: installing Debian packages: ${missing[*]} (apt log: $log)"
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -q && $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    echo "gnnscope: apt-get failed; the end of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
fi
