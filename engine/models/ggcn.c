/* ggcn.c - Gated GCN, NeuGraph's running example (Fig. 3):
 *   acc_vu = sigmoid(W_H h_u + W_C h_v) * h_v,  h_u' = ReLU(W accum_u).
 * The src-only and dst-only matmuls are hoisted out of ApplyEdge into
 * ApplyVertex (NeuGraph §3.4): P = h W_H, Q = h W_C and V = h W_V are
 * vertex tensors, so ApplyEdge is purely elementwise. The gather uses the
 * symmetric normalisation to keep magnitudes bounded on hubs.
 * Pattern: NN on source and destination. */
#include "model.h"

static int build(program_t *p, const model_cfg_t *c)
{
    int h = prog_input(p, c->in_feats);
    int64_t din = c->in_feats;
    for (int l = 0; l < c->layers; l++) {
        int last = l == c->layers - 1;
        int64_t dout = last ? c->classes : c->hidden, hd = c->hidden;
        char nm[32];
        prog_at(p, l, STAGE_APPLY_VERTEX);
        h = layer_dropout(p, h, c->dropout);
        snprintf(nm, sizeof nm, "ggcn%d.WH", l);
        int pd = layer_linear(p, h, din, hd, nm, 1);
        snprintf(nm, sizeof nm, "ggcn%d.WC", l);
        int qs = layer_linear(p, h, din, hd, nm, 0);
        snprintf(nm, sizeof nm, "ggcn%d.WV", l);
        int vs = layer_linear(p, h, din, hd, nm, 0);
        prog_at(p, l, STAGE_SCATTER);
        int pe = prog_op(p, OP_SCATTER_DST, pd, -1, -1, 0, 0);
        int qe = prog_op(p, OP_SCATTER_SRC, qs, -1, -1, 0, 0);
        int ve = prog_op(p, OP_SCATTER_SRC, vs, -1, -1, 0, 0);
        prog_at(p, l, STAGE_APPLY_EDGE);
        int gate = prog_op(p, OP_SIGMOID, prog_op(p, OP_ADD, pe, qe, -1, 0, 0), -1, -1, 0, 0);
        int msg = prog_op(p, OP_MUL, gate, ve, -1, 0, 0);
        prog_at(p, l, STAGE_GATHER);
        int acc = prog_op(p, OP_GATHER_EDGE, msg, -1, -1, 0, AGG_NORM);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        snprintf(nm, sizeof nm, "ggcn%d.W", l);
        int y = layer_linear(p, acc, hd, dout, nm, 1);
        h = last ? y : prog_op(p, OP_RELU, y, -1, -1, 0, 0);
        din = dout;
    }
    return h;
}

const model_def_t model_ggcn = {"ggcn", "G-GCN: gated edges, NN on src and dst", build};
