#!/usr/bin/python3
"""bench_stream.py - the streaming engine's benchmarks (issue: chunked
streaming engine). Each scenario runs gnnscope side by side in one run with
the knob on and off and prints the measured numbers and PASS/FAIL.

Graphs (generated once into WORKDIR): 200K vertices, 128 features, 16
classes; sparse = average degree 8, dense = average degree 50, and average
degree 200 (Reddit-like density) for pipelining.
Model: GCN, 2 layers, hidden 128. Device cap: a quarter of the working set
(3 x N x 128 floats: input, output and one block buffer), so --chunks auto
streams. Times are emulated on the virtual clock with roofline kernel
times (--clock virtual --kernel-time roofline), so every run is
deterministic and one run per setting suffices; the chunking-cost scenario
alone runs on the wall clock, since it measures the host's own work.

Usage: bench/bench_stream.py [WORKDIR] [--epochs E] [--nodes N]"""
from benchlib import check, finish, gen_graph, paired as paired_runs, setup, train as run

a = setup(epochs=3, nodes=200000)


def train(d, *flags):
    return run(d, "--model", "gcn", "--layers", "2", "--hidden", "128", "--epochs", str(a.epochs), *flags)


def paired(d, a_flags, b_flags):
    return paired_runs(d, a_flags, b_flags, runner=train)


cap = str(3 * a.nodes * 128 * 4 // 4)
sparse, dense = (gen_graph(a.work, a.nodes, deg, 128, 16) for deg in (8, 50))
# --memplan stream in every streamed run: each mechanism is measured alone
# (bench_memplan.py measures the memory plans)
virtual = ["--clock", "virtual", "--kernel-time", "roofline"]
common = ["--backend", "cpu", "--device-mem", cap, "--chunks", "auto", "--memplan", "stream", *virtual]

# 1. selective scheduling
off = train(sparse, *common, "--order", "metis", "--selective", "off")
on = train(sparse, *common, "--order", "metis", "--selective", "on")
# selective scheduling filters the Scatter-Gather stage's source rows; the
# ApplyVertex matmuls' rows (the same bytes either way) are shown beside it
cut = 1 - on["gather_h2d_bytes"] / off["gather_h2d_bytes"]
total = 1 - on["h2d_bytes"] / off["h2d_bytes"]
check("selective, METIS order, sparse graph: gather H2D bytes cut >= 40%", cut >= 0.40,
      f"P={on['chunks']} gathers off {off['gather_h2d_bytes']/1e6:.0f} MB, on {on['gather_h2d_bytes']/1e6:.0f} MB, "
      f"cut {100*cut:.0f}% (all H2D incl. matmuls {off['h2d_bytes']/1e6:.0f} -> {on['h2d_bytes']/1e6:.0f} MB, "
      f"cut {100*total:.0f}%); "
      f"epoch {off['epoch_ms_median']:.0f} -> {on['epoch_ms_median']:.0f} ms; theta threshold {on['theta_threshold']:.3f}")
for name, d in (("sparse", sparse), ("dense", dense)):
    runs = {m: train(d, *common, "--order", "metis", "--selective", m) for m in ("off", "on", "auto")}
    t = {m: r["epoch_ms_median"] for m, r in runs.items()}
    best = min(t["off"], t["on"])
    check(f"selective auto picks the faster option ({name})", t["auto"] <= 1.10 * best,
          f"off {t['off']:.0f} ms, on {t['on']:.0f} ms, auto {t['auto']:.0f} ms "
          f"(filtered {runs['auto']['filtered_blocks']:.0f} of {runs['auto']['filtered_blocks'] + runs['auto']['full_blocks']:.0f} blocks)")

# 2. pipelining with swap (NeuGraph §3.2) on a graph of Reddit-like density
# (average degree 200), where a block's gather work on the modeled GPU is
# comparable to its copy: the same P and k with the double buffers and the
# swap heuristic on and off. The bar is on the gathers' transfer (the
# mechanism streams their blocks); the ApplyVertex products' copies, which
# have little compute to hide under, are in the overall overlap beside it.
reddit = gen_graph(a.work, a.nodes, 200, 128, 16)
pipe_flags = ["--backend", "cpu", "--device-mem", cap, "--selective", "off", "--subchunks", "4", "--memplan", "stream",
              *virtual]
nopipe = train(reddit, *pipe_flags, "--chunks", "auto", "--pipeline", "off", "--swap", "off")
pipe = train(reddit, *pipe_flags, "--chunks", str(nopipe["chunks"]), "--pipeline", "on", "--swap", "on")
speedup = nopipe["epoch_ms_median"] / pipe["epoch_ms_median"]
check("pipeline k=4 + swap hides >= 70% of the gathers' transfer time", pipe["hidden_frac"] >= 0.70,
      f"P={pipe['chunks']} k=4: hidden {100*pipe['hidden_frac']:.0f}% (off: {100*nopipe['hidden_frac']:.0f}%); "
      f"all transfer incl. the products' {100*pipe['overlap']:.0f}% (off: {100*nopipe['overlap']:.0f}%); "
      f"swap reordered {pipe['swapped_cols']:.0f} columns, simulated saving {pipe['swap_saved_ms']:.2f} ms")
check("pipeline k=4 + swap: emulated epoch >= 1.3x faster than pipeline off (same P, k)", speedup >= 1.3,
      f"{nopipe['epoch_ms_median']:.1f} ms -> {pipe['epoch_ms_median']:.1f} ms ({speedup:.2f}x); breakdown on: "
      f"compute {pipe['compute_ms']:.1f}, exposed {pipe['exposed_ms']:.1f}, idle {pipe['idle_ms']:.1f}, "
      f"host {pipe['host_ms']:.1f} ms (with eval)")

# 3. chain against naive on pcie-4gpu-2switch
md = common + ["--devices", "4", "--topology", "pcie-4gpu-2switch", "--selective", "off"]
naive = train(sparse, *md, "--multidev", "naive")
chain = train(sparse, *md, "--multidev", "chain")
# chain streaming shares the Scatter-Gather stage's source blocks; the
# ApplyVertex matmuls' row blocks go to one device each, the same bytes in
# both modes, so the bar is on the gathers' share of the uplinks
up = lambda r: r["link_bytes"]["host>sw0"] + r["link_bytes"]["host>sw1"]
gather_up = lambda r: up(r) - (r["h2d_bytes"] - r["gather_h2d_bytes"])
ratio = gather_up(naive) / max(gather_up(chain), 1)
check("chain cuts the gathers' host-uplink bytes ~2x against naive", 1.8 <= ratio <= 2.2,
      f"P={chain['chunks']}: gathers' uplink bytes naive {gather_up(naive)/1e6:.0f} MB, chain {gather_up(chain)/1e6:.0f} MB "
      f"({ratio:.2f}x); all uplink bytes incl. matmuls {up(naive)/1e6:.0f} -> {up(chain)/1e6:.0f} MB "
      f"({up(naive)/max(up(chain),1):.2f}x); d2d {chain['d2d_bytes']/1e6:.0f} MB")
check("chain epoch time is lower than naive", chain["epoch_ms_median"] < naive["epoch_ms_median"],
      f"{naive['epoch_ms_median']:.0f} ms -> {chain['epoch_ms_median']:.0f} ms")

# 4. the cost of chunking itself on the host: wall clock, link model off, P = 4
mem, p4 = paired(sparse, [], ["--backend", "cpu", "--clock", "wall", "--links", "native", "--chunks", "4", "--selective",
                              "off", "--memplan", "stream"])
r = p4["epoch_ms_median"] / mem["epoch_ms_median"]
check("chunking P=4 without the link model costs <= 1.3x in-memory", r <= 1.3,
      f"in-memory {mem['epoch_ms_median']:.0f} ms, P=4 {p4['epoch_ms_median']:.0f} ms ({r:.2f}x)")

finish("bench_stream")
