#!/usr/bin/env bash
# deps.sh - installs the Debian packages gnnscope needs, if any are missing.
# Usage: scripts/deps.sh [--check]   (--check: exit 1 if something is missing)
set -euo pipefail
PKGS=(build-essential libopenblas-dev zlib1g-dev libmetis-dev libcmocka-dev libncurses-dev
      libreadline-dev libopenmpi-dev openmpi-bin tmux python3 python3-torch)
missing=()
for p in "${PKGS[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "${1:-}" = "--check" ] && { echo "missing: ${missing[*]}"; exit 1; }
echo "gnnscope: installing missing Debian packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "gnnscope: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
