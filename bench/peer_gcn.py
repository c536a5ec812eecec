#!/usr/bin/python3
"""peer_gcn.py - the CPU peer for bench/bench_cpu_gcn.sh: a short
PyTorch GCN (torch.sparse) with the same model and hyperparameters as
`gnnscope train --model gcn`, reading the same OGB raw directory.
Prints one JSON line: epoch_ms_median (forward + backward + Adam step),
eval_ms_median, test_acc, peak_rss_bytes (the whole run, import and loading
included), train_peak_rss_bytes (training alone, from peer_io.reset_peak),
per-epoch test_accs and epochs_ms."""
import argparse, os, sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_io as io  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    io.training_flags(ap, hidden=128)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    d = a.dir
    n, e, x, y, split = io.load(d)
    src, dst, w = io.gnnscope_edges(e, n)
    adj = torch.sparse_coo_tensor(torch.from_numpy(np.stack([dst, src])), torch.from_numpy(w),
                                  (n, n)).coalesce()
    c = int(y.max()) + 1

    class GCN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = torch.nn.Linear(x.shape[1], a.hidden)
            self.l2 = torch.nn.Linear(a.hidden, c)

        def forward(self, h):
            h = F.dropout(h, a.dropout, self.training)
            h = torch.relu(torch.sparse.mm(adj, self.l1(h)))
            h = F.dropout(h, a.dropout, self.training)
            return torch.sparse.mm(adj, self.l2(h))

    model = GCN()
    opt = torch.optim.Adam(model.parameters(), lr=a.lr, weight_decay=a.weight_decay)
    times, evals, pred, loss, accs = io.train_epochs(model, opt, x, y, split, a.epochs)
    io.report(times, evals, pred, y, split, loss, peak_rss_bytes=io.peak_rss_bytes(), train_peak_rss_bytes=io.train_peak_rss_bytes(),
              test_accs=accs, epochs_ms=times)


main()
