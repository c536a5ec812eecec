/* mpgcn.c - max-pooling GCN as NGra states it (Fig. 11), in SAGA-NN form:
 *   ApplyEdge: acc_e = sigma(W_pool h_src + b), Gather.accumulator = max,
 *   ApplyVertex: h' = ReLU(W accum)
 * with sigma = ReLU (GraphSAGE's pooling aggregator, which NGra cites).
 * Scatter copies h onto the edges and the pool layer runs on edge tensors
 * (E, H); the fusion pass (fuse.h) hoists its product and bias into
 * ApplyVertex and turns the max over edges into the vertex max gather of
 * ReLU(h W_pool + b). Each vertex sees only its in-neighbours (the
 * datasets' self-loops include itself).
 * Variant mpgcn-self (the form gnnscope shipped before, GraphSAGE-pool):
 * written already hoisted, with a self term, ReLU(h W_self + pool W_neigh + b).
 * Pattern: NN on the source only, max accumulator. */
#include "model.h"

/* The pool layer, ReLU(x W_pool + b), over x (edge rows or vertex rows). */
static int pooled(program_t *p, int l, int x, int64_t din, int64_t hidden)
{
    char nm[32];
    snprintf(nm, sizeof nm, "mp%d.pool", l);
    return prog_op(p, OP_RELU, layer_linear(p, x, din, hidden, nm, 1), -1, -1, 0, 0);
}

/* One NGra layer: the pooled neighbours of h, then W. */
static int paper_layer(program_t *p, int l, int h, int64_t din, int64_t hidden, int64_t dout)
{
    char nm[32];
    prog_at(p, l, STAGE_SCATTER);
    int e = prog_op(p, OP_SCATTER_SRC, h, -1, -1, 0, 0);
    prog_at(p, l, STAGE_APPLY_EDGE);
    int acc = pooled(p, l, e, din, hidden);
    prog_at(p, l, STAGE_GATHER);
    int m = prog_op(p, OP_GATHER_EDGE_MAX, acc, -1, -1, 0, 0);
    prog_at(p, l, STAGE_APPLY_VERTEX);
    snprintf(nm, sizeof nm, "mp%d.W", l);
    return layer_linear(p, m, hidden, dout, nm, 0);
}

/* One GraphSAGE-pool layer with the self term. */
static int self_layer(program_t *p, int l, int h, int64_t din, int64_t hidden, int64_t dout)
{
    char nm[32];
    int pool = pooled(p, l, h, din, hidden);
    prog_at(p, l, STAGE_GATHER);
    int m = prog_op(p, OP_GATHER_MAX, pool, -1, -1, 0, 0);
    prog_at(p, l, STAGE_APPLY_VERTEX);
    snprintf(nm, sizeof nm, "mp%d.self", l);
    int a = layer_linear(p, h, din, dout, nm, 1);
    snprintf(nm, sizeof nm, "mp%d.neigh", l);
    int b = layer_linear(p, m, hidden, dout, nm, 0);
    return prog_op(p, OP_ADD, a, b, -1, 0, 0);
}

static int build_layers(program_t *p, const model_cfg_t *c, int self)
{
    int h = prog_input(p, c->in_feats);
    int64_t din = c->in_feats;
    for (int l = 0; l < c->layers; l++) {
        int last = l == c->layers - 1;
        int64_t dout = last ? c->classes : c->hidden;
        prog_at(p, l, STAGE_APPLY_VERTEX);
        h = layer_dropout(p, h, c->dropout);
        int y = self ? self_layer(p, l, h, din, c->hidden, dout) : paper_layer(p, l, h, din, c->hidden, dout);
        h = last ? y : prog_op(p, OP_RELU, y, -1, -1, 0, 0);
        din = dout;
    }
    return h;
}

static int build(program_t *p, const model_cfg_t *c) { return build_layers(p, c, 0); }
static int build_self(program_t *p, const model_cfg_t *c) { return build_layers(p, c, 1); }

const model_def_t model_mpgcn = {"mpgcn", "MP-GCN (NGra Fig. 11): source NN on the edges, max gather, W", build};
const model_def_t model_mpgcn_self = {"mpgcn-self", "MP-GCN variant: GraphSAGE-pool with a self term", build_self};
