/* gcn.c - GCN (Kipf & Welling; NeuGraph Fig. 11). ApplyEdge multiplies the
 * source by the static symmetric-normalisation weight, which the fused
 * gather does in one pass; ApplyVertex is ReLU(accum W + b). Written
 * aggregation-first; the DKP pass may reorder it. */
#include "model.h"

static int build(program_t *p, const model_cfg_t *c)
{
    int h = prog_input(p, c->in_feats);
    int64_t din = c->in_feats;
    for (int l = 0; l < c->layers; l++) {
        int last = l == c->layers - 1;
        int64_t dout = last ? c->classes : c->hidden;
        char name[32];
        snprintf(name, sizeof name, "gcn%d", l);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        h = layer_dropout(p, h, c->dropout);
        h = layer_pass_through(p, h, AGG_NORM);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        h = layer_linear(p, h, din, dout, name, 1);
        if (!last) h = prog_op(p, OP_RELU, h, -1, -1, 0, 0);
        din = dout;
    }
    return h;
}

const model_def_t model_gcn = {"gcn", "GCN: static edge weight, sum gather", build};
