"""peer_io.py - shared by the peer benchmarks (peer_gcn.py, peer_conv.py, peer_ggcn.py,
peer_pyg.py): reads the OGB raw CSVs (plain or gzip), builds the graph as
gnnscope does, runs the timed training loop and prints the result line."""
import gzip, json, os, statistics, sys, time

import numpy as np


def read_csv(path, dtype):
    for p in (path + ".csv.gz", path + ".csv"):
        if os.path.exists(p):
            try:  # pandas' C parser when it is there: paper-size feature files in seconds
                import pandas as pd
                return pd.read_csv(p, header=None, dtype=dtype).to_numpy().ravel().copy()  # writable, as torch wants
            except ImportError:
                raw = gzip.open(p, "rt").read() if p.endswith(".gz") else open(p).read()
                return np.array(raw.replace(",", " ").split(), dtype=dtype)
    sys.exit(f"peer: missing {path}.csv.gz")


def load(d, splits=("train", "valid", "test"), dev=None):
    """The OGB raw directory d: (n, undirected pairs (m, 2) as numpy, features,
    labels, {split: indices}) with the tensors on dev (the CPU when None)."""
    import torch
    put = (lambda t: t.to(dev)) if dev is not None else (lambda t: t)
    n = int(read_csv(f"{d}/num-node-list", np.int64)[0])
    e = read_csv(f"{d}/edge", np.int64).reshape(-1, 2)
    x = put(torch.from_numpy(read_csv(f"{d}/node-feat", np.float32).reshape(n, -1)))
    y = put(torch.from_numpy(read_csv(f"{d}/node-label", np.int64)))
    split = {s: put(torch.from_numpy(read_csv(f"{d}/split/{s}", np.int64))) for s in splits}
    return n, e, x, y, split


def training_flags(ap, hidden):
    """The flags every CPU peer shares with `gnnscope train`, on parser ap."""
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--hidden", type=int, default=hidden)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--weight-decay", type=float, default=5e-4)
    ap.add_argument("--dropout", type=float, default=0.5)


def report(times, evals, pred, y, split, loss, **extra):
    """Prints the peer's one JSON line: median epoch and evaluation times,
    test accuracy, last loss, torch's version, and extra fields."""
    import torch
    acc = float((pred[split["test"]] == y[split["test"]]).float().mean())
    print(json.dumps({"epoch_ms_median": statistics.median(times), "eval_ms_median": statistics.median(evals),
                      "test_acc": acc, "final_loss": loss, "torch": torch.__version__, **extra}))


def peak_rss_bytes():
    """The whole run's peak resident bytes (the import and loading included)."""
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def reset_peak():
    """Restarts VmHWM (Linux: 5 into /proc/self/clear_refs), so that
    train_peak_rss_bytes() sees training alone; False where it cannot."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def train_peak_rss_bytes():
    """VmHWM: the peak resident bytes since reset_peak() (None if unknown)."""
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def gnnscope_edges(e, n):
    """gnnscope's graph from undirected pairs e (m, 2): both directions,
    deduplicated, plus one self-loop per vertex. Returns (src, dst, w) with w
    the symmetric normalisation 1 / sqrt(deg(u) deg(v))."""
    src = np.concatenate([e[:, 0], e[:, 1]])
    dst = np.concatenate([e[:, 1], e[:, 0]])
    keep = src != dst
    key = np.unique(src[keep] * n + dst[keep])
    loops = np.arange(n, dtype=np.int64)
    src = np.concatenate([key // n, loops])
    dst = np.concatenate([key % n, loops])
    deg = np.bincount(dst, minlength=n).astype(np.float32)
    return src, dst, (1.0 / np.sqrt(deg[src] * deg[dst])).astype(np.float32)


def train_epochs(model, opt, x, y, split, epochs, sync=lambda: None):
    """Full-batch epochs: (times_ms, eval_ms, test predictions, last loss,
    test accuracy after each epoch).
    A training step is forward + backward + optimiser step, timed between
    sync() calls (device synchronisation for a GPU peer)."""
    import torch
    import torch.nn.functional as F
    reset_peak()  # train_peak_rss_bytes() from here: training alone
    times, evals, accs = [], [], []
    for _ in range(epochs):
        sync()
        t0 = time.perf_counter()
        model.train()
        opt.zero_grad()
        loss = F.cross_entropy(model(x)[split["train"]], y[split["train"]])
        loss.backward()
        opt.step()
        sync()
        t1 = time.perf_counter()
        model.eval()
        with torch.no_grad():
            pred = model(x).argmax(1)
        sync()
        evals.append((time.perf_counter() - t1) * 1e3)
        times.append((t1 - t0) * 1e3)
        accs.append(float((pred[split["test"]] == y[split["test"]]).float().mean()))
    return times, evals, pred, float(loss.detach()), accs
