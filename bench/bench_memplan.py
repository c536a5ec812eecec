#!/usr/bin/python3
"""bench_memplan.py - the memory plans (issue: chunked streaming engine,
"intermediates ... swapped to the host and back when they do not fit";
ROC §5 and §7.7). Runs gnnscope side by side with --memplan stream (every
op streams its inputs in), lru (ROC's baseline) and roc (ROC Algorithm 1),
and compares the H2D bytes of an epoch once the plan is in force (plans are
made after one recorded epoch) and the epoch times.

Graph: the 200K-vertex, 128-feature sparse graph of bench_stream.py; GCN,
2 layers, hidden 128, so every hidden tensor is 102 MB. Device caps of 400M
and 600M leave room beside the streaming buffers (--chunks auto picks
P = 1) for one to three of the epoch's tensors, not all of them: the plans
must choose. Times are emulated on the cpu backend's virtual device.

Bars:
- roc moves no more bytes than lru at either cap, and at least 1.4x fewer
  than stream at 600M (ROC §7.7 reports 1.4-5x fewer transfers);
- roc's emulated epoch is faster than stream's;
- the plan's predicted bytes match the measured H2D bytes within 1% (the
  rest is the weights' broadcasts, which no plan keeps);
- under the streaming benchmark's cap (a quarter of the working set) no
  hidden tensor fits, and roc then moves what stream moves (reported).

Usage: bench/bench_memplan.py [WORKDIR] [--epochs E] [--nodes N]"""
from benchlib import check, finish, gen_graph, setup, train as run

a = setup(epochs=3, nodes=200000)
sparse = gen_graph(a.work, a.nodes, 8, 128, 16)
# the virtual clock with roofline kernel times: deterministic, one run per setting
base = ["--model", "gcn", "--layers", "2", "--hidden", "128", "--epochs", str(a.epochs), "--backend", "cpu",
        "--chunks", "auto", "--clock", "virtual", "--kernel-time", "roofline"]
tensor_mb = a.nodes * 128 * 4 / 1e6


def train(cap, plan, *extra):
    return run(sparse, *base, "--device-mem", cap, "--memplan", plan, *extra)


def line(r):
    m = r["memplan"]
    return (f"h2d {r['h2d_bytes'] / 1e6:.0f} MB (kept {r['kept_bytes'] / 1e6:.0f} MB, planned "
            f"{m['plan_h2d_bytes'] / 1e6:.0f} MB, budget {m['budget_bytes'] / 1e6:.0f} MB), epoch {r['epoch_ms_median']:.0f} ms")


for cap in ("400M", "600M"):
    stream = train(cap, "stream")
    lru = train(cap, "lru")
    roc = train(cap, "roc")
    print(f"cap {cap}, P = {roc['chunks']}, hidden tensors {tensor_mb:.0f} MB each")
    for name, r in (("stream", stream), ("lru", lru), ("roc", roc)):
        print(f"  {name:6s} {line(r)}")
    check(f"roc <= lru bytes at {cap}", roc["h2d_bytes"] <= lru["h2d_bytes"],
          f"roc {roc['h2d_bytes'] / 1e6:.0f} MB, lru {lru['h2d_bytes'] / 1e6:.0f} MB, stream {stream['h2d_bytes'] / 1e6:.0f} MB")
    predicted, measured = roc["memplan"]["plan_h2d_bytes"], roc["h2d_bytes"]
    check(f"plan predicts the bytes at {cap}", roc["memplan"]["planned"] and abs(measured - predicted) <= 0.01 * measured,
          f"predicted {predicted / 1e6:.1f} MB, measured {measured / 1e6:.1f} MB")
    same = all(abs(x - y) <= 1e-4 * abs(y) for x, y in zip(roc["losses"], stream["losses"]))
    check(f"same losses at {cap}", same, f"roc {roc['losses'][-1]:.6f}, stream {stream['losses'][-1]:.6f} (last epoch)")

ratio = stream["h2d_bytes"] / roc["h2d_bytes"]
check("roc cuts H2D >= 1.4x vs stream at 600M", ratio >= 1.4,
      f"{stream['h2d_bytes'] / 1e6:.0f} -> {roc['h2d_bytes'] / 1e6:.0f} MB ({ratio:.2f}x)")
check("roc epoch faster than stream at 600M", roc["epoch_ms_median"] < stream["epoch_ms_median"],
      f"{stream['epoch_ms_median']:.1f} -> {roc['epoch_ms_median']:.1f} ms (emulated)")

quarter = str(3 * a.nodes * 128 * 4 // 4)
qs, qr = train(quarter, "stream"), train(quarter, "roc")
print(f"info  cap {int(quarter) / 1e6:.1f} MB (a quarter of the working set, P = {qr['chunks']}): "
      f"roc {qr['h2d_bytes'] / 1e6:.0f} MB vs stream {qs['h2d_bytes'] / 1e6:.0f} MB, budget "
      f"{qr['memplan']['budget_bytes'] / 1e6:.1f} MB for {tensor_mb:.0f} MB tensors")
finish("bench_memplan")
