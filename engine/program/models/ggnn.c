/* ggnn.c - GG-NN as NeuGraph (Fig. 12) and NGra (Fig. 12) state it: typed
 * edges and a GRU. h0 = ReLU(x W_in + b) (the input's projection to the
 * hidden width, which the figures leave out: GG-NN pads x instead); then L
 * propagation steps with shared weights:
 *   message = A_type(e) h_src, written on the edges as a typed product of
 *   scattered source rows; Gather sums them; the fusion pass (fuse.h)
 *   hoists the product into Z = h [A_0 | ... | A_T-1] (N, T*H) and a
 *   typed gather that picks each edge's block;
 *   h' = GRU(h, accum) with the standard r, z, n gates;
 * output = h_L W_out + b. Edge types come from graph.h's rule.
 * Variant ggnn-norm (the form gnnscope shipped before): the input is first
 * averaged over its neighbours (symmetric normalisation) and each step's
 * gather normalises too.
 * Pattern: typed edges plus a GRU cell. */
#include "model.h"

static int build_steps(program_t *p, const model_cfg_t *c, int norm)
{
    int64_t hd = c->hidden;
    int x = prog_input(p, c->in_feats);
    prog_at(p, 0, STAGE_APPLY_VERTEX);
    x = layer_dropout(p, x, c->dropout);
    if (norm) x = layer_pass_through(p, x, AGG_NORM);
    prog_at(p, 0, STAGE_APPLY_VERTEX);
    int h = prog_op(p, OP_RELU, layer_linear(p, x, c->in_feats, hd, "ggnn.in", 1), -1, -1, 0, 0);
    /* shared step parameters: declared once, reused by every step */
    int A = prog_param(p, "ggnn.A", hd, hd * p->ntypes, INIT_GLOROT);
    int Wr = prog_param(p, "ggnn.r.in.W", hd, hd, INIT_GLOROT), br = prog_param(p, "ggnn.r.b", 1, hd, INIT_ZERO);
    int Ur = prog_param(p, "ggnn.r.hid.W", hd, hd, INIT_GLOROT);
    int Wz = prog_param(p, "ggnn.z.in.W", hd, hd, INIT_GLOROT), bz = prog_param(p, "ggnn.z.b", 1, hd, INIT_ZERO);
    int Uz = prog_param(p, "ggnn.z.hid.W", hd, hd, INIT_GLOROT);
    int Wn = prog_param(p, "ggnn.n.in.W", hd, hd, INIT_GLOROT), bn = prog_param(p, "ggnn.n.b", 1, hd, INIT_ZERO);
    int Un = prog_param(p, "ggnn.n.hid.W", hd, hd, INIT_GLOROT), bhn = prog_param(p, "ggnn.n.hid.b", 1, hd, INIT_ZERO);
    for (int l = 0; l < c->layers; l++) {
        prog_at(p, l, STAGE_APPLY_VERTEX);
        int h_in = layer_dropout(p, h, c->dropout);
        prog_at(p, l, STAGE_SCATTER);
        int he = prog_op(p, OP_SCATTER_SRC, h_in, -1, -1, 0, 0);
        prog_at(p, l, STAGE_APPLY_EDGE);
        int msg = prog_op(p, OP_EDGE_MATMUL_TYPED, he, A, -1, 0, 0);
        prog_at(p, l, STAGE_GATHER);
        int a = prog_op(p, OP_GATHER_EDGE, msg, -1, -1, 0, norm ? AGG_NORM : AGG_ONE);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        int r = prog_op(p, OP_SIGMOID,
                        prog_op(p, OP_ADD, prog_op(p, OP_BIAS, prog_op(p, OP_MATMUL, a, Wr, -1, 0, 0), br, -1, 0, 0),
                                prog_op(p, OP_MATMUL, h, Ur, -1, 0, 0), -1, 0, 0),
                        -1, -1, 0, 0);
        int u = prog_op(p, OP_SIGMOID,
                        prog_op(p, OP_ADD, prog_op(p, OP_BIAS, prog_op(p, OP_MATMUL, a, Wz, -1, 0, 0), bz, -1, 0, 0),
                                prog_op(p, OP_MATMUL, h, Uz, -1, 0, 0), -1, 0, 0),
                        -1, -1, 0, 0);
        int hn = prog_op(p, OP_BIAS, prog_op(p, OP_MATMUL, h, Un, -1, 0, 0), bhn, -1, 0, 0);
        int n = prog_op(p, OP_TANH,
                        prog_op(p, OP_ADD, prog_op(p, OP_BIAS, prog_op(p, OP_MATMUL, a, Wn, -1, 0, 0), bn, -1, 0, 0),
                                prog_op(p, OP_MUL, r, hn, -1, 0, 0), -1, 0, 0),
                        -1, -1, 0, 0);
        h = prog_op(p, OP_LERP, u, n, h, 0, 0); /* (1 - u) n + u h */
    }
    prog_at(p, c->layers, STAGE_APPLY_VERTEX);
    h = layer_dropout(p, h, c->dropout);
    return layer_linear(p, h, hd, c->classes, "ggnn.out", 1);
}

static int build(program_t *p, const model_cfg_t *c) { return build_steps(p, c, 0); }
static int build_norm(program_t *p, const model_cfg_t *c) { return build_steps(p, c, 1); }

const model_def_t model_ggnn = {"ggnn", "GG-NN (NeuGraph Fig. 12): typed edges, summed, GRU apply-vertex", build};
const model_def_t model_ggnn_norm = {"ggnn-norm", "GG-NN variant: normalised input propagation and gathers", build_norm};
