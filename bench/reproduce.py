#!/usr/bin/python3
"""reproduce.py - the papers' comparisons on the papers' machines at the
papers' dataset shapes, each beside the paper's own number.

Every row is a ranking the paper reports: configuration A against B on one
shape and machine, with the paper's ratio (time of B / time of A) where the
text gives one. gnnscope runs both (--simulate, roofline kernel times: the
emulated times of a real run) and prints its own ratio, their quotient, and
whether the ranking matches (A at least 5% faster than B, or, for a paper
ratio below 1.1, ours within 10% of it). The last line is

    reproduced: R of N rankings, effect error mean M% max X%

where an effect error is |ours / paper - 1| over the rows with a paper
number; a run's time is its last epoch (the steady state, after the epochs
a memory plan records). Shapes are scaled (gen:like=NAME,scale=S) with each device's
memory scaled by the same factor, so a graph keeps its size relative to the
GPU; --quick halves the scales. A row that cannot match says why in its
note: a mechanism gnnscope models differently, or an unstated setting (our
choice is named). Numbers come from the papers' text: NeuGraph §5 (Table
2, Fig. 16, Fig. 17), NGra §6 (Figs. 14, 16), ROC §7 (Figs. 8, 10),
GraphTensor §VI (Figs. 15, 19), NeutronStar §2 and §5 (Figs. 2, 9, Table 3).

Usage: bench/reproduce.py [WORKDIR] [--quick] [--only PAPER]"""
import argparse, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

GIB = 1 << 30
ap = argparse.ArgumentParser()
ap.add_argument("work", nargs="?", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "gnnscope-reproduce"))
ap.add_argument("--quick", action="store_true", help="half the scales: a few minutes")
ap.add_argument("--only", default="", help="one paper: neugraph, ngra, roc, graphtensor, neutronstar")
args = ap.parse_args()
os.makedirs(args.work, exist_ok=True)
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
benchlib.build()
q = 0.5 if args.quick else 1.0
cache = {}
# Graphs whose ids come from a crawl (SNAP's social and web graphs, Amazon's co-purchases): generated with
# local=1, each class's vertices numbered together, so most edges join nearby ids; how much locality the real
# numbering has is not published, and local=1 (about 80% of edges within one of C id ranges) is our choice.
CRAWLED = {"amazon", "ns-google", "ns-pokec", "ns-livejournal", "ns-orkut"}


def run(shape, scale, flags, metric="epoch_ms_last", gpu_mem=16 * GIB):
    """A simulated run of shape at scale: its last emulated epoch (ms: the steady state, after the epochs a memory
    plan records), or another field of its JSON."""
    s = scale * q
    key = (shape, s, tuple(flags), metric)
    if key not in cache:
        spec = f"gen:like={shape},scale={s:g}" + (",local=1" if shape in CRAWLED else "")
        cmd = [benchlib.exe, "train", "--simulate", "--json", "--quiet", "--dataset", spec, *flags]
        if "--epochs" not in flags:
            cmd += ["--epochs", "3"]
        if "--ranks" not in flags and "--batch-size" not in flags:
            cmd += ["--device-mem", str(max(int(gpu_mem * s), 1 << 20))]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else p.returncode}")
        cache[key] = json.loads(p.stdout.strip().splitlines()[-1])[metric]
    return cache[key]


rows = []  # (paper, figure, what, ours, paper ratio or None, matched, note)


def record(paper, figure, what, ours, paper_ratio, note):
    """One row: a reported speedup must show (at least 5%); a ratio near 1 must be within 10% of the paper's."""
    matched = ours >= 1.05 if paper_ratio is None or paper_ratio >= 1.1 else abs(ours - paper_ratio) <= 0.1 * paper_ratio
    rows.append((paper, figure, what, ours, paper_ratio, matched, note))
    pr = f"{paper_ratio:5.2f}x" if paper_ratio else "   -  "
    qu = f"{ours / paper_ratio:5.2f}" if paper_ratio else "  -  "
    print(f"{paper:12s} {figure:10s} {what:58s} paper {pr} ours {ours:6.2f}x ours/paper {qu} "
          f"{'match' if matched else 'MISMATCH'}{'  (' + note + ')' if note else ''}", flush=True)


def failed(paper, figure, what, paper_ratio, e):
    rows.append((paper, figure, what, None, paper_ratio, False, f"failed: {e}"))
    print(f"{paper:12s} {figure:10s} {what}: failed: {e}", flush=True)


def rank(paper, figure, what, fast, slow, paper_ratio, note=""):
    """fast, slow: (shape, scale, flags[, metric]); records time(slow) / time(fast)."""
    try:
        ours = run(*slow) / run(*fast)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        return failed(paper, figure, what, paper_ratio, e)
    record(paper, figure, what, ours, paper_ratio, note)


def rank_mean(paper, figure, what, shapes, fast, slows, metric, paper_ratio, note=""):
    """A paper's number that is a mean over graphs: the mean over shapes ((shape, scale) pairs) of
    time(slow) / time(fast flags), where time(slow) is the mean over slows (a list of flag lists: a
    baseline the paper reports as the mean of its configurations), with each graph's own ratio in the note."""
    try:
        each = [sum(run(shape, scale, slow, metric) for slow in slows) / len(slows) / run(shape, scale, fast, metric)
                for shape, scale in shapes]
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        return failed(paper, figure, what, paper_ratio, e)
    per = ", ".join(f"{shape.removeprefix('gt-')} {r:.2f}x" for (shape, _), r in zip(shapes, each))
    record(paper, figure, what, sum(each) / len(each), paper_ratio, f"{per}; {note}" if note else per)


def want(paper):
    return not args.only or args.only == paper


NG = ["--topology", "neugraph-8xp100", "--model", "gcn", "--hidden", "128"]
# TF-SAGA: the SAGA-NN program streamed chunk by chunk with none of NeuGraph's optimisations (TensorFlow's ops on
# each chunk: the scatter's edge rows are made and summed on the GPU, never sent home)
TFSAGA = ["--fuse", "off", "--selective", "off", "--pipeline", "off", "--swap", "off", "--multidev", "naive",
          "--dkp", "off", "--memplan", "stream"]
NEUGRAPH = ["--fuse", "on", "--selective", "auto", "--pipeline", "on", "--swap", "on", "--multidev", "chain", "--dkp", "off"]
SCALES = {"reddit-full": 0.005, "enwiki": 0.005, "ngra-enwiki": 0.005, "amazon": 0.01, "reddit": 0.05, "reddit-middle": 0.5,
          "products": 0.02, "ns-google": 0.02, "ns-pokec": 0.01, "ns-livejournal": 0.004, "ns-orkut": 0.004,
          # ROC's Reddit at a quarter of its size (28.6M edges, ~25 s a run): ROC partitions for balance, and the
          # gain over equal-edge grows with the graph (1.03x at 0.05, the scale until 2026-12-08; 1.035x at 0.1,
          # 1.051x at 0.25, 1.053x at 0.5), so the rows run nearer the paper's full size than time allows elsewhere
          "roc-reddit": 0.25}

if want("neugraph"):
    table2 = {"reddit-full": 20.94 / 4.28, "enwiki": 11.07 / 3.63, "amazon": 6.55 / 1.82}
    for shape, ratio in table2.items():
        sc = SCALES[shape]
        rank("NeuGraph", "Table 2", f"GCN {shape}, 1 GPU: NeuGraph over TF-SAGA", (shape, sc, NG + ["--devices", "1"] + NEUGRAPH),
             (shape, sc, NG + ["--devices", "1"] + TFSAGA), ratio,
             "TF-SAGA = the plain program, no selective/pipeline/swap, its scatter and gather on each chunk's GPU, the "
             "edge rows kept there")
    for shape in table2:
        sc = SCALES[shape]
        off = NG + ["--devices", "1", "--selective", "off", "--pipeline", "off", "--swap", "off"]
        rank("NeuGraph", "Fig. 16", f"GCN {shape}: column-row over row-column order", (shape, sc, off + ["--stream-order", "column"]),
             (shape, sc, off + ["--stream-order", "row"]), 1.55,
             "paper: 1.4-1.7x, midpoint; NeuGraph's P is not stated: at --chunks auto the column order fits the scaled cap in "
             "one chunk (the row order in one or two), where neither reloads much (forced to P = 4 / 8: reddit-full 1.37x / 1.74x, "
             "enwiki 1.79x / 2.76x, amazon 1.62x / 2.59x)")
    sc = SCALES["enwiki"]
    rank("NeuGraph", "Fig. 17", "GCN enwiki: 2 GPUs with chain over 1 GPU", ("enwiki", sc, NG + NEUGRAPH + ["--devices", "2"]),
         ("enwiki", sc, NG + NEUGRAPH + ["--devices", "1"]), 5.5 / 3.8, "3.8x -> 5.5x over 1-GPU TF-SAGA")
    rank("NeuGraph", "Fig. 17", "GCN enwiki: 2 GPUs, chain over no chain", ("enwiki", sc, NG + NEUGRAPH + ["--devices", "2"]),
         ("enwiki", sc, NG + NEUGRAPH + ["--devices", "2", "--multidev", "naive"]), None,
         "the paper: without chain 2 GPUs fall below 1 GPU; ours stay 1.22x above it: the uplink they share carries 1 GPU's "
         "blocks twice, but their gathers' compute and ApplyVertex split")
    sc = SCALES["amazon"]
    # Fig. 15 turns NeuGraph's optimisations on one by one from TF-SAGA: kernel, then selective, then pipeline,
    # then swap (sec. 5.2), so selective's "additional 2.6x" is measured with the kernel optimisation on and the
    # pipeline and swap still off
    streamed = NG + ["--devices", "1", "--memplan", "stream", "--chunks", "8", "--pipeline", "off", "--swap", "off"]
    rank("NeuGraph", "Fig. 15", "GCN amazon: selective scheduling on over off", ("amazon", sc, streamed + ["--selective", "on"]),
         ("amazon", sc, streamed + ["--selective", "off"]), 2.6,
         "the additional 2.6x of sec. 5.2, before the pipeline and swap are turned on (with them on: 1.36x); ids local=1 "
         "(crawl order; --order metis, a locality-aware cut as NeuGraph's, gives the same); 8 chunks streamed (NeuGraph's "
         "P is not stated; at --chunks auto this shape fits one chunk, where nothing can be filtered); with random ids 0.98x")

if want("ngra"):
    # NGra streams every graph chunk by chunk and swaps what the next stage needs (it has no memory plan:
    # --memplan stream; nor NeuGraph's selective scheduling and sub-chunk swap); its P is not stated: 8, as for NeuGraph's Fig. 15 (at --chunks auto these scaled graphs fit
    # one chunk, where nothing streams twice and the orders differ only by what they swap)
    NGRA = NG + ["--memplan", "stream", "--chunks", "8", "--selective", "off", "--swap", "off"]
    # NGra's enwiki is its own Table 1's (3.2M vertices, 222.1M edges), not NeuGraph's (3.6M, 276.1M)
    P8 = "P = 8 and nothing kept between ops, no selective scheduling or swap (NGra's P is not stated; it has none of them)"
    sc = SCALES["ngra-enwiki"]
    ring = NGRA + ["--fuse", "on", "--multidev", "ring"]
    rank("NGra", "Fig. 16", "GCN enwiki: 2 GPUs with the ring over 1 GPU", ("ngra-enwiki", sc, ring + ["--devices", "2"]),
         ("ngra-enwiki", sc, ring + ["--devices", "1"]), 1.93,
         P8 + "; the 1-GPU run is bound by its uplink less than NGra's: its D2H and the products' inputs (which no ring "
         "shares) take their own time")
    rank("NGra", "Fig. 16", "GCN enwiki: 2 GPUs without the ring over 1 GPU", ("ngra-enwiki", sc, NGRA + ["--multidev", "naive", "--devices", "2"]),
         ("ngra-enwiki", sc, NGRA + ["--multidev", "naive", "--devices", "1"]), 1.06, P8 + "; both GPUs load through one switch's uplink")
    sc = SCALES["reddit-middle"]
    fig14 = NGRA + ["--devices", "1"]
    rank("NGra", "Fig. 14", "GCN reddit-middle: NGra's order over dest-order", ("reddit-middle", sc, fig14 + ["--stream-order", "column"]),
         ("reddit-middle", sc, fig14 + ["--stream-order", "row"]), 1.77, "paper 60.1-93.1%, midpoint; " + P8)
    rank("NGra", "Fig. 14", "GCN reddit-middle: NGra's order over stage-based", ("reddit-middle", sc, fig14 + ["--stream-order", "column"]),
         ("reddit-middle", sc, fig14 + ["--stream-order", "stage"]), 1.30,
         "paper 24.9-35.1%, midpoint; the swap between the stages is each column's accumulator, home and back; " + P8)

if want("roc"):
    ROC = ["--topology", "roc-4x4p100", "--model", "gcn", "--hidden", "256", "--order", "none"]
    sc = SCALES["roc-reddit"]
    for base in ("equal-vertex", "equal-edge"):  # Reddit's ids carry its skew: hubs first; ROC learns over the epochs
        part = ROC + ["--devices", "4", "--epochs", "8"]
        rank("ROC", "Fig. 8", f"GCN reddit, 4 GPUs: roc partitioner over {base}",
             ("reddit,hubs=1", sc, part + ["--partitioner", "roc"], "epoch_ms_last"),
             ("reddit,hubs=1", sc, part + ["--partitioner", base], "epoch_ms_last"), None,
             "one node of the cluster; ids hubs-first; the last epoch (roc's re-cut epochs profile the memory plan anew); "
             "a quarter of Reddit's size: over equal-edge the gain grows with the graph (1.03x at 0.05, 1.035x at 0.1, "
             "1.053x at 0.5) and stays small, since on this dense graph equal-edge's cut already nearly balances the "
             "whole layer and its memory plan lets the ApplyVertex chains have the memory first")
    rank("ROC", "Fig. 10", "GCN reddit, 1 GPU: ROC's memory plan over streaming all", ("reddit", sc, ROC + ["--devices", "1", "--memplan", "roc"]),
         ("reddit", sc, ROC + ["--devices", "1", "--memplan", "stream"]), 1.6, "paper 1.2-2x, midpoint")

if want("graphtensor"):
    GT = ["--topology", "graphtensor-3090", "--model", "gcn", "--hidden", "64", "--batch-size", "300", "--fanout", "10,5"]
    sc = SCALES["products"]
    # Fig. 15's DKP numbers are means over Table II's graphs, light (< 4K features) and heavy, and Fig. 15 times a
    # batch's GPU kernels (Nsight): our step_ms, the steps' device time without the batches' preparation. A
    # framework without DKP runs either order as its user writes it, and "the figures show the average latency of
    # the two execution[s]" (sec. VI): Base-GT is the mean of aggregation first (--dkp off) and combination first
    # (--dkp on). Read so, the text agrees with itself: on light graphs DKP keeps aggregation first (the paper's
    # own Table I rates it cheaper on products) yet gains 47.7%, and Fig. 18's 5.4x fewer FLOPs is the
    # combination-first half of the baseline multiplying every sampled source's features
    DKP = ("GCN, hidden 64, fanout 10,5 assumed; ours is the mean of the graphs' ratios; Base-GT is the mean of its two "
           "orders, as sec. VI says the figure's bars are (against aggregation first alone: light 1.05x, heavy 1.38x)")
    BASE_GT = [GT + ["--dkp", "off"], GT + ["--dkp", "on"]]
    light = (("products", sc), ("gt-citation2", 0.02), ("gt-papers", 0.001), ("gt-amazon", 0.02), ("gt-reddit2", 0.05))
    heavy = (("gt-gowalla", 0.05), ("gt-google", 0.02), ("gt-roadnet-ca", 0.01), ("gt-wiki-talk", 0.02), ("gt-livejournal", 0.005))
    rank_mean("GraphTensor", "Fig. 15a", "GCN light-feature graphs: Dynamic-GT (DKP) over Base-GT, mean", light,
              GT + ["--dkp", "auto"], BASE_GT, "step_ms", 1.477, "paper: 'outperforms Base-GT by 47.7%'; " + DKP)
    rank_mean("GraphTensor", "Fig. 15b", "GCN heavy-feature graphs: Dynamic-GT (DKP) over Base-GT, mean", heavy,
              GT + ["--dkp", "auto"], BASE_GT, "step_ms", 1 / (1 - 0.310),
              "paper: 'reduces the training latency of Base-GT by 31.0%', 1 / 0.69")
    rank("GraphTensor", "Fig. 19", "GCN products: Prepro-GT over Dynamic-GT", ("products", sc, GT + ["--prepro", "pipelined"]),
         ("products", sc, GT + ["--prepro", "serial"]), 1.7,
         "1.7x is over light and heavy graphs; Dynamic-GT takes no shared lock (the paper's Fig. 20): the gain is "
         "the overlap and the map's lock-free updates beside the draw")

if want("neutronstar"):
    NS_WHY = ("DepCache's redundant work costs less against DepComm's messages than the paper's: at full size our epochs are "
              "18-36x faster than the paper's on 16 nodes though our one-GPU epoch is Table 5's within 22% (README: slow "
              "kernels or work the paper's distributed engine adds, unpublished); crawl-ordered ids (local=1) narrow the gap "
              "(random ids: livejournal 4.67x, pokec 0.19x, google at 64 0.33x) but do not close it")
    NS_SCALE = ("the parameters' allreduce does not shrink with the graph: at this scale it is 14-75% of an epoch "
                "(at full size 1% or less) and pulls the ratio towards 1 (google at scale 0.08: 2.14x over DepCache, "
                "2.96x over DepComm)")
    # Fig. 2 ran on 8 nodes of the ECS cluster ("an 8-node Aliyun ECS GPU cluster", sec. 2) and on the IBV
    # cluster's 8; Fig. 9 and Table 3 on the ECS cluster's 16 (sec. 5)
    ECS = ["--topology", "ns-16xt4-6g", "--ranks", "16", "--model", "gcn", "--layers", "2"]
    ECS8 = ["--topology", "ns-16xt4-6g", "--ranks", "8", "--model", "gcn", "--layers", "2"]
    IBV = ["--topology", "ns-8xv100-ib", "--ranks", "8", "--model", "gcn", "--layers", "2"]
    for shape, ratio, cache_wins in (("ns-google", 1.23, True), ("ns-livejournal", 1.03, True), ("ns-pokec", 1.54, False)):
        sc = SCALES[shape]
        a, b = ("cache", "comm") if cache_wins else ("comm", "cache")
        rank("NeutronStar", "Fig. 2a", f"GCN-256 {shape}, 8 ECS nodes: Dep{a.capitalize()} over Dep{b.capitalize()}",
             (shape, sc, ECS8 + ["--hidden", "256", "--dep", a]), (shape, sc, ECS8 + ["--hidden", "256", "--dep", b]), ratio,
             "" if cache_wins and shape == "ns-google" else NS_WHY)
    sc = SCALES["reddit"] / 2
    rank("NeutronStar", "Fig. 2a", "GCN-256 reddit, 8 ECS nodes: DepComm over DepCache", ("reddit", sc, ECS8 + ["--hidden", "256", "--dep", "comm"]),
         ("reddit", sc, ECS8 + ["--hidden", "256", "--dep", "cache"]), 7.76)
    sc = SCALES["ns-google"]
    for hidden, ratio, a, b in ((640, 1.43, "cache", "comm"), (64, 1.16, "comm", "cache")):
        rank("NeutronStar", "Fig. 2b", f"GCN-{hidden} ns-google, 8 ECS nodes: Dep{a.capitalize()} over Dep{b.capitalize()}",
             ("ns-google", sc, ECS8 + ["--hidden", str(hidden), "--dep", a]), ("ns-google", sc, ECS8 + ["--hidden", str(hidden), "--dep", b]), ratio,
             "" if a == "cache" else NS_WHY)
    rank("NeutronStar", "Fig. 2c", "GCN-256 ns-google, IBV: DepComm over DepCache", ("ns-google", sc, IBV + ["--hidden", "256", "--dep", "comm"]),
         ("ns-google", sc, IBV + ["--hidden", "256", "--dep", "cache"]), 1.41)
    # Table 3: 100 epochs' runtimes on the 16 ECS nodes (Table 2's hidden widths), Hybrid with every optimisation of
    # §4 (ours: the defaults, ring, lock-free queue, overlap) against DepCache and DepComm
    TABLE3 = (("ns-google", SCALES["ns-google"], 256, 236.6, 311.4, 141.5), ("ns-pokec", SCALES["ns-pokec"], 256, 1327.1, 730.9, 294.4),
              ("ns-livejournal", SCALES["ns-livejournal"], 160, 1712.2, 1412.2, 591.9),
              ("reddit", SCALES["reddit"] / 2, 256, 2866.7, 327.5, 162.6), ("ns-orkut", SCALES["ns-orkut"], 160, 4024.9, 1509.1, 652.6))
    for shape, sc, hidden, cache_s, comm_s, hybrid_s in TABLE3:
        for base, base_s in (("cache", cache_s), ("comm", comm_s)):
            rank("NeutronStar", "Table 3", f"GCN-{hidden} {shape}, 16 ECS nodes: Hybrid over Dep{base.capitalize()}",
                 (shape, sc, ECS + ["--hidden", str(hidden), "--dep", "hybrid"]), (shape, sc, ECS + ["--hidden", str(hidden), "--dep", base]),
                 base_s / hybrid_s, f"paper {base_s} s / {hybrid_s} s over 100 epochs; " + NS_SCALE +
                 ("; DepCache's redundant work costs less than the paper's (Fig. 2a's note)" if base == "cache" else ""))
    # Fig. 9's first bars: the raw engines (no ring, a locked queue, no overlap); its text gives Google's numbers
    RAW = ["--ring", "off", "--queue", "locked", "--overlap", "off"]
    FIG9 = "paper: 1.63-10.34x over DepCache, 1.24-1.68x over DepComm across graphs"
    FIG9_WHY = ("our Hybrid caches every first-hop dependency (the input features: no redundant work) and sends "
                "some of the second hop's narrow rows, so against DepComm it gains more than the paper's and against "
                "DepCache only what the redundant layer costs at the T4's roofline, which is little (Fig. 2a's note); "
                "the allreduce is most of each epoch here (google 2.9 of 4.1 ms, orkut 2.1 of 4.6); " + NS_SCALE)
    sc = SCALES["ns-google"]
    for base, ratio, what in (("comm", 1.32, "paper: 'Hybrid can achieve 1.32X speedup over DepComm'"),
                              ("cache", 1.0, "paper: 'nearly same performance as DepCache' (1.0)")):
        rank("NeutronStar", "Fig. 9", f"GCN-256 ns-google, ECS: raw Hybrid over raw Dep{base.capitalize()}",
             ("ns-google", sc, ECS + ["--hidden", "256", "--dep", "hybrid"] + RAW),
             ("ns-google", sc, ECS + ["--hidden", "256", "--dep", base] + RAW), ratio, what + "; " + FIG9_WHY)
    sc = SCALES["ns-orkut"]
    for base in ("cache", "comm"):
        rank("NeutronStar", "Fig. 9", f"GCN-160 ns-orkut, ECS: raw Hybrid over raw Dep{base.capitalize()}",
             ("ns-orkut", sc, ECS + ["--hidden", "160", "--dep", "hybrid"] + RAW),
             ("ns-orkut", sc, ECS + ["--hidden", "160", "--dep", base] + RAW), None, FIG9 + "; " + FIG9_WHY)
    sc = SCALES["reddit"] / 2  # Fig. 9's optimisations, added one by one to Hybrid (R, then L, then P)
    H = ECS + ["--hidden", "256", "--dep", "hybrid"]
    steps = (RAW, ["--ring", "on", "--queue", "locked", "--overlap", "off"],
             ["--ring", "on", "--queue", "lockfree", "--overlap", "off"], ["--ring", "on", "--queue", "lockfree", "--overlap", "on"])
    for (name, ratio, note), slow, fast in zip(
            (("R: ring-ordered sends over rank order", 1.125, "paper 1.10-1.15x, midpoint"),
             ("L: lock-free message queue over a locked one", 1.10, "paper 1.08-1.12x, midpoint; the lock's 0.2 us handoff "
              "is an assumption"),
             ("P: communication overlapped with compute", 1.30, "paper 1.19-1.41x, midpoint; Hybrid caches all of layer 1 and "
              "sends all of layer 2 here, so no DepCache task is left to run beside the messages, and at the T4's "
              "roofline the mirror chunks' gathers hide little (orkut: 1.12x)")),
            steps, steps[1:]):
        rank("NeutronStar", "Fig. 9", f"GCN-256 reddit, ECS, Hybrid: {name}", ("reddit", sc, H + fast), ("reddit", sc, H + slow),
             ratio, note)

n = len(rows)
r = sum(1 for row in rows if row[5])
errs = [abs(row[3] / row[4] - 1) for row in rows if row[3] is not None and row[4]]
papers = sorted({row[0] for row in rows})
print(f"{n} rankings from {len(papers)} papers ({', '.join(papers)})")
if errs:
    print(f"reproduced: {r} of {n} rankings, effect error mean {100 * sum(errs) / len(errs):.0f}% max {100 * max(errs):.0f}%")
else:
    print(f"reproduced: {r} of {n} rankings, effect error mean - max -")
