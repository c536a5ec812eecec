#!/usr/bin/env bash
# seed.sh - writes the starting seeds of tests/fuzz/corpus/: valid inputs of
# each parser (a small OGB dataset file by file, plain and gzipped, SNAP
# edge lists, binary caches, checkpoints of the checkpoint harness's two
# trainers, the shipped demo scripts, console sessions, control messages). Run once with the
# built ./gnnscope; the fuzzers grow the corpus from here (run.sh says how).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
c="$root/tests/fuzz/corpus"
bin="$root/gnnscope"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$c"/{fuzz_ogb,fuzz_snap,fuzz_cache,fuzz_checkpoint,fuzz_script,fuzz_console,fuzz_control}
# fuzz_ogb: byte 0 = file index + 8 x gzip; the file's content follows
contents=("4\n" "3\n" "0,1\n1,2\n2,3\n" "1,0\n0,1\n1,1\n0.5,-2e-1\n" "0\n1\n1\n0\n" "0\n1\n" "2\n" "3\n")
for i in "${!contents[@]}"; do
    printf "\\x$(printf %02x "$i")${contents[$i]}" >"$c/fuzz_ogb/file$i"
    printf "\\x$(printf %02x $((i + 8)))${contents[$i]}" >"$c/fuzz_ogb/file$i-gz"
done
printf '# a SNAP edge list\n0 1\n1 2\n2 0\n5 9\n' >"$c/fuzz_snap/triangle"
printf '0\t1\t0\n1\t2\t1\n2\t3\t0\n' >"$c/fuzz_snap/typed"
# fuzz_cache: caches of a generated graph and of an OGB directory
export GNNSCOPE_CACHE_DIR="$work/cache"
"$bin" train --dataset gen:nodes=64,degree=4,feats=8,classes=3,seed=1 --epochs 0 --quiet 2>/dev/null || true
mkdir -p "$work/ogb/split"
for i in 0 1 2 3 4; do
    names=(num-node-list num-edge-list edge node-feat node-label)
    printf "${contents[$i]}" >"$work/ogb/${names[$i]}.csv"
done
printf '0\n1\n' >"$work/ogb/split/train.csv"; printf '2\n' >"$work/ogb/split/valid.csv"; printf '3\n' >"$work/ogb/split/test.csv"
"$bin" train --dataset "$work/ogb" --epochs 0 --quiet 2>/dev/null || true
k=0
for f in "$work"/cache/*.gsc; do cp "$f" "$c/fuzz_cache/cache$((k++))"; done
# fuzz_checkpoint: byte 0 picks the trainer (0 gcn, 1 gat), as in the harness
g=gen:nodes=64,degree=4,feats=8,classes=3,seed=1
"$bin" train --dataset $g --model gcn --hidden 4 --threads 1 --epochs 1 --checkpoint "$work/gcn.ckpt" --quiet
"$bin" train --dataset $g --model gat --hidden 4 --heads 2 --threads 1 --epochs 1 --checkpoint "$work/gat.ckpt" --quiet
{ printf '\x00'; cat "$work/gcn.ckpt"; } >"$c/fuzz_checkpoint/gcn"
{ printf '\x01'; cat "$work/gat.ckpt"; } >"$c/fuzz_checkpoint/gat"
cp "$root"/demos/*.gs "$c/fuzz_script/"
printf 'set selective on\nset device-mem 2M\nget selective\nknobs\nstep\nhelp\n' >"$c/fuzz_console/knobs"
printf 'model gat hidden 4 heads 2\nstep\ncheckpoint save x.ckpt\nexport metrics m.csv\ntrace start t.json\nrun 2\ntrace stop\n' \
    >"$c/fuzz_console/files"
printf 'set lr 0.5\nset chunks 3\nset order metis\nset dkp on\nload cora\npause\nresume\n' >"$c/fuzz_console/reopen"
printf 'stop=0\ndep=comm\ndep-ratio=0.3\n' >"$c/fuzz_control/knobs"
printf 'stop=1\n' >"$c/fuzz_control/stop"
printf 'stop=0\nring=off\noverlap=on\nnetwork=ib-edr\nlr=0.5\ndep-mem=1M\n' >"$c/fuzz_control/all"
# fuzz_remote: byte 0 = mode (0 requests, 1 replies, 2 snapshot overlay, 3 events overlay); frames are
# "GSRP" (magic, little-endian), kind, 64-bit length, payload
mkdir -p "$c/fuzz_remote"
frame() { printf 'PRSG'; printf "\\x$(printf %02x "$1")\\x00\\x00\\x00"; printf "\\x$(printf %02x "$2")\\x00\\x00\\x00\\x00\\x00\\x00\\x00"; printf '%s' "$3"; }
{ printf '\x00'; frame 0 8 'abcdefgh'; frame 1 0 ''; frame 2 4 'step'; frame 3 6 'chunks'; frame 4 8 '00000000'; frame 5 0 ''; frame 6 0 ''; } \
    >"$c/fuzz_remote/requests"
{ printf '\x01'; frame 0 8 'abcdefgh'; frame 2 8 '0000done'; frame 3 4 'auto'; frame 4 12 '000000000000'; frame 6 8 '12345678'; } \
    >"$c/fuzz_remote/replies"
printf '\x02\x10\x00\x00\x00\x41\x41' >"$c/fuzz_remote/snapshot-flags"
printf '\x02\x00\x10\x03\x00\xff\xff\xff\xff' >"$c/fuzz_remote/snapshot-deep"
printf '\x03\x0c\x00\x00\x00\x00\x00\x00\x00\x09\x00\x00\x00' >"$c/fuzz_remote/events"
# fuzz_machine: every shipped machine file, and a user's two-level tree
mkdir -p "$c/fuzz_machine"
for m in $("$bin" topologies --brief | awk '/^[a-z0-9]/ && $3 == "x" {print $1}'); do
    "$bin" topologies --show "$m" | sed -n '/^$/q;p' >"$c/fuzz_machine/$m"
done
printf 'machine t\nhost e5-2690v4 sockets 2\ngpu t4 mem 2G\nswitch a on socket0 link pcie3x16\nswitch b on a link pcie4x8 bw 9e9\nsocket-link upi\ngpus 2 on b link pcie3x16\ngpus 1 on socket1 link pcie3x16\nnvlink 0 2 nvlink2 links 2\ncluster nodes 4 network eth-6g\n' >"$c/fuzz_machine/tree"
echo "seeds written to $c"
