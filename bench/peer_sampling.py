#!/usr/bin/python3
"""peer_sampling.py - the PyTorch CPU peer of bench_sampling.py: GCN (2
layers) trained in mini-batches with the sampling done in Python the way
a PyTorch loop does it (NumPy per hop: min(degree, fanout) in-edges of each
destination uniformly without replacement, targets first in the source
numbering), blocks as torch sparse matrices, the feature rows looked up
with index_select, Adam. Prints one JSON line (peer_io.report) with the
median epoch, the share of it spent sampling and looking up, and the test
accuracy of a full-neighbourhood evaluation.

Usage: peer_sampling.py DATASET_DIR [--epochs E] [--batch-size B] [--fanout K1,K2] [--hidden H] [--threads T]"""
import argparse, time

import numpy as np
import torch

import peer_io

ap = argparse.ArgumentParser()
ap.add_argument("dataset")
ap.add_argument("--epochs", type=int, default=3)
ap.add_argument("--batch-size", type=int, default=1024)
ap.add_argument("--fanout", default="10,5")
ap.add_argument("--hidden", type=int, default=16)
ap.add_argument("--threads", type=int, default=2)
a = ap.parse_args()
torch.set_num_threads(a.threads)
fanout = [int(k) for k in a.fanout.split(",")]
n, e, x, y, split = peer_io.load(a.dataset)
src, dst, w = peer_io.gnnscope_edges(e, n)
order = np.argsort(dst, kind="stable")
src, w = src[order], w[order]
ptr = np.zeros(n + 1, dtype=np.int64)
np.add.at(ptr, dst[order] + 1, 1)
ptr = np.cumsum(ptr)
rng = np.random.default_rng(0)


def sample(targets):
    """Blocks from the targets down, each (dst rows, src rows, sparse matrix)."""
    blocks, nodes = [], targets
    for k in fanout:
        deg = ptr[nodes + 1] - ptr[nodes]
        eids, dsts = [], []
        for i, v in enumerate(nodes):
            d = deg[i]
            pick = np.arange(d) if d <= k else rng.choice(d, k, replace=False)
            eids.append(ptr[v] + pick)
            dsts.append(np.full(len(pick), i))
        eids, dsts = np.concatenate(eids), np.concatenate(dsts)
        srcs = src[eids]
        uniq, inv = np.unique(srcs, return_inverse=True)
        new = np.setdiff1d(uniq, nodes, assume_unique=False)
        all_nodes = np.concatenate([nodes, new])
        local = {int(v): i for i, v in enumerate(all_nodes)}
        cols = np.fromiter((local[int(u)] for u in srcs), dtype=np.int64, count=len(srcs))
        scale = (deg[dsts] / np.maximum(1, np.bincount(dsts, minlength=len(nodes))[dsts])).astype(np.float32)
        m = torch.sparse_coo_tensor(np.stack([dsts, cols]), torch.from_numpy(w[eids] * scale), (len(nodes), len(all_nodes)))
        blocks.append(m.coalesce())
        nodes = all_nodes
    return blocks[::-1], nodes


model = torch.nn.ModuleList([torch.nn.Linear(x.shape[1], a.hidden), torch.nn.Linear(a.hidden, int(y.max()) + 1)])
opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
train = split["train"].numpy()
times, prep, loss = [], [], 0.0
for epoch in range(a.epochs):
    t0, p = time.perf_counter(), 0.0
    perm = rng.permutation(train)
    for b in range(0, len(perm), a.batch_size):
        targets = perm[b:b + a.batch_size]
        p0 = time.perf_counter()
        blocks, nodes = sample(targets)
        h = x.index_select(0, torch.from_numpy(nodes))
        p += time.perf_counter() - p0
        for l, (blk, lin) in enumerate(zip(blocks, model)):
            h = torch.sparse.mm(blk, lin(h))
            if l + 1 < len(blocks):
                h = torch.relu(h)
        out = torch.nn.functional.cross_entropy(h, y[torch.from_numpy(targets)])
        opt.zero_grad()
        out.backward()
        opt.step()
        loss = float(out)
    times.append(1e3 * (time.perf_counter() - t0))
    prep.append(1e3 * p)
with torch.no_grad():  # full-neighbourhood evaluation, as gnnscope's
    e0 = time.perf_counter()
    full = torch.sparse_coo_tensor(np.stack([dst[order], src]), torch.from_numpy(w), (n, n)).coalesce()
    h = torch.relu(torch.sparse.mm(full, model[0](x)))
    pred = torch.sparse.mm(full, model[1](h)).argmax(1)
    evals = [1e3 * (time.perf_counter() - e0)]
peer_io.report(times, evals, pred, y, split, loss, prepro_ms_median=sorted(prep)[len(prep) // 2])
