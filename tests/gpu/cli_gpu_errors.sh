#!/usr/bin/env bash
# cli_gpu_errors.sh - the cuda backend's refusals through the CLI, each one
# line and exit 2: a --device-mem larger than the GPU, more logical
# devices than the backend has, and a program the plugin has no kernels
# for (GG-NN unfused); then a run after them still trains. Exits 77
# (skipped) when no GPU answers.
source "$(dirname "$0")/../lib.sh"
if ! "$BIN" train --backend cuda --epochs 1 --quiet >/dev/null 2>&1; then
    echo "skipped: no GPU answers"
    exit 77
fi
expect_fail 2 "logical devices on a GPU" -- "$BIN" train --backend cuda --devices 2 --device-mem 1024G --epochs 1
expect_fail 2 "--devices" -- "$BIN" train --backend cuda --devices 17 --epochs 1
expect_fail 2 "no edge_matmul_typed kernel" -- "$BIN" train --backend cuda --model ggnn --fuse off --epochs 1
"$BIN" train --backend cuda --devices 2 --chunks 2 --epochs 2 --quiet >/dev/null && ok "a streamed run after the refusals trains" ||
    bad "a streamed run after the refusals"
finish
