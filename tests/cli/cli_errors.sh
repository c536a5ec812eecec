#!/usr/bin/env bash
# cli_errors.sh - bad flags, values, models and datasets give a one-line
# error naming what is wrong and exit code 2, never a crash (this script
# also runs against the ASan build).
# run-under: asan
source "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect_fail 2 "--model: 'nope' is unknown (expected gcn|" -- "$BIN" train --model nope --epochs 1
expect_fail 2 "unknown flag '--bogus'" -- "$BIN" train --bogus
expect_fail 2 "--epochs: 'abc' is not an integer" -- "$BIN" train --epochs abc
expect_fail 2 "--dropout: '1.5' is out of range" -- "$BIN" train --dropout 1.5
expect_fail 2 "--lr needs a value" -- "$BIN" train --lr
expect_fail 2 "unknown command 'frobnicate'" -- "$BIN" frobnicate
expect_fail 2 "no such file, directory or shipped dataset" -- "$BIN" train --dataset /nonexistent/x
# hostile numbers: refused when typed, with the accepted range
expect_fail 2 "--device-mem: 'nan' is not a size" -- "$BIN" train --device-mem nan --epochs 1
expect_fail 2 "--device-mem: '0.5' is not a whole number of bytes" -- "$BIN" train --device-mem 0.5 --epochs 1
expect_fail 2 "--device-mem: '' is not a size" -- "$BIN" train --device-mem '' --epochs 1
expect_fail 2 "--link-scale: '1e-6' is out of range" -- "$BIN" train --link-scale 1e-6 --epochs 1
expect_fail 2 "--link-scale: '1e-320' is out of range" -- "$BIN" train --link-scale 1e-320 --epochs 1
expect_fail 2 "--epochs: '99999999999999999999' is out of range" -- "$BIN" train --epochs 99999999999999999999
expect_fail 2 "--lr: '1e-400' is out of range" -- "$BIN" train --lr 1e-400 --epochs 1
expect_fail 2 "--hidden 65536 --layers 64 would need" -- "$BIN" train --hidden 65536 --layers 64 --epochs 1
expect_fail 2 "--device-mem 8.0 MiB is too small for this model" -- "$BIN" train --hidden 65536 --device-mem 8M --epochs 1
expect_fail 2 "--edge-chunks resident: device 0 cannot hold the edge chunks" -- "$BIN" train --device-mem 1M --edge-chunks resident --epochs 1
expect_fail 2 "--edge-chunks: 'kept' is not valid (expected auto|stream|resident)" -- "$BIN" train --edge-chunks kept --epochs 1
# --hostfile: a readable file, checked before mpirun starts
expect_fail 2 "--hostfile $tmp/nohosts: no such file" -- "$BIN" train --ranks 2 --hostfile "$tmp/nohosts" --epochs 1
expect_fail 2 "--hostfile $tmp: not a regular file" -- "$BIN" train --ranks 2 --hostfile "$tmp" --epochs 1
printf 'localhost slots=4\n' >"$tmp/hosts"
expect_fail 2 "--hostfile: give --ranks N too" -- "$BIN" train --hostfile "$tmp/hosts" --epochs 1
# GNNSCOPE_MEM_LIMIT: a size or nothing
for v in abc -1 "2G " 0 1.5; do
    expect_fail 2 "GNNSCOPE_MEM_LIMIT: '$v' is not a size" -- env GNNSCOPE_MEM_LIMIT="$v" "$BIN" train --epochs 1
done
GNNSCOPE_MEM_LIMIT=2GiB "$BIN" train --epochs 1 --quiet && ok "GNNSCOPE_MEM_LIMIT=2GiB is a size" || bad "GNNSCOPE_MEM_LIMIT=2GiB refused"
err=$(GNNSCOPE_MEM_LIMIT=10M "$BIN" train --epochs 1 --quiet 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "(GNNSCOPE_MEM_LIMIT; " <<<"$err" && ! grep -q damaged <<<"$err" \
    && grep -qE "would need [0-9.]+ [KM]iB" <<<"$err" && ok "a small GNNSCOPE_MEM_LIMIT names itself, in MiB, no cache called damaged: $err" \
    || bad "GNNSCOPE_MEM_LIMIT=10M: $err"
# a damaged dataset cache: rebuilt from the sources, with one warning on stderr (the library returns it, the CLI prints it)
suite_cache=${GNNSCOPE_CACHE_DIR-}
export GNNSCOPE_CACHE_DIR="$tmp/cache"
"$BIN" train --epochs 1 --quiet 2>/dev/null
cache=$(find "$tmp/cache" -type f | head -1)
if [ -n "$cache" ]; then
    printf 'damage' | dd of="$cache" bs=1 seek=$(($(stat -c %s "$cache") / 2)) conv=notrunc status=none
    "$BIN" train --epochs 1 --quiet 2>"$tmp/warn"
    rc=$?
    "$BIN" train --epochs 1 --quiet 2>"$tmp/warn2"
    [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/warn")" -eq 1 ] && grep -q "^gnnscope: warning: damaged dataset cache (" "$tmp/warn" && [ ! -s "$tmp/warn2" ] \
        && ok "a damaged cache is rebuilt with one warning: $(cat "$tmp/warn")" || bad "damaged cache: exit $rc, stderr: $(cat "$tmp/warn") / $(cat "$tmp/warn2")"
    # a class count of 100 written into the header (offset 40): the checksum covers the header
    clean=$("$BIN" train --epochs 3 --json --quiet 2>/dev/null | json_get losses)
    printf '\144' | dd of="$cache" bs=1 seek=40 conv=notrunc status=none
    got=$("$BIN" train --epochs 3 --json --quiet 2>"$tmp/warn3" | json_get losses)
    [ "$(wc -l <"$tmp/warn3")" -eq 1 ] && grep -q "checksum mismatch" "$tmp/warn3" && [ -n "$clean" ] && [ "$got" = "$clean" ] \
        && ok "a class count changed in the cache's header is caught: rebuilt with one warning, the clean run's losses" \
        || bad "header class count: $(cat "$tmp/warn3"); losses $got vs $clean"
else
    bad "no dataset cache written under $tmp/cache"
fi
export GNNSCOPE_CACHE_DIR=${suite_cache:-$tmp/cache} # the suite's again (unset, the runs below wrote to ~/.cache/gnnscope)
# output files: a regular file or nothing, in a writable directory, checked before any work
expect_fail 2 "--checkpoint /dev/full: is not a regular file" -- "$BIN" train --checkpoint /dev/full --epochs 1
ln -s "$tmp/elsewhere" "$tmp/link"
expect_fail 2 "--trace $tmp/link: is a symbolic link" -- "$BIN" train --trace "$tmp/link" --epochs 1
expect_fail 2 "--trace $tmp: is a directory" -- "$BIN" train --trace "$tmp" --epochs 1
expect_fail 2 "--metrics /nonexistent/m.csv: no such directory" -- "$BIN" train --metrics /nonexistent/m.csv --epochs 1
expect_fail 2 "--resume /dev/null: not a regular file" -- "$BIN" train --resume /dev/null --epochs 1
[ -e "$tmp/elsewhere" ] && bad "the symlink's target was written" || ok "the symlink's target was left alone"
# scripts: a regular text file
expect_fail 2 "$tmp: not a regular file" -- "$BIN" --script "$tmp" --max-epochs 1
expect_fail 2 "/dev/zero: not a regular file" -- "$BIN" --script /dev/zero --max-epochs 1
mkfifo "$tmp/fifo"
expect_fail 2 "--dataset $tmp/fifo: not a regular file or directory" -- timeout 10 "$BIN" train --dataset "$tmp/fifo"
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
printf '2\n' | gzip >"$d/split/test.csv.gz"
# a NUL byte inside a line is refused, not read as the end of the line
printf '0,1\n1,2\0\n' | gzip >"$d/edge.csv.gz"
expect_fail 2 "edge.csv.gz:2: a NUL byte in the line" -- "$BIN" train --dataset "$d" --no-cache
printf '0,1\n1,2\n' | gzip >"$d/edge.csv.gz"
# features are decimal: a C hex float is refused
printf '1\n0x1p3\n3\n' | gzip >"$d/node-feat.csv.gz"
expect_fail 2 "node-feat.csv.gz:2: column 1 (feature): '0x1p3' is not a decimal number" -- "$BIN" train --dataset "$d" --no-cache
printf '1\n2\n3\n' | gzip >"$d/node-feat.csv.gz"
# a train split with no labelled vertex cannot train
printf 'nan\n1\n0\n' | gzip >"$d/node-label.csv.gz"
expect_fail 2 "no vertex of the train split has a label" -- "$BIN" train --dataset "$d" --no-cache --epochs 1
printf '0\n1\n0\n' | gzip >"$d/node-label.csv.gz"
"$BIN" train --dataset "$d" --no-cache --epochs 2 --quiet && ok "the repaired dataset trains" || bad "the repaired dataset does not train"
# an edge list of two vertices: some vertex trains (vertex 0 when none hashes to train)
for e in '0 1' '5 7'; do
    printf '%s\n' "$e" >"$tmp/tiny.txt"
    "$BIN" train --dataset "$tmp/tiny.txt" --no-cache --epochs 2 --quiet 2>"$tmp/tiny.err" \
        && ok "SNAP edge list '$e' trains" || bad "SNAP edge list '$e': $(cat "$tmp/tiny.err")"
done
# every input bounded before it is held: a split listing a vertex twice (20M entries on Cora), a SNAP list past the memory rule
cp -r "$(dirname "$0")/../../datasets/cora" "$tmp/cora20m"
yes 0 | head -n 20000000 | gzip -1 >"$tmp/cora20m/split/train.csv.gz"
expect_fail 2 "train.csv.gz:2: column 1 (node index): 0 is listed twice" -- "$BIN" train --dataset "$tmp/cora20m" --no-cache --epochs 1
yes '0 1' | head -n 5000000 | gzip -1 >"$tmp/many.txt.gz"
GNNSCOPE_MEM_LIMIT=150M expect_fail 2 "many.txt.gz:" -- "$BIN" train --dataset "$tmp/many.txt.gz" --no-cache --epochs 1
GNNSCOPE_MEM_LIMIT=150M "$BIN" train --dataset "$tmp/many.txt.gz" --no-cache --epochs 1 2>&1 | grep -q "the edges read so far would need" \
    && ok "a SNAP list past the memory rule is refused while it is read, with the estimate" || bad "SNAP list past the memory rule"
# gen: keys: an unknown one, and one out of its range, named as the spec names them
expect_fail 2 "gen:foo=1: unknown key 'foo' (keys: nodes, degree" -- "$BIN" train --dataset gen:foo=1 --epochs 1
expect_fail 2 "gen:nodes=1: nodes=1 is not an integer in [2, " -- "$BIN" train --dataset gen:nodes=1 --epochs 1
expect_fail 2 "degree=60 is more than half of nodes-1 (99)" -- "$BIN" train --dataset gen:nodes=100,degree=60 --epochs 1
# the JSON line is UTF-8 whatever the path's bytes (a Latin-1 name)
latin=$(printf "$tmp/caf\\xe9")
cp -r "$(dirname "$0")/../../datasets/cora" "$latin"
"$BIN" train --dataset "$latin" --epochs 1 --json --quiet 2>/dev/null | tail -n 1 >"$tmp/latin.json"
$PY -c "import json,sys; d=json.loads(open(sys.argv[1],'rb').read().decode('utf-8')); assert d['dataset'].endswith('caf\\ufffd'), d['dataset']" "$tmp/latin.json" \
    && ok "the JSON line of a dataset with a Latin-1 name is valid UTF-8 (U+FFFD for the byte)" || bad "JSON for a Latin-1 path: $(head -c 300 "$tmp/latin.json")"
# a knob change refused at the epoch boundary stays refused: the next change builds on the settings in force
printf 'set device-mem 300K\nwait epochs 2\nset chunks auto\nwait epochs 2\nget device-mem\n' >"$tmp/refused.gs"
"$BIN" tui --script "$tmp/refused.gs" --max-epochs 6 >"$tmp/refused.out" 2>&1
grep -q "the change did not apply, the previous settings stay: device-mem 307200 is too small for 24 chunks (needs [0-9]* bytes); use 'set chunks auto'$" "$tmp/refused.out" \
    && [ "$(grep -c "device-mem = 4M$" "$tmp/refused.out")" -eq 1 ] && ! grep -q "device-mem = 300K$" "$tmp/refused.out" \
    && ok "a refused device-mem does not come back with the next set (device-mem stays 4M), and the refusal names the console's knobs" \
    || bad "refused knob: $(cat "$tmp/refused.out")"
expect_fail 2 "not a gnnscope checkpoint" -- "$BIN" train --epochs 1 --resume "$d/node-feat.csv.gz"
expect_fail 2 "--gen" -- "$BIN" gen --out "$tmp/g" --gen 3
expect_fail 2 "--out DIR is required" -- "$BIN" gen --nodes 10
mkdir -p "$tmp/full" && touch "$tmp/full/mine.txt"
expect_fail 2 "--out $tmp/full: the directory is not empty (add --force" -- "$BIN" gen --nodes 10 --out "$tmp/full"
expect_fail 2 "--out $tmp/full/mine.txt: exists and is not a directory" -- "$BIN" gen --nodes 10 --out "$tmp/full/mine.txt"
"$BIN" gen --nodes 100 --avg-degree 4 --out "$tmp/full" --force >/dev/null && [ -f "$tmp/full/mine.txt" ] && [ -f "$tmp/full/node-label.csv.gz" ] \
    && ok "gen --force writes into a directory with files" || bad "gen --force"
# without a GPU (or without the plugin) the cuda backend refuses in one line
if ! command -v nvidia-smi >/dev/null 2>&1; then
    expect_fail 2 "no " -- "$BIN" train --backend cuda --epochs 1
    expect_fail 2 "no " -- "$BIN" train --backend cuda --devices 2 --epochs 1
fi
finish
