/* gin.c - GIN with eps = 0: h' = MLP(h_v + sum of neighbours), where the
 * self-loop in the graph supplies the (1 + eps) h_v term. The MLP is
 * Linear-ReLU-Linear. Pattern: no edge computation, unweighted sum. */
#include "model.h"

static int build(program_t *p, const model_cfg_t *c)
{
    int h = prog_input(p, c->in_feats);
    int64_t din = c->in_feats;
    for (int l = 0; l < c->layers; l++) {
        int last = l == c->layers - 1;
        int64_t dout = last ? c->classes : c->hidden;
        char a[32], b[32];
        snprintf(a, sizeof a, "gin%d.mlp0", l);
        snprintf(b, sizeof b, "gin%d.mlp1", l);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        h = layer_dropout(p, h, c->dropout);
        h = layer_pass_through(p, h, AGG_ONE);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        h = prog_op(p, OP_RELU, layer_linear(p, h, din, c->hidden, a, 1), -1, -1, 0, 0);
        h = layer_linear(p, h, c->hidden, dout, b, 1);
        if (!last) h = prog_op(p, OP_RELU, h, -1, -1, 0, 0);
        din = dout;
    }
    return h;
}

const model_def_t model_gin = {"gin", "GIN: sum gather, MLP apply-vertex", build};
