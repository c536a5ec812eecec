#!/usr/bin/python3
"""peer_ggcn.py - the CPU peer for bench/bench_fusion.py: G-GCN
(NeuGraph Example 2.1, Fig. 3) in PyTorch, the model `gnnscope train
--model ggcn --feat-norm row` trains, on the same OGB raw directory and
graph, with the features' rows L1-normalised as there:
  per layer: m_e = sigmoid(W_H h_v + W_C h_u) * h_u for e = u -> v,
  acc_v = sum_e m_e, h_v' = ReLU(W acc_v).
Two ways a PyTorch user writes it:
  --style message  as a message function on edge tensors (PyG's
                   MessagePassing style): the Linear layers run on x_i, x_j;
  --style hoisted  the products on the vertices, then index_select, the
                   elementwise gate and index_add_ (NeuGraph's hoisting by
                   hand; PyTorch has no fused gather, so the gate's edge
                   tensors stay).
Prints one JSON line: epoch_ms_median (forward + backward + Adam step),
eval_ms_median, test_acc, final_loss, peak_rss_bytes."""
import argparse, os, sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_io as io  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--style", choices=("message", "hoisted"), default="hoisted")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    d = a.dir
    n, e, x, y, split = io.load(d)
    x = x / x.abs().sum(1, keepdim=True).clamp_min(1e-30)
    s_np, d_np, _ = io.gnnscope_edges(e, n)
    src, dst = torch.from_numpy(s_np), torch.from_numpy(d_np)
    c = int(y.max()) + 1
    L = torch.nn.Linear

    class Layer(torch.nn.Module):
        def __init__(self, din, dout):
            super().__init__()
            self.wh, self.wc = L(din, din, bias=False), L(din, din, bias=False)
            self.w = L(din, dout, bias=False)

        def forward(self, h):
            if a.style == "message":
                h_v, h_u = h.index_select(0, dst), h.index_select(0, src)
                m = torch.sigmoid(self.wh(h_v) + self.wc(h_u)) * h_u
            else:
                p, q = self.wh(h), self.wc(h)
                m = torch.sigmoid(p.index_select(0, dst) + q.index_select(0, src)) * h.index_select(0, src)
            acc = torch.zeros(n, h.shape[1]).index_add_(0, dst, m)
            return self.w(acc)

    class GGCN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2 = Layer(x.shape[1], a.hidden), Layer(a.hidden, c)

        def forward(self, h):
            h = torch.relu(self.l1(F.dropout(h, 0.5, self.training)))
            return self.l2(F.dropout(h, 0.5, self.training))

    model = GGCN()
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    times, evals, pred, loss, _ = io.train_epochs(model, opt, x, y, split, a.epochs)
    io.report(times, evals, pred, y, split, loss, peak_rss_bytes=io.peak_rss_bytes())


main()
