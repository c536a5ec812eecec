#!/usr/bin/env bash
# cli_machines.sh - machines as data (engine/machine/machine_file.h) from
# the command line: `topologies` lists the shipped machines and shows one
# as its machine file; that file, saved under another name, trains to the
# same emulated epoch times as the shipped name; a device holds its GPU's
# memory unless --device-mem says otherwise (a 230 KiB GPU needs more
# chunks); a cluster machine gives --ranks its network; malformed files
# and unknown names exit 2 with one line naming the file, line and field.
source "$(dirname "$0")/../lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

n=$("$BIN" topologies --brief | grep -cE '^[a-z0-9-]+ +[0-9] x ')
[ "$n" -eq 15 ] && ok "topologies --brief lists 15 machines" || bad "topologies --brief lists $n machines"
for m in neugraph-8xp100 roc-4x4p100 graphtensor-3090 ns-16xt4-6g ns-8xv100-ib p100-pcie3 v100-pcie3 t4-pcie3 a100-pcie4 h100-pcie5 h200-pcie5; do
    "$BIN" topologies --brief | grep -q "^$m " || bad "topologies lacks $m"
done
"$BIN" topologies --parts | grep -qE '^  rtx3090 +35.6 TFLOP/s' && ok "topologies --parts lists the catalog" || bad "--parts lacks the RTX 3090"

"$BIN" topologies --show neugraph-8xp100 | sed -n '/^$/q;p' | sed 's/^machine neugraph-8xp100/machine mine/' >"$dir/mine.machine"
run() { "$BIN" train --epochs 3 --devices 8 --chunks 16 --json "$@" 2>/dev/null | json_get epoch_ms_median; }
a=$(run --topology neugraph-8xp100)
b=$(run --topology "$dir/mine.machine")
c=$(run --topology pcie-8gpu)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "a saved machine file trains as its shipped name ($a ms)" || bad "file $b ms, shipped $a ms"
[ -n "$c" ] && [ "$a" != "$c" ] && ok "NeuGraph's P100s differ from the generic V100-class machine ($a vs $c ms)" || bad "neugraph $a, generic $c"

sed 's/^gpu p100-pcie$/gpu p100-pcie mem 230K/' "$dir/mine.machine" >"$dir/small.machine"
chunks() { "$BIN" train --epochs 1 --devices 2 --json "$@" 2>/dev/null | tail -n 1 | $PY -c "import json,sys; print(json.load(sys.stdin)['chunks'])" 2>/dev/null; }
big=$(chunks --topology "$dir/mine.machine")
small=$(chunks --topology "$dir/small.machine")
set_cap=$(chunks --topology "$dir/small.machine" --device-mem 64M)
if [ -n "$small" ] && [ "$small" -gt "${big:-0}" ] && [ "$set_cap" = "$big" ]; then
    ok "a 230 KiB GPU's devices need $small chunks (16 GiB: $big; --device-mem 64M: $set_cap)"
else
    bad "chunks: 16 GiB $big, 230 KiB $small, --device-mem 64M $set_cap"
fi

printf 'machine x\nhost e5-2690v4\ngpu t4\ngpus 2 on sw0 link pcie3x16\n' >"$dir/bad.machine"
expect_fail 2 "$dir/bad.machine:4: on: 'sw0' is not a socket or an earlier switch" -- "$BIN" train --topology "$dir/bad.machine"
expect_fail 2 "--topology $dir/none.machine: No such file or directory" -- "$BIN" train --topology "$dir/none.machine"
expect_fail 2 "--topology: 'p100' is unknown" -- "$BIN" train --topology p100
expect_fail 2 "$dir/bad.machine:4: on:" -- "$BIN" topologies --show "$dir/bad.machine"
expect_fail 2 "unexpected '--list'" -- "$BIN" topologies --list

if command -v mpirun >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    out=$(timeout 300 "$BIN" train --ranks 2 --topology ns-16xt4-6g --epochs 2 2>&1)
    grep -q "^distributed: 2 ranks on eth-6g, .*its node's GPU, messages staged over PCIe (ns-16xt4-6g)" <<<"$out" && ok "ns-16xt4-6g gives the ranks its 6 Gb/s network" ||
        bad "cluster machine: $(tail -n 2 <<<"$out")"
fi
finish
