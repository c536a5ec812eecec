"""peer_io.py - shared by the peer benchmarks (peer_gcn.py, peer_pyg.py):
reads the OGB raw CSVs (plain or gzip) and runs the timed training loop."""
import gzip, os, sys, time

import numpy as np


def read_csv(path, dtype):
    for p in (path + ".csv.gz", path + ".csv"):
        if os.path.exists(p):
            raw = gzip.open(p, "rt").read() if p.endswith(".gz") else open(p).read()
            return np.array(raw.replace(",", " ").split(), dtype=dtype)
    sys.exit(f"peer: missing {path}.csv.gz")


def train_epochs(model, opt, x, y, split, epochs, sync=lambda: None):
    """Full-batch epochs: (times_ms, eval_ms, test predictions, last loss).
    A training step is forward + backward + optimiser step, timed between
    sync() calls (device synchronisation for a GPU peer)."""
    import torch
    import torch.nn.functional as F
    times, evals = [], []
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
    return times, evals, pred, float(loss)
