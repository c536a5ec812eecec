/* mpgcn.c - max-pooling GCN (GraphSAGE-pool style): each neighbour goes
 * through a one-layer NN on the source, Gather takes the elementwise max,
 * and ApplyVertex = ReLU(h W_self + pool W_neigh + b).
 * Pattern: NN on the source only, max accumulator. */
#include "model.h"

static int build(program_t *p, const model_cfg_t *c)
{
    int h = prog_input(p, c->in_feats);
    int64_t din = c->in_feats;
    for (int l = 0; l < c->layers; l++) {
        int last = l == c->layers - 1;
        int64_t dout = last ? c->classes : c->hidden;
        char nm[32];
        prog_at(p, l, STAGE_APPLY_VERTEX);
        h = layer_dropout(p, h, c->dropout);
        snprintf(nm, sizeof nm, "mp%d.pool", l);
        int pool = prog_op(p, OP_RELU, layer_linear(p, h, din, c->hidden, nm, 1), -1, -1, 0, 0);
        prog_at(p, l, STAGE_GATHER);
        int m = prog_op(p, OP_GATHER_MAX, pool, -1, -1, 0, 0);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        snprintf(nm, sizeof nm, "mp%d.self", l);
        int a = layer_linear(p, h, din, dout, nm, 1);
        snprintf(nm, sizeof nm, "mp%d.neigh", l);
        int b = layer_linear(p, m, c->hidden, dout, nm, 0);
        int y = prog_op(p, OP_ADD, a, b, -1, 0, 0);
        h = last ? y : prog_op(p, OP_RELU, y, -1, -1, 0, 0);
        din = dout;
    }
    return h;
}

const model_def_t model_mpgcn = {"mpgcn", "MP-GCN: source NN, max-pooling gather", build};
