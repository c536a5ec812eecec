#!/usr/bin/env bash
# cli_train.sh - the train and gen commands end to end: --help lists every
# flag with its default, --json ends with one JSON object holding the
# documented fields (per-epoch series included), a generated graph trains, a checkpointed run resumed
# through the CLI repeats the uninterrupted losses, --profile ops tallies
# each op of the step, and Ctrl-C stops after
# the current epoch with the checkpoint on disk; two identical runs on the
# virtual clock with roofline kernels give identical emulated times.
source "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
help=$("$BIN" train --help)
for f in dataset model layers hidden heads epochs lr weight-decay dropout seed threads checkpoint resume json; do
    grep -q -- "--$f .*(default: " <<<"$help" || bad "train --help lacks --$f with a default"
done
ok "train --help lists every flag with its default"

"$BIN" gen --nodes 2000 --avg-degree 10 --feats 32 --classes 4 --seed 5 --out "$tmp/g" >/dev/null || bad "gen failed"
out=$("$BIN" train --dataset "$tmp/g" --epochs 30 --json)
$PY - "$out" <<'PYEOF' && ok "JSON summary has every field" || bad "JSON summary"
import json, sys
d = json.loads(sys.argv[1].strip().splitlines()[-1])
need = ["dataset", "model", "nodes", "edges", "epochs", "final_loss", "train_acc", "val_acc", "test_acc",
        "best_val_acc", "test_acc_at_best_val", "epoch_ms_median", "peak_rss_bytes", "losses", "test_accs", "epochs_ms"]
missing = [k for k in need if k not in d]
assert not missing, missing
assert d["nodes"] == 2000 and d["epochs"] == 30
assert d["edges"] == 2 * 10000 + 2000, d["edges"]   # 10000 pairs both ways, plus self-loops
assert d["test_acc"] > 0.5, d["test_acc"]             # planted classes are learnable
for k in ("losses", "test_accs", "epochs_ms"):            # the per-epoch series, one value an epoch
    assert len(d[k]) == 30, (k, len(d[k]))
assert d["test_accs"][-1] == round(d["test_acc"], 6) and d["losses"][-1] == d["final_loss"]
assert d["epochs_ms"][-1] == d["epoch_ms_last"]
PYEOF

# --profile ops: each op of the training step once an epoch, with the op
# model's FLOPs and bytes (a gather reads a row per edge, the loss the
# listed rows' logits), times that sum
# to about the epoch, the first epoch left out
out=$("$BIN" train --dataset "$tmp/g" --epochs 4 --hidden 32 --dropout 0.5 --profile ops --json --quiet)
$PY - "$out" <<'PYEOF' && ok "--profile ops: every op of the step, its FLOPs and bytes, the first epoch dropped" || bad "--profile ops"
import json, sys
d = json.loads(sys.argv[1].strip().splitlines()[-1])
assert d["ops_epochs"] == 3, d["ops_epochs"]
ops = {(o["op"], o["layer"], o["phase"]): o for o in d["ops"]}
want = {("loss", -1, "fwd"), ("adam", -1, "opt"), ("dropout", 0, "fwd"), ("gather", 0, "fwd"), ("matmul", 0, "fwd"),
        ("matmul", 0, "bwd"), ("relu", 0, "bwd"), ("dropout", 1, "bwd"), ("gather", 1, "bwd"), ("bias", 1, "bwd")}
assert want <= set(ops), want - set(ops)
assert all(o["calls"] == 1 and o["ms"] > 0 for o in d["ops"]), d["ops"]
m, f0 = d["edges"], d["features"]
g0 = ops[("gather", 0, "fwd")]          # layer 0 aggregates first: 32 input features wide
assert g0["kind"] == "graph" and g0["cols"] == f0 and g0["row_bytes"] == 4 * m * f0 and g0["flops"] == 2 * m * f0, g0
mm = ops[("matmul", 0, "fwd")]
assert mm["kind"] == "matmul" and mm["flops"] == 2 * d["nodes"] * f0 * 32, mm
loss = ops[("loss", -1, "fwd")]           # the training rows' logits only, the rest known zero after the first epoch
logits = loss["flops"] / 6                # LOSS_FLOPS_PER_LOGIT
assert 0 < logits < d["nodes"] * d["classes"] and logits % d["classes"] == 0, loss
assert loss["stream_bytes"] == 8 * logits + 8 * logits / d["classes"], loss   # read, written; labels and indices
bf, bb = ops[("bias", 0, "fwd")], ops[("bias", 0, "bwd")]   # in place: the backward only reads its gradient
assert bf["in_place"] and bb["in_place"] and not ops[("matmul", 0, "fwd")]["in_place"], (bf, bb)
assert bb["reads_only"] and not bf["reads_only"] and not ops[("relu", 0, "bwd")]["reads_only"], (bf, bb)
assert bb["stream_bytes"] == bf["stream_bytes"] - 4 * d["nodes"] * 32, (bf, bb)
total = sum(o["ms"] for o in d["ops"])
mean = sum(d["epochs_ms"][1:]) / 3
assert 0.3 * mean < total <= 1.05 * mean, (total, mean)   # host ops are most of the step, never more than it
PYEOF
one=$("$BIN" train --dataset "$tmp/g" --epochs 1 --profile ops --json --quiet | json_get ops_epochs)
[ "$one" = 0 ] && ok "--profile ops over one epoch counts none (its first is dropped)" || bad "one epoch: ops_epochs $one"

full=$("$BIN" train --model gcn --epochs 6 --json | json_get losses)
"$BIN" train --model gcn --epochs 4 --checkpoint "$tmp/c.ckpt" --quiet || bad "checkpointed run"
rest=$("$BIN" train --model gcn --epochs 6 --resume "$tmp/c.ckpt" --json 2>"$tmp/resume.err" | json_get losses)
grep -qx "gnnscope: resuming from epoch 4 of $tmp/c.ckpt (epochs 5-6 to go)" "$tmp/resume.err" \
    && ok "a resumed run says from where: $(cat "$tmp/resume.err")" || bad "resume notice: $(cat "$tmp/resume.err")"
$PY -c "import sys; f=eval(sys.argv[1]); r=eval(sys.argv[2]); assert f[4:]==r, (f, r)" "$full" "$rest" \
    && ok "resume after epoch 4 repeats epochs 5-6 exactly" || bad "resume losses differ: $full vs $rest"

# the virtual clock with roofline kernels is deterministic: two identical
# streamed runs give the same emulated times to the nanosecond
flags=(--devices 2 --device-mem 1M --selective auto --pipeline on --swap on --epochs 3 --json --quiet)
one=$("$BIN" train "${flags[@]}" | tail -n 1)
two=$("$BIN" train "${flags[@]}" | tail -n 1)
$PY - "$one" "$two" <<'PYEOF' && ok "two roofline runs: identical emulated epoch times" || bad "roofline runs differ"
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert a["clock"] == "virtual" and a["kernel_time"] == "roofline", (a["clock"], a["kernel_time"])
for k in ("epoch_ms_median", "eval_ms_median", "compute_ms", "exposed_ms", "idle_ms", "losses"):
    assert a[k] == b[k], (k, a[k], b[k])
assert a["epoch_ms_median"] > 0
print(f"epoch {a['epoch_ms_median']} ms both times")
PYEOF

"$BIN" train --model gat --epochs 100000 --checkpoint "$tmp/i.ckpt" --quiet &
pid=$!
for _ in $(seq 50); do [ -f "$tmp/i.ckpt" ] && break; sleep 0.2; done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] && ok "SIGINT stops the run (exit 130)" || bad "SIGINT exit $rc"
expect_fail 2 "already reached" -- "$BIN" train --model gat --epochs 1 --resume "$tmp/i.ckpt" --quiet # loads, nothing to do
for sig in TERM HUP; do # exit 128 + the signal, after the epoch, with a complete trace
    "$BIN" train --model gcn --epochs 100000 --trace "$tmp/$sig.json" --quiet &
    pid=$!
    sleep 2
    kill -$sig "$pid"
    wait "$pid"
    rc=$?
    want=$((128 + $(kill -l $sig)))
    [ "$rc" -eq "$want" ] && $PY -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/$sig.json" &&
        ok "SIG$sig: exit $rc, the trace complete" || bad "SIG$sig: exit $rc (want $want), trace $(ls "$tmp" | tr '\n' ' ')"
done
ls "$tmp"/i.ckpt.tmp.* >/dev/null 2>&1 && bad "temporary checkpoint left behind" || ok "no temporary files left"
finish
