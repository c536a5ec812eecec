/* dkp.c - see dkp.h. The rewrite swaps the two instructions in place: the
 * gather's slot computes X W into the gather's value (now dout wide), and
 * the matmul's slot gathers it into the matmul's value. */
#include "dkp.h"

#include <math.h>

#include "op_table.h"

static int uses(const instr_t *in, int v)
{
    for (int k = 0; k < in->nin; k++)
        if (in->in[k] == v) return 1;
    return 0;
}

dkp_coef_t dkp_coef_roofline(double flops, double bw)
{
    return (dkp_coef_t){2.0 / flops, 4.0 / bw, 4.0 / bw, 4.0 / bw};
}

static double matmul_s(const dkp_coef_t *k, double m, double kk, double n) { return k->alpha * m * kk * n + k->beta * m * n; }
/* a gather reads its sources' rows and writes its destinations' (or, backward, the reverse) */
static double gather_s(const dkp_coef_t *k, double f, double edges, double rows) { return (k->gamma * edges + k->delta * rows) * f; }

/* Each order's time, forward and backward (dkp.h). */
static void costs(const dkp_coef_t *k, dkp_choice_t *c)
{
    double src = (double)c->shape.n_src, dst = (double)c->shape.n_dst, e = (double)c->shape.edges;
    double din = (double)c->din, dout = (double)c->dout;
    int g = c->input_needs_grad;
    c->cost_s[0] = gather_s(k, din, e, src + dst) + 2 * matmul_s(k, dst, din, dout) /* forward, weight gradient */
                   + (g ? matmul_s(k, dst, dout, din) + gather_s(k, din, e, src + dst) : 0);
    c->cost_s[1] = 2 * matmul_s(k, src, din, dout) + 2 * gather_s(k, dout, e, src + dst) + (g ? matmul_s(k, src, dout, din) : 0);
    c->predicted_saving_s = c->combination_first ? c->cost_s[0] - c->cost_s[1] : c->cost_s[1] - c->cost_s[0];
}

int dkp_rewrite(program_t *p, dkp_mode_t mode, const dkp_coef_t *k, const dkp_shape_t *by_layer, int64_t n, int64_t edges,
                dkp_choice_t *choices, int max)
{
    int count = 0;
    for (int i = 0; i < p->ncode; i++) {
        instr_t *g = &p->code[i];
        if (g->op != OP_GATHER) continue;
        int consumer = -1, nuse = 0;
        for (int j = i + 1; j < p->ncode; j++)
            if (uses(&p->code[j], g->out)) consumer = j, nuse++;
        if (nuse != 1 || p->output == g->out) continue;
        instr_t *m = &p->code[consumer];
        if (m->op != OP_MATMUL || m->in[0] != g->out) continue;
        int x = g->in[0], w = m->in[1], tmp = g->out;
        int64_t din = p->vals[tmp].cols, dout = p->vals[m->out].cols;
        int grad_in = p->vals[x].requires_grad;
        dkp_shape_t shape = by_layer && g->layer >= 0 && g->layer < PROG_MAX_LAYERS ? by_layer[g->layer] : (dkp_shape_t){n, n, edges};
        dkp_choice_t c = {g->layer, 0, din, dout, grad_in, shape, {0, 0}, {0, 0}, {0, 0}, 0, 0};
        costs(k, &c);
        int swap = mode == DKP_ON || (mode == DKP_AUTO && c.cost_s[1] < c.cost_s[0] * (1 - 1e-9)); /* a tie stays as written */
        c.combination_first = swap;
        costs(k, &c); /* the saving of the order taken */
        const op_desc_t *gather = op_desc(OP_GATHER); /* each order's gather, forward and backward */
        op_dims_t in = {.cols = (double)din, .edges = (double)shape.edges, .grads = grad_in};
        op_dims_t out = {.cols = (double)dout, .edges = (double)shape.edges, .grads = 1};
        c.agg_flops_fwd[0] = gather->flops(&in, 0), c.agg_flops_fwd[1] = gather->flops(&out, 0);
        c.agg_flops_bwd[0] = gather->flops(&in, 1), c.agg_flops_bwd[1] = gather->flops(&out, 1);
        if (count < max) choices[count] = c;
        count++;
        if (!swap) continue;
        agg_weight_t agg = (agg_weight_t)g->iparam;
        saga_stage_t gs = g->stage, ms = m->stage;
        p->vals[tmp].cols = dout;
        p->vals[tmp].requires_grad = p->vals[x].requires_grad | p->vals[w].requires_grad;
        *g = (instr_t){OP_MATMUL, tmp, {x, w, -1}, 2, 0, 0, g->layer, ms};
        *m = (instr_t){OP_GATHER, m->out, {tmp, -1, -1}, 1, 0, (int)agg, m->layer, gs};
    }
    return count;
}

/* t = a x1 + b x2 by least squares (normal equations), a, b >= 0; 0 when
 * the samples fix no positive a (then *a, *b are untouched). */
static int fit2(double (*s)[3], int n, double *a, double *b)
{
    double fa, fb;
    double s11 = 0, s12 = 0, s22 = 0, s1t = 0, s2t = 0;
    for (int i = 0; i < n; i++) {
        s11 += s[i][0] * s[i][0], s12 += s[i][0] * s[i][1], s22 += s[i][1] * s[i][1];
        s1t += s[i][0] * s[i][2], s2t += s[i][1] * s[i][2];
    }
    double det = s11 * s22 - s12 * s12;
    if (n >= 2 && fabs(det) > 1e-12 * s11 * s22) {
        fa = (s1t * s22 - s2t * s12) / det;
        fb = (s2t * s11 - s1t * s12) / det;
    } else {
        fa = s11 > 0 ? s1t / s11 : 0;
        fb = 0;
    }
    if (fa < 0 || fb < 0) { /* fall back to the dominant term alone */
        fa = s11 > 0 ? s1t / s11 : 0;
        fb = 0;
    }
    if (!(fa > 0) || !isfinite(fa) || !isfinite(fb)) return 0;
    *a = fa, *b = fb;
    return 1;
}

void dkp_fit(dkp_model_t *m, const dkp_coef_t *prior)
{
    m->coef = *prior;
    fit2(m->gemm, m->ngemm, &m->coef.alpha, &m->coef.beta);
    fit2(m->gather, m->ngather, &m->coef.gamma, &m->coef.delta);
    m->fitted = 1;
}
