#!/usr/bin/env python3
"""bench_memory.py - gnnscope's peak memory on the CPU against PyTorch's and
the libraries' (issue 28 item 3), and its own estimate, on one graph:
generated power-law, NODES (default 1M) vertices, average degree 20 (20M
directed edges plus a self-loop each), 128 features, 16 classes; GCN, 2
layers, hidden 128, EPOCHS (default 2) epochs, THREADS (default 2) threads.
Sides, one after another (each its own process, so each peak is its own):
  - gnnscope (peak_rss_bytes; peak_estimate_bytes, predicted before training),
  - the reference script bench/peer_gcn.py (torch.sparse) on Debian's
    PyTorch 1.13 and on the current PyTorch of .bench-venv,
  - PyG's GCNConv and DGL's GraphConv (bench/peer_conv.py).
A peer's peak is its whole run's (import and reading the files included,
as the issue defines it) and, beside it, its training alone (VmHWM reset
once the data is loaded).
Bars: gnnscope <= 0.8x the reference script's peak on PyTorch 1.13; the
estimate within 10% of the measured peak.
Usage: bench/bench_memory.py [WORKDIR] [--epochs E] [--nodes N]"""
import json, os, subprocess, sys

import benchlib as bl

VENV = os.path.join(bl.root, ".bench-venv", "bin", "python")
VENV_DGL = os.path.join(bl.root, ".bench-venv-dgl", "bin", "python")


def peer(label, py, script, g, flags, probe):
    """One peer's JSON line, or None (with a line saying why) where its interpreter lacks probe."""
    if not os.path.exists(py) or subprocess.run([py, "-c", probe], capture_output=True).returncode:
        print(f"skipped  {label}: {py} cannot '{probe}' (run `make bench-deps`)")
        return None
    out = subprocess.run([py, os.path.join(bl.root, "bench", script), g, *flags], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def mib(b):
    return f"{b / 2**20:8.0f} MiB" if b else "       ? MiB"


def main():
    a = bl.setup(epochs=2, nodes=1000000)
    threads = os.environ.get("THREADS", "2")
    os.environ["OMP_NUM_THREADS"] = threads
    g = bl.gen_graph(a.work, a.nodes, 20, 128, 16)
    bl.train(g, "--epochs", "1", "--hidden", "16")  # fills the binary cache
    flags = ["--epochs", str(a.epochs), "--threads", threads, "--hidden", "128"]
    ours = bl.train(g, *flags)
    common = [*flags, "--dropout", "0.5"]
    peers = {
        "pytorch 1.13 (peer_gcn.py)": peer("pytorch 1.13", "/usr/bin/python3", "peer_gcn.py", g, common, "import torch"),
        "pytorch current (peer_gcn.py)": peer("pytorch current", VENV, "peer_gcn.py", g, common, "import torch"),
        "pyg GCNConv": peer("pyg", VENV, "peer_conv.py", g, [*common, "--framework", "pyg", "--model", "gcn"], "import torch_geometric"),
        "dgl GraphConv": peer("dgl", VENV_DGL, "peer_conv.py", g, [*common, "--framework", "dgl", "--model", "gcn"], "import dgl"),
    }
    print(f"graph: {ours['nodes']} vertices, {ours['edges']} directed edges (self-loops included), {ours['features']} features; "
          f"GCN hidden 128, {a.epochs} epochs, {threads} threads")
    print(f"  {'gnnscope':30s} peak {mib(ours['peak_rss_bytes'])}  estimated before training {mib(ours['peak_estimate_bytes'])}")
    for name, r in peers.items():
        if r:
            print(f"  {name:30s} peak {mib(r['peak_rss_bytes'])}  training alone {mib(r.get('train_peak_rss_bytes'))}"
                  f"  (torch {r['torch']})")
    est = ours["peak_estimate_bytes"] / ours["peak_rss_bytes"]
    bl.check("the estimate before training", abs(est - 1) <= 0.10, f"{est:.3f}x the measured peak (bar within 10%)")
    ref = peers["pytorch 1.13 (peer_gcn.py)"]
    if ref:
        ratio = ours["peak_rss_bytes"] / ref["peak_rss_bytes"]
        bl.check("peak against the reference script on PyTorch 1.13", ratio <= 0.8, f"{ratio:.3f}x (bar <= 0.8)")
    for name, r in peers.items():
        if r and r.get("train_peak_rss_bytes"):
            print(f"info  against {name}: {ours['peak_rss_bytes'] / r['peak_rss_bytes']:.3f}x its whole run, "
                  f"{ours['peak_rss_bytes'] / r['train_peak_rss_bytes']:.3f}x its training alone")
    bl.finish("bench_memory")


if __name__ == "__main__":
    sys.exit(main())
