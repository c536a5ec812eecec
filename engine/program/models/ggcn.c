/* ggcn.c - Gated GCN, NeuGraph's running example (Fig. 3):
 *   acc_vu = sigmoid(W_H h_v + W_C h_u) * (W_V h_u),  h_v' = ReLU(W accum_v)
 * for each edge u -> v, written in plain SAGA-NN form: Scatter copies h to
 * both ends of every edge and ApplyEdge runs the three products on edge
 * tensors (E, H). The fusion pass (fuse.h) hoists them into ApplyVertex
 * and fuses the elementwise gate into one gather, as NeuGraph §3.4 does by
 * hand. The gather uses the symmetric normalisation to keep magnitudes
 * bounded on hubs. Pattern: NN on source and destination. */
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
        prog_at(p, l, STAGE_SCATTER);
        int h_dst = prog_op(p, OP_SCATTER_DST, h, -1, -1, 0, 0);
        int h_src = prog_op(p, OP_SCATTER_SRC, h, -1, -1, 0, 0);
        prog_at(p, l, STAGE_APPLY_EDGE);
        snprintf(nm, sizeof nm, "ggcn%d.WH", l);
        int pe = layer_linear(p, h_dst, din, hd, nm, 1);
        snprintf(nm, sizeof nm, "ggcn%d.WC", l);
        int qe = layer_linear(p, h_src, din, hd, nm, 0);
        snprintf(nm, sizeof nm, "ggcn%d.WV", l);
        int ve = layer_linear(p, h_src, din, hd, nm, 0);
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
