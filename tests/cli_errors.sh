#!/usr/bin/env bash
# cli_errors.sh - bad flags, values, models and datasets give a one-line
# error naming what is wrong and exit code 2, never a crash (this script
# also runs against the ASan build).
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect_fail 2 "--model: 'nope' is unknown (expected gcn|" -- "$BIN" train --model nope --epochs 1
expect_fail 2 "unknown flag '--bogus'" -- "$BIN" train --bogus
expect_fail 2 "--epochs: 'abc' is not an integer" -- "$BIN" train --epochs abc
expect_fail 2 "--dropout: '1.5' is out of range" -- "$BIN" train --dropout 1.5
expect_fail 2 "--lr needs a value" -- "$BIN" train --lr
expect_fail 2 "unknown command 'frobnicate'" -- "$BIN" frobnicate
expect_fail 2 "no such file, directory or shipped dataset" -- "$BIN" train --dataset /nonexistent/x
# a malformed dataset: the error names the file and the line
d="$tmp/bad"
mkdir -p "$d/split"
printf '3\n' | gzip >"$d/num-node-list.csv.gz"
printf '2\n' | gzip >"$d/num-edge-list.csv.gz"
printf '0,1\n1,7\n' | gzip >"$d/edge.csv.gz"
printf '1\n2\n3\n' | gzip >"$d/node-feat.csv.gz"
printf '0\n1\n0\n' | gzip >"$d/node-label.csv.gz"
for s in train valid test; do printf '0\n' | gzip >"$d/split/$s.csv.gz"; done
expect_fail 2 "edge.csv.gz:2: column 2 (dst): node id 7 is not in [0, 3)" -- "$BIN" train --dataset "$d" --no-cache
printf '0,1\n1,2\n' | gzip >"$d/edge.csv.gz"
head -c 20 "$d/edge.csv.gz" >"$d/e" && mv "$d/e" "$d/edge.csv.gz"
expect_fail 2 "edge.csv.gz:" -- "$BIN" train --dataset "$d" --no-cache
: >"$d/edge.csv.gz"
expect_fail 2 "edge.csv.gz:1: file is empty" -- "$BIN" train --dataset "$d" --no-cache
printf '0,1\n1,2\n' | gzip >"$d/edge.csv.gz"
printf '0\n1\n9\n' | gzip >"$d/split/test.csv.gz"
expect_fail 2 "test.csv.gz:3: column 1 (node index): 9 is not in [0, 3)" -- "$BIN" train --dataset "$d" --no-cache
expect_fail 2 "not a gnnscope checkpoint" -- "$BIN" train --epochs 1 --resume "$d/node-feat.csv.gz"
expect_fail 2 "--gen" -- "$BIN" gen --out "$tmp/g" --gen 3
expect_fail 2 "--out DIR is required" -- "$BIN" gen --nodes 10
# without a GPU (or without the plugin) the cuda backend refuses in one line
if ! command -v nvidia-smi >/dev/null 2>&1; then
    expect_fail 2 "no " -- "$BIN" train --backend cuda --epochs 1
    expect_fail 2 "no " -- "$BIN" train --backend cuda --devices 2 --epochs 1
fi
finish
