#!/usr/bin/env python3
"""trace_ops.py - two Chrome traces (gnnscope --trace) side by side: each op's
total time per epoch, grouped by span name, layer and phase, in a predicted
run (virtual clock) and a measured one (a GPU), their ratio, and per op
class (gathers, matrix products, elementwise, copies) the predicted time
over the measured: the fraction of the model's rates the device sustained.
Used by scripts/gpu_batch.sh to calibrate a machine model against the
device it models. Spans of the host lane (pid 0) are marked 'host'.
With one trace (TRACE.json EPOCHS), its ops alone.
Usage: trace_ops.py PREDICTED.json MEASURED.json EPOCHS"""
import collections, json, sys

CLASS = {"gather": "gather", "chunk_gather": "gather", "matmul": "matmul", "gemm": "matmul",
         "h2d": "copy", "d2h": "copy", "h2d_rows": "copy", "d2d": "copy"}


def per_op(path, epochs):
    tot, where = collections.Counter(), {}
    for e in json.load(open(path))["traceEvents"]:
        if e.get("ph") != "X":
            continue
        a = e.get("args", {})
        name = {"chunk_gather": "gather", "gemm": "matmul"}.get(e["name"], e["name"])
        key = (name, a.get("layer", -1), a.get("phase", ""))
        tot[key] += e.get("dur", 0) / 1e3 / epochs
        where[key] = "host" if e.get("pid") == 0 else where.get(key, "dev")
    return tot, where


if len(sys.argv) == 3:
    tot, where = per_op(sys.argv[1], int(sys.argv[2]))
    for k in sorted(tot, key=lambda k: -tot[k]):
        print(f"{k[0]:<12} {k[1]:>5} {k[2]:<5} {tot[k]:10.3f} ms per epoch ({where[k]})")
    print(f"total of spans: {sum(tot.values()):.3f} ms per epoch (host spans overlap device spans)")
    sys.exit(0)
pred, pw = per_op(sys.argv[1], int(sys.argv[3]))
meas, mw = per_op(sys.argv[2], int(sys.argv[3]))
print(f"{'op':<12} {'layer':>5} {'phase':<5} {'predicted ms':>13} {'measured ms':>12} {'pred/meas':>10}")
cls_p, cls_m = collections.Counter(), collections.Counter()
for k in sorted(set(pred) | set(meas), key=lambda k: -max(pred[k], meas[k])):
    if max(pred[k], meas[k]) < 0.01:
        continue
    r = f"{pred[k] / meas[k]:.2f}" if meas[k] > 0 else "-"
    tag = f" ({pw.get(k, '')} / {mw.get(k, '')})"
    print(f"{k[0]:<12} {k[1]:>5} {k[2]:<5} {pred[k]:13.3f} {meas[k]:12.3f} {r:>10}{tag}")
    if pred[k] > 0 and meas[k] > 0 and pw.get(k) == "dev":
        c = CLASS.get(k[0], "elementwise")
        cls_p[c] += pred[k]
        cls_m[c] += meas[k]
print("\nper class, ops on the device in both runs: predicted / measured (the sustained fraction of the model's rates)")
for c in sorted(cls_p):
    print(f"  {c:<12} {cls_p[c]:9.3f} ms / {cls_m[c]:9.3f} ms = {cls_p[c] / cls_m[c]:.3f}")
print(f"epoch total of spans: predicted {sum(pred.values()):.3f} ms, measured {sum(meas.values()):.3f} ms")
