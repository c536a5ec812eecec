/* gat.c - GAT (Velickovic et al.): attention over in-edges.
 * Per layer: z = h W (N, K*H'); scores e = LeakyReLU(a_l.z_src + a_r.z_dst)
 * per head; alpha = edge softmax per destination; dropout on alpha;
 * out = sum alpha z_src per head, heads concatenated, ELU between layers.
 * The last layer has one head of C outputs. Written in plain SAGA-NN form:
 * the score's dot products run on scattered edge rows; the fusion pass
 * (fuse.h) hoists them onto the vertices and sums the two ends with one
 * edge_uaddv. Pattern: attention. */
#include "model.h"

static int build(program_t *p, const model_cfg_t *c)
{
    int h = prog_input(p, c->in_feats);
    int64_t din = c->in_feats;
    for (int l = 0; l < c->layers; l++) {
        int last = l == c->layers - 1;
        int k = last ? 1 : c->heads;
        int64_t hh = last ? c->classes : c->hidden, width = k * hh;
        char nm[32];
        prog_at(p, l, STAGE_APPLY_VERTEX);
        h = layer_dropout(p, h, c->dropout);
        snprintf(nm, sizeof nm, "gat%d", l);
        int z = layer_linear(p, h, din, width, nm, 0);
        prog_at(p, l, STAGE_SCATTER);
        int z_src = prog_op(p, OP_SCATTER_SRC, z, -1, -1, 0, 0), z_dst = prog_op(p, OP_SCATTER_DST, z, -1, -1, 0, 0);
        prog_at(p, l, STAGE_APPLY_EDGE);
        snprintf(nm, sizeof nm, "gat%d.att_src", l);
        int el = prog_op(p, OP_HEAD_DOT, z_src, prog_param(p, nm, 1, width, INIT_GLOROT), -1, 0, k);
        snprintf(nm, sizeof nm, "gat%d.att_dst", l);
        int er = prog_op(p, OP_HEAD_DOT, z_dst, prog_param(p, nm, 1, width, INIT_GLOROT), -1, 0, k);
        int s = prog_op(p, OP_ADD, el, er, -1, 0, 0);
        s = prog_op(p, OP_LEAKY_RELU, s, -1, -1, 0.2f, 0);
        int alpha = prog_op(p, OP_EDGE_SOFTMAX, s, -1, -1, 0, 0);
        alpha = layer_dropout(p, alpha, c->dropout);
        prog_at(p, l, STAGE_GATHER);
        int y = prog_op(p, OP_GATHER_ATTN, z, alpha, -1, 0, k);
        prog_at(p, l, STAGE_APPLY_VERTEX);
        snprintf(nm, sizeof nm, "gat%d.b", l);
        y = prog_op(p, OP_BIAS, y, prog_param(p, nm, 1, width, INIT_ZERO), -1, 0, 0);
        h = last ? y : prog_op(p, OP_ELU, y, -1, -1, 0, 0);
        din = width;
    }
    return h;
}

const model_def_t model_gat = {"gat", "GAT: multi-head attention (edge softmax)", build};
