#!/usr/bin/env python3
"""peer_pyg.py - the GPU peer for bench/bench_gpu_pyg.sh: torch-geometric
GCNConv (2 layers, full batch, normalisation cached) on the same OGB raw
directory and the same graph gnnscope builds (both directions, deduplicated;
GCNConv adds the self-loops). Prints one JSON line: epoch_ms_median
(forward + backward + Adam step, device-synchronised), eval_ms_median,
test_acc."""
import argparse, os, sys

import numpy as np
import torch
import torch.nn.functional as F
from torch_geometric.nn import GCNConv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_io as io  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--hidden", type=int, default=256)
    a = ap.parse_args()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    d = a.dir
    n, e, x, y, split = io.load(d, ("train", "test"), dev)
    src = np.concatenate([e[:, 0], e[:, 1]])
    dst = np.concatenate([e[:, 1], e[:, 0]])
    keep = src != dst
    key = np.unique(src[keep] * n + dst[keep])
    ei = torch.from_numpy(np.stack([key // n, key % n])).to(dev)
    c = int(y.max()) + 1

    class GCN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = GCNConv(x.shape[1], a.hidden, cached=True)
            self.c2 = GCNConv(a.hidden, c, cached=True)

        def forward(self, h):
            h = F.dropout(h, 0.5, self.training)
            h = torch.relu(self.c1(h, ei))
            h = F.dropout(h, 0.5, self.training)
            return self.c2(h, ei)

    model = GCN().to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    times, evals, pred, loss, _ = io.train_epochs(model, opt, x, y, split, a.epochs, torch.cuda.synchronize)
    io.report(times, evals, pred, y, split, loss, edges_with_loops=int(ei.shape[1]) + n, gpu=torch.cuda.get_device_name())


main()
