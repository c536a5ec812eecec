/* commnet.c - CommNet (NeuGraph Fig. 10): ApplyEdge passes the source
 * through, Gather averages, ApplyVertex = ReLU(h W_H + accum W_C + b).
 * Pattern: no edge computation. */
#include "model.h"

static int build(program_t *p, const model_cfg_t *c)
{
    int h = prog_input(p, c->in_feats);
    int64_t din = c->in_feats;
    for (int l = 0; l < c->layers; l++) {
        int last = l == c->layers - 1;
        int64_t dout = last ? c->classes : c->hidden;
        char self[32], comm[32];
        snprintf(self, sizeof self, "comm%d.H", l);
        snprintf(comm, sizeof comm, "comm%d.C", l);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        h = layer_dropout(p, h, c->dropout);
        int acc = layer_pass_through(p, h, AGG_MEAN);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        int y = prog_op(p, OP_ADD, layer_linear(p, h, din, dout, self, 1), layer_linear(p, acc, din, dout, comm, 0), -1, 0, 0);
        h = last ? y : prog_op(p, OP_RELU, y, -1, -1, 0, 0);
        din = dout;
    }
    return h;
}

const model_def_t model_commnet = {"commnet", "CommNet: pass-through edges, mean gather", build};
