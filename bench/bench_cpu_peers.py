#!/usr/bin/env python3
"""bench_cpu_peers.py - gnnscope on the CPU against the libraries users would
pick instead (issue 28 item 4), side by side in one run on the same graph,
model and threads, alternating rounds on this noisy VM:
  - torch-geometric (GCNConv, GATConv) on a current PyTorch (.bench-venv),
  - DGL (GraphConv, GATConv) on the newest PyTorch its last PyPI release
    supports (.bench-venv-dgl),
  - Debian's PyTorch 1.13 (peer_gcn.py, torch.sparse; GCN only) when
    /usr/bin/python3 has it, the fallback where PyPI is not reachable.
`make bench-deps` installs all three. Graph: generated power-law, NODES
(default 120K) vertices, average degree 24 (2.9M directed edges plus a
self-loop each), 128 features, 16 planted classes. GCN: 2 layers, hidden 128,
dropout 0.5, Adam 0.01, wd 5e-4. GAT: hidden 8 x 8 heads, dropout 0.6,
Adam 0.005. THREADS (default 2) threads everywhere (OMP_NUM_THREADS too).
MODELS (default gcn,gat) picks the models.
Reports per model the median over ROUNDS (default 3) of each side's median
epoch, the ratio gnnscope / peer, peak RSS (imports included), and time to
accuracy: the training time (evaluation excluded) until the test accuracy
first reaches 95% of the lowest final accuracy among the sides.
Bars (issue 28): GCN epoch <= 0.5x PyG's and DGL's, <= 0.2x PyTorch 1.13's.
GAT is reported beside them without a bar.
Usage: bench/bench_cpu_peers.py [WORKDIR] [--epochs E] [--nodes N]"""
import json, os, statistics, subprocess, sys

import benchlib as bl

PEERS = {  # side -> (python, script, extra flags); absent interpreters are skipped with a line
    "pyg": (os.path.join(bl.root, ".bench-venv", "bin", "python"), "peer_conv.py", ["--framework", "pyg"]),
    "dgl": (os.path.join(bl.root, ".bench-venv-dgl", "bin", "python"), "peer_conv.py", ["--framework", "dgl"]),
    "torch1.13": ("/usr/bin/python3", "peer_gcn.py", []),
}
MODELS = {
    "gcn": {"hidden": 128, "dropout": 0.5, "lr": 0.01, "peers": ("pyg", "dgl", "torch1.13"), "bar": {"pyg": 0.5, "dgl": 0.5, "torch1.13": 0.2}},
    "gat": {"hidden": 8, "heads": 8, "dropout": 0.6, "lr": 0.005, "peers": ("pyg", "dgl"), "bar": {}},
}


def available(side):
    py, _, flags = PEERS[side]
    probe = {"pyg": "import torch_geometric", "dgl": "import dgl", "torch1.13": "import torch"}[side]
    ok = os.path.exists(py) and subprocess.run([py, "-c", probe], capture_output=True).returncode == 0
    if not ok:
        print(f"skipped  {side}: {py} cannot '{probe}' (run `make bench-deps`)")
    return ok


def common_flags(m, epochs, threads):
    f = ["--epochs", str(epochs), "--threads", str(threads), "--hidden", str(m["hidden"]), "--dropout", str(m["dropout"]),
         "--lr", str(m["lr"]), "--weight-decay", "5e-4"]
    return f + (["--heads", str(m["heads"])] if "heads" in m else [])


def run_peer(side, model, g, flags):
    py, script, extra = PEERS[side]
    cmd = [py, os.path.join(bl.root, "bench", script), g, *extra, *flags]
    if script == "peer_conv.py":
        cmd += ["--model", model]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def time_to_accuracy(run, target):
    """Training ms until the test accuracy first reaches target (None if never)."""
    spent = 0.0
    for ms, acc in zip(run.get("epochs_ms", []), run.get("test_accs", [])):
        spent += ms
        if acc >= target:
            return spent
    return None


def bench_model(name, g, epochs, threads, rounds):
    m = MODELS[name]
    peers = [p for p in m["peers"] if available(p)]
    flags = common_flags(m, epochs, threads)
    runs = {s: [] for s in ["gnnscope", *peers]}
    for _ in range(rounds):
        runs["gnnscope"].append(bl.train(g, "--model", name, *flags))
        for p in peers:
            runs[p].append(run_peer(p, name, g, flags))
    med = {s: statistics.median(r["epoch_ms_median"] for r in rs) for s, rs in runs.items()}
    last = {s: rs[-1] for s, rs in runs.items()}
    target = 0.95 * min(r["test_acc"] for r in last.values())
    print(f"\n{name}: {rounds} rounds of {epochs} epochs, {threads} threads; time-to-accuracy target {target:.3f}")
    for s, r in last.items():
        tta = time_to_accuracy(r, target)
        print(f"  {s:10s} epoch {med[s]:9.1f} ms  test_acc {r['test_acc']:.3f}  peak RSS {r['peak_rss_bytes'] / 2**20:7.0f} MiB  "
              f"to {target:.3f}: {'never' if tta is None else f'{tta / 1e3:.2f} s'}"
              + (f"  (torch {r['torch']})" if "torch" in r else ""))
    for p in peers:
        ratio = med["gnnscope"] / med[p]
        bar = m["bar"].get(p)
        line = f"gnnscope {med['gnnscope']:.1f} ms / {p} {med[p]:.1f} ms = {ratio:.3f}"
        if bar is None:
            print(f"info  {name} epoch ratio against {p}: {line} (no bar)")
        else:
            bl.check(f"{name} epoch ratio against {p}", ratio <= bar, f"{line} (bar <= {bar})")


def main():
    a = bl.setup(epochs=30, nodes=120000)
    threads = int(os.environ.get("THREADS", "2"))
    rounds = int(os.environ.get("ROUNDS", "3"))
    os.environ["OMP_NUM_THREADS"] = str(threads)
    g = bl.gen_graph(a.work, a.nodes, 24, 128, 16)
    bl.train(g, "--epochs", "1")  # fills the binary cache
    for name in os.environ.get("MODELS", "gcn,gat").split(","):
        bench_model(name, g, a.epochs, threads, rounds)
    bl.finish("bench_cpu_peers")


if __name__ == "__main__":
    sys.exit(main())
