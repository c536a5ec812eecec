#!/usr/bin/env bash
# stream_order.sh - the order of a streamed pass (NeuGraph §3.1, Fig. 16; NGra Fig. 14).
# On a graph four times the device cap (GCN hidden 64, one emulated GPU,
# virtual clock with roofline kernels, so the emulated times are exact),
# with the §3.2 optimisations off as in the paper's Fig. 16 (no pipeline,
# no selective scheduling, nothing kept by the memory plan):
#   --stream-order row (each input interval loaded once, the partial sums
#   to the host and back for every chunk) trains the column order's losses
#   bit for bit, and its epoch is 1.3x-2.0x the column order's (NeuGraph:
#   1.4-1.7x); its D2H bytes are at least P times the column order's
#   outputs', since every row sends every partial sum back.
#   --stream-order stage (NGra Fig. 14's stage-based strategy: ApplyVertex
#   a stage of its own, each accumulator swapped home and back between the
#   stages) trains the column order's losses bit for bit; on a shape whose
#   whole ApplyVertex chain (the product included) runs on the device in
#   the column order, it copies every chained accumulator in again (at
#   least the bytes the column order's products read on the device) and
#   its epoch is at least 1.1x the column order's (NGra: 1.25-1.35x).
# Bad values are refused in one line, and the knob is live in a script.
source "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GNNSCOPE_CACHE_DIR=${GNNSCOPE_CACHE_DIR:-$tmp/cache}
g=gen:nodes=20000,degree=20,feats=64,classes=16,seed=2
# pair NAME CAP PIPELINE A B: orders A and B at that device cap ($tmp/NAME-ORDER.json and .csv), their losses bit for bit
pair() {
    local name=$1 cap=$2 pipe=$3 a=$4 b=$5
    for o in "$a" "$b"; do
        "$BIN" train --dataset "$g" --hidden 64 --device-mem "$cap" --pipeline "$pipe" --selective off --memplan stream --epochs 2 \
            --clock virtual --kernel-time roofline --json --quiet --stream-order "$o" --metrics "$tmp/$name-$o.csv" \
            >"$tmp/$name-$o.json" 2>"$tmp/err" || bad "--stream-order $o at $cap: $(cat "$tmp/err")"
    done
    same_losses "$tmp/$name-$a.csv" "$tmp/$name-$b.csv" 0 && ok "$b and $a orders train the same losses ($(losses "$tmp/$name-$b.csv"))" \
        || bad "losses: $a $(losses "$tmp/$name-$a.csv"), $b $(losses "$tmp/$name-$b.csv")"
}
pair fig16 3M off column row
$PY - "$tmp/fig16-column.json" "$tmp/fig16-row.json" <<'PYEOF' && ok "row order's epoch within NeuGraph Fig. 16's range" || bad "row against column order"
import json, sys
col, row = (json.loads(open(f).read().strip().splitlines()[-1]) for f in sys.argv[1:3])
ratio = row["epoch_ms_median"] / col["epoch_ms_median"]
print(f"column: P={col['chunks']} {col['epoch_ms_median']:.3f} ms, d2h {col['d2h_bytes'] / 1e6:.1f} MB; "
      f"row: P={row['chunks']} {row['epoch_ms_median']:.3f} ms, d2h {row['d2h_bytes'] / 1e6:.1f} MB; row / column {ratio:.2f}x")
assert col["chunks"] > 1 and 1.3 <= ratio <= 2.0, ratio
assert row["d2h_bytes"] >= 2 * col["d2h_bytes"], (row["d2h_bytes"], col["d2h_bytes"])
PYEOF
pair fig14 8M on column stage
$PY - "$tmp/fig14-column.json" "$tmp/fig14-stage.json" <<'PYEOF' && ok "stage order: the accumulators swapped in again, NGra's order faster" || bad "stage against column order"
import json, sys
col, stg = (json.loads(open(f).read().strip().splitlines()[-1]) for f in sys.argv[1:3])
ratio = stg["epoch_ms_median"] / col["epoch_ms_median"]
extra = stg["h2d_bytes"] - col["h2d_bytes"]
print(f"column: P={col['chunks']} {col['epoch_ms_median']:.3f} ms, products' inputs kept {col['acc_kept_bytes'] / 1e6:.1f} MB; "
      f"stage: {stg['epoch_ms_median']:.3f} ms, {extra / 1e6:.1f} MB more H2D, kept {stg['acc_kept_bytes'] / 1e6:.1f} MB; "
      f"stage / column {ratio:.2f}x")
assert col["acc_kept_bytes"] > 0 and stg["acc_kept_bytes"] == 0, (col["acc_kept_bytes"], stg["acc_kept_bytes"])
assert extra >= col["acc_kept_bytes"], (extra, col["acc_kept_bytes"])
assert ratio >= 1.1, ratio
PYEOF
expect_fail 2 "column|row|stage" -- "$BIN" train --stream-order diagonal --device-mem 4M
printf 'wait epochs 1\nset stream-order row\nwait epochs 2\n' >"$tmp/switch.gs"
"$BIN" --script "$tmp/switch.gs" --dataset "$g" --hidden 64 --device-mem 3M --memplan stream --metrics "$tmp/switch.csv" \
    --max-epochs 3 >"$tmp/out" 2>&1 || bad "script: $(tail -3 "$tmp/out")"
$PY - "$tmp/switch.csv" <<'PYEOF' && ok "set stream-order row in a script: the next epochs run in the row order" || bad "live switch"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) >= 3, rows
assert float(rows[-1]["d2h_bytes"]) > 2 * float(rows[0]["d2h_bytes"]), [r["d2h_bytes"] for r in rows]
PYEOF
finish
