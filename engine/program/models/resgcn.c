/* resgcn.c - deep residual GCN (ROC §7.5):
 *   H(k+1) = GCN(H(k)) + H(k)      when the widths match,
 *   H(k+1) = GCN(H(k)) + H(k) W    otherwise (a linear projection).
 * GCN(H) = ReLU(A H W + b), without the ReLU in the last layer. */
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
        int x = layer_dropout(p, h, c->dropout);
        int g = layer_pass_through(p, x, AGG_NORM);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        snprintf(nm, sizeof nm, "res%d.gcn", l);
        int y = layer_linear(p, g, din, dout, nm, 1);
        if (!last) y = prog_op(p, OP_RELU, y, -1, -1, 0, 0);
        snprintf(nm, sizeof nm, "res%d.proj", l);
        int skip = din == dout ? h : layer_linear(p, x, din, dout, nm, 0);
        h = prog_op(p, OP_ADD, y, skip, -1, 0, 0);
        din = dout;
    }
    return h;
}

const model_def_t model_resgcn = {"resgcn", "deep residual GCN (ROC §7.5)", build};
