/* commnet.c - CommNet as NeuGraph (Fig. 10) and NGra (Fig. 9) state it:
 * ApplyEdge passes the source through, Gather sums, ApplyVertex =
 * ReLU(W_H h + W_C accum). Variant commnet-mean (the form gnnscope
 * shipped before): Gather averages and the self term has a bias.
 * Pattern: no edge computation. */
#include "model.h"

static int build_layers(program_t *p, const model_cfg_t *c, int mean)
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
        int acc = layer_pass_through(p, h, mean ? AGG_MEAN : AGG_ONE);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        int y = prog_op(p, OP_ADD, layer_linear(p, h, din, dout, self, mean), layer_linear(p, acc, din, dout, comm, 0), -1, 0, 0);
        h = last ? y : prog_op(p, OP_RELU, y, -1, -1, 0, 0);
        din = dout;
    }
    return h;
}

static int build(program_t *p, const model_cfg_t *c) { return build_layers(p, c, 0); }
static int build_mean(program_t *p, const model_cfg_t *c) { return build_layers(p, c, 1); }

const model_def_t model_commnet = {"commnet", "CommNet (NeuGraph Fig. 10): pass-through edges, summed", build};
const model_def_t model_commnet_mean = {"commnet-mean", "CommNet variant: mean gather, bias on the self term", build_mean};
