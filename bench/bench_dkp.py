#!/usr/bin/python3
"""bench_dkp.py - dynamic kernel placement (issue: chunked streaming engine,
DKP bar). Runs gnnscope with --dkp auto against the fixed orders side by side
and compares the aggregation FLOPs the engine counted per layer
(agg_flops_by_layer: FLOPs of the Gather-stage ops of one training step)
and the epoch times.

Scenarios:
1. Cora's first layer (1433 -> 16): auto must choose combination-first and
   cut the layer's aggregation FLOPs >= 10x. Aggregation-first needs no
   aggregation in the first layer's backward (its input needs no gradient,
   GraphTensor §V-A), so the backward bar is checked on a narrowing layer
   whose input does need one (Cora with --hidden 1433: layer 2, 1433 -> 7),
   and the first layer is checked forward and forward + backward.
2. A widening layer (16 -> 256, generated graph with 16 features): auto must
   choose aggregation-first, do fewer aggregation FLOPs than forced
   combination-first, and not be slower.
3. Streamed Cora on the cpu backend: the order also decides whether the
   1433-wide features cross the link once or twice per epoch.

Usage: bench/bench_dkp.py [WORKDIR] [--epochs E] [--nodes N]"""
from benchlib import check, finish, gen_graph, paired, setup, train

a = setup(epochs=10, nodes=100000)
ep = ["--epochs", str(a.epochs), "--model", "gcn", "--layers", "2"]


def layer(r, i):
    return r["agg_flops_by_layer"][i]


def choice(r, i):
    return next(c for c in r["dkp"] if c["layer"] == i)


def fit(r):
    f = r.get("dkp_fit", {})
    return ", ".join(f"{k} {f[k]:.3g}" for k in ("alpha", "beta", "gamma", "delta") if k in f)


# 1. Cora, first layer 1433 -> 16
auto, off = paired("cora", ep + ["--hidden", "16", "--dkp", "auto"], ep + ["--hidden", "16", "--dkp", "off"])
c, la, lo = choice(auto, 0), layer(auto, 0), layer(off, 0)
check("DKP auto picks combination-first for Cora layer 1 (1433->16)", c["order"] == "combination-first",
      f"order {c['order']}, predicted saving {c['predicted_saving_ms']:.2f} ms by the fitted model ({fit(auto)})")
check("... and cuts its forward aggregation FLOPs >= 10x", lo["fwd"] >= 10 * la["fwd"],
      f"off {lo['fwd']/1e6:.2f} MFLOP, auto {la['fwd']/1e6:.2f} MFLOP ({lo['fwd']/max(la['fwd'],1):.1f}x)")
tot_o, tot_a = lo["fwd"] + lo["bwd"], la["fwd"] + la["bwd"]
check("... and its forward + backward aggregation FLOPs >= 10x", tot_o >= 10 * tot_a,
      f"off {tot_o/1e6:.2f} MFLOP (backward {lo['bwd']/1e6:.2f}), auto {tot_a/1e6:.2f} MFLOP "
      f"(backward {la['bwd']/1e6:.2f}) ({tot_o/max(tot_a,1):.1f}x); epoch off {off['epoch_ms_median']:.1f} ms, "
      f"auto {auto['epoch_ms_median']:.1f} ms")
wa, wo = paired("cora", ["--epochs", "3", "--hidden", "1433", "--dkp", "auto"],
                ["--epochs", "3", "--hidden", "1433", "--dkp", "off"], rounds=1)
c, la, lo = choice(wa, 1), layer(wa, 1), layer(wo, 1)
check("backward of a narrowing layer whose input needs a gradient (Cora --hidden 1433, layer 2: 1433->7) >= 10x",
      c["order"] == "combination-first" and lo["bwd"] >= 10 * la["bwd"] and lo["fwd"] >= 10 * la["fwd"],
      f"order {c['order']}; backward off {lo['bwd']/1e6:.2f}, auto {la['bwd']/1e6:.3f} MFLOP "
      f"({lo['bwd']/max(la['bwd'],1):.0f}x); forward {lo['fwd']/max(la['fwd'],1):.0f}x")

# 2. a widening layer, 16 -> 256
wide = gen_graph(a.work, a.nodes, 10, 16, 8)
auto, on = paired(wide, ep + ["--hidden", "256", "--dkp", "auto"], ep + ["--hidden", "256", "--dkp", "on"])
c, la, lo = choice(auto, 0), layer(auto, 0), layer(on, 0)
check("DKP auto picks aggregation-first for a widening layer (16->256)",
      c["order"] == "aggregation-first" and la["fwd"] + la["bwd"] < lo["fwd"] + lo["bwd"],
      f"order {c['order']}; aggregation FLOPs auto {(la['fwd']+la['bwd'])/1e6:.0f} M, "
      f"forced combination-first {(lo['fwd']+lo['bwd'])/1e6:.0f} M")
check("... and is not slower than forced combination-first", auto["epoch_ms_median"] <= 1.05 * on["epoch_ms_median"],
      f"epoch auto {auto['epoch_ms_median']:.0f} ms, combination-first {on['epoch_ms_median']:.0f} ms")

# 3. streamed Cora: the order decides the H2D traffic. --memplan stream
# measures DKP alone: with no device cap the memory plan keeps every tensor
# on the device and the two orders then move the same bytes (shown below)
s = ep + ["--hidden", "16", "--backend", "cpu", "--memplan", "stream"]
auto, off = paired("cora", s + ["--dkp", "auto"], s + ["--dkp", "off"])
check("streamed Cora: DKP auto moves fewer bytes and is faster than aggregation-first",
      auto["h2d_bytes"] < off["h2d_bytes"] and auto["epoch_ms_median"] < off["epoch_ms_median"],
      f"H2D off {off['h2d_bytes']/1e6:.1f} MB, auto {auto['h2d_bytes']/1e6:.1f} MB; epoch off "
      f"{off['epoch_ms_median']:.0f} ms, auto {auto['epoch_ms_median']:.0f} ms (emulated {auto['topology']})")
kept = {d: train("cora", *ep, "--hidden", "16", "--backend", "cpu", "--dkp", d) for d in ("auto", "off")}
print(f"info  with the default memory plan (roc): H2D off {kept['off']['h2d_bytes']/1e6:.1f} MB, auto "
      f"{kept['auto']['h2d_bytes']/1e6:.1f} MB; epoch off {kept['off']['epoch_ms_median']:.0f} ms, auto "
      f"{kept['auto']['epoch_ms_median']:.0f} ms")
finish("bench_dkp")
