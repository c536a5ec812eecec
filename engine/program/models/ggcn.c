/* ggcn.c - Gated GCN, NeuGraph's running example (Example 2.1, Fig. 3),
 * as the paper states it: for each edge v -> u,
 *   acc_vu = sigmoid(W_H h_u + W_C h_v) * h_v,  accum_u = sum_v acc_vu,
 *   h_u' = ReLU(W accum_u)
 * (the gate is as wide as h; no bias, no normalisation). Written in plain
 * SAGA-NN form: Scatter copies h to both ends of every edge and ApplyEdge
 * runs the two products on edge tensors (E, F). The fusion pass (fuse.h)
 * hoists them into ApplyVertex and fuses the elementwise gate into one
 * gather, as NeuGraph §3.4 does by hand.
 * Variant ggcn-norm (the form gnnscope shipped before): a third product
 * W_V h_v as the message, a hidden-wide gate with a bias on W_H, and the
 * symmetric normalisation in the gather, which bounds the sums on hubs.
 * Pattern: NN on source and destination. */
#include "model.h"

/* One layer's message for edge v -> u from the scattered rows. */
static int message(program_t *p, int l, int h_dst, int h_src, int64_t din, int64_t gate, int norm)
{
    char nm[32];
    snprintf(nm, sizeof nm, "ggcn%d.WH", l);
    int pe = layer_linear(p, h_dst, din, gate, nm, norm);
    snprintf(nm, sizeof nm, "ggcn%d.WC", l);
    int qe = layer_linear(p, h_src, din, gate, nm, 0);
    int value = h_src;
    if (norm) {
        snprintf(nm, sizeof nm, "ggcn%d.WV", l);
        value = layer_linear(p, h_src, din, gate, nm, 0);
    }
    int g = prog_op(p, OP_SIGMOID, prog_op(p, OP_ADD, pe, qe, -1, 0, 0), -1, -1, 0, 0);
    return prog_op(p, OP_MUL, g, value, -1, 0, 0);
}

static int build_layers(program_t *p, const model_cfg_t *c, int norm)
{
    int h = prog_input(p, c->in_feats);
    int64_t din = c->in_feats;
    for (int l = 0; l < c->layers; l++) {
        int last = l == c->layers - 1;
        int64_t dout = last ? c->classes : c->hidden, width = norm ? c->hidden : din;
        char nm[32];
        prog_at(p, l, STAGE_APPLY_VERTEX);
        h = layer_dropout(p, h, c->dropout);
        prog_at(p, l, STAGE_SCATTER);
        int h_dst = prog_op(p, OP_SCATTER_DST, h, -1, -1, 0, 0);
        int h_src = prog_op(p, OP_SCATTER_SRC, h, -1, -1, 0, 0);
        prog_at(p, l, STAGE_APPLY_EDGE);
        int msg = message(p, l, h_dst, h_src, din, width, norm);
        prog_at(p, l, STAGE_GATHER);
        int acc = prog_op(p, OP_GATHER_EDGE, msg, -1, -1, 0, norm ? AGG_NORM : AGG_ONE);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        snprintf(nm, sizeof nm, "ggcn%d.W", l);
        int y = layer_linear(p, acc, width, dout, nm, norm);
        h = last ? y : prog_op(p, OP_RELU, y, -1, -1, 0, 0);
        din = dout;
    }
    return h;
}

static int build(program_t *p, const model_cfg_t *c) { return build_layers(p, c, 0); }
static int build_norm(program_t *p, const model_cfg_t *c) { return build_layers(p, c, 1); }

const model_def_t model_ggcn = {"ggcn", "G-GCN (NeuGraph Example 2.1): sigmoid(W_H h_dst + W_C h_src) * h_src, summed", build};
const model_def_t model_ggcn_norm = {"ggcn-norm", "G-GCN variant: a W_V message, hidden-wide gate, normalised gather", build_norm};
