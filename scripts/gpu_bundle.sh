#!/usr/bin/env bash
# gpu_bundle.sh - packs what the GPU batch needs into .dev/gpu-bundle.tar.xz,
# so that a lent GPU machine (no Debian packages, no network) spends its
# scarce time testing rather than building: gnnscope, the CUDA plugin and
# the GPU test binaries built here from the working tree (MPI left out:
# no rank runs in the batch), the shared libraries they need that such a
# machine lacks (OpenBLAS, METIS, ncurses, readline, cmocka), and tmux
# for the workbench capture. scripts/gpu_batch.sh unpacks it when present.
# Needs nvcc here. x86-64 only (the lent machines are).
# Usage: scripts/gpu_bundle.sh            (then carry .dev in the device call)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
git ls-files -co --exclude-standard -z | tar -cf - --null -T - | tar -xf - -C "$work/"
gpu_tests=$(ls tests/gpu/test_*.c | sed 's#tests/\(.*\)\.c#build/tests/\1#')
make -C "$work" -s -j"$(nproc)" HAVE_MPI=0 gnnscope plugin $gpu_tests >/dev/null
mkdir -p "$work/pack/.dev/lib" "$work/pack/.dev/bin" "$work/pack/build/tests/gpu"
cp "$work/gnnscope" "$work/pack/"
cp "$work/build/libgnnscope_cuda.so" "$work/pack/build/"
cp $(printf "$work/%s " $gpu_tests) "$work/pack/build/tests/gpu/"
cp "$(command -v tmux)" "$work/pack/.dev/bin/"
libs="libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libmetis.so.5 libncursesw.so.6 libtinfo.so.6
      libreadline.so.8 libcmocka.so.0 libutempter.so.0 libevent_core-2.1.so.7"
for l in $libs; do cp -L "/lib/x86_64-linux-gnu/$l" "$work/pack/.dev/lib/"; done
mkdir -p .dev
tar -C "$work/pack" -cJf .dev/gpu-bundle.tar.xz.tmp . && mv .dev/gpu-bundle.tar.xz.tmp .dev/gpu-bundle.tar.xz
echo "bundle: .dev/gpu-bundle.tar.xz ($(du -h .dev/gpu-bundle.tar.xz | cut -f1)) from $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes')"
