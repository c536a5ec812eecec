#!/usr/bin/env python3
"""peer_conv.py - the library peers of bench/bench_cpu_peers.py on the CPU:
torch-geometric's GCNConv/GATConv or DGL's GraphConv/GATConv, the same
model and hyperparameters as `gnnscope train --model gcn|gat`, on the same
OGB raw directory and the same graph gnnscope builds (both directions,
deduplicated, a self-loop per vertex; GCN's symmetric normalisation).
Dropout on each layer's input (and on GAT's attention), ReLU (GCN) or ELU
(GAT) between layers, Adam with L2 weight decay, full batch.
Prints one JSON line (peer_io.report): median epoch and evaluation times,
per-epoch test accuracies and epoch times, peak RSS (the import included).
Usage: peer_conv.py DIR --framework pyg|dgl --model gcn|gat [...]."""
import argparse, os, sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_io as io  # noqa: E402


def pyg_layers(a, n, fin, c, edges):
    """The two convolutions and the forward's edge argument, torch-geometric's
    way: GCN on a sparse adjacency (its documented fast path: one SpMM, no
    per-edge message tensor), GAT on the edge list (its attention is per edge)."""
    from torch_geometric.nn import GATConv, GCNConv
    src, dst, _ = edges
    keep = src != dst  # both convolutions add the self-loops themselves
    ei = torch.from_numpy(np.stack([src[keep], dst[keep]]))
    if a.model == "gcn":
        adj_t = torch.sparse_coo_tensor(torch.stack([ei[1], ei[0]]), torch.ones(ei.shape[1]), (n, n)).coalesce().to_sparse_csr()
        return GCNConv(fin, a.hidden, cached=True), GCNConv(a.hidden, c, cached=True), adj_t
    return (GATConv(fin, a.hidden, heads=a.heads, dropout=a.dropout),
            GATConv(a.hidden * a.heads, c, heads=1, dropout=a.dropout), ei)


def dgl_layers(a, n, fin, c, edges):
    """The two convolutions and the graph, DGL's way (the self-loops kept)."""
    import dgl
    from dgl.nn import GATConv, GraphConv
    src, dst, _ = edges
    g = dgl.graph((torch.from_numpy(src), torch.from_numpy(dst)), num_nodes=n)
    if a.model == "gcn":
        return GraphConv(fin, a.hidden, norm="both"), GraphConv(a.hidden, c, norm="both"), g
    return (GATConv(fin, a.hidden, a.heads, feat_drop=0.0, attn_drop=a.dropout),
            GATConv(a.hidden * a.heads, c, 1, feat_drop=0.0, attn_drop=a.dropout), g)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--framework", choices=("pyg", "dgl"), required=True)
    ap.add_argument("--model", choices=("gcn", "gat"), default="gcn")
    ap.add_argument("--heads", type=int, default=8)
    io.training_flags(ap, hidden=128)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    n, e, x, y, split = io.load(a.dir)
    c = int(y.max()) + 1
    make = pyg_layers if a.framework == "pyg" else dgl_layers
    l1, l2, graph = make(a, n, x.shape[1], c, io.gnnscope_edges(e, n))
    act = torch.relu if a.model == "gcn" else F.elu
    flat = (lambda h: h.flatten(1)) if a.framework == "dgl" else (lambda h: h)  # DGL keeps heads apart

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2 = l1, l2

        def forward(self, h):
            conv = (lambda m, h: m(h, graph)) if a.framework == "pyg" else (lambda m, h: m(graph, h))
            h = F.dropout(h, a.dropout, self.training)
            h = act(flat(conv(self.l1, h)))
            h = F.dropout(h, a.dropout, self.training)
            return flat(conv(self.l2, h))

    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=a.lr, weight_decay=a.weight_decay)
    times, evals, pred, loss, accs = io.train_epochs(model, opt, x, y, split, a.epochs)
    io.report(times, evals, pred, y, split, loss, peak_rss_bytes=io.peak_rss_bytes(),
              train_peak_rss_bytes=io.train_peak_rss_bytes(), test_accs=accs, epochs_ms=times, framework=a.framework)


main()
