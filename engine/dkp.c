/* dkp.c - see dkp.h. The rewrite swaps the two instructions in place: the
 * gather's slot computes X W into the gather's value (now dout wide), and
 * the matmul's slot gathers it into the matmul's value. */
#include "dkp.h"

#include <math.h>

static int uses(const instr_t *in, int v)
{
    for (int k = 0; k < in->nin; k++)
        if (in->in[k] == v) return 1;
    return 0;
}

int dkp_rewrite(program_t *p, dkp_mode_t mode, int64_t n, int64_t edges, dkp_choice_t *choices, int max)
{
    (void)n;
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
        /* gather work per order, forward + backward, in units of (gamma E + delta N) */
        double agg_first = (double)din * (grad_in ? 2 : 1), comb_first = 2.0 * (double)dout;
        int swap = mode == DKP_ON || (mode == DKP_AUTO && comb_first < agg_first);
        if (count < max) {
            dkp_choice_t *c = &choices[count];
            *c = (dkp_choice_t){g->layer, swap, din, dout, grad_in, {0, 0}, {0, 0}, 0};
            c->agg_flops_fwd[0] = 2.0 * (double)edges * (double)din;
            c->agg_flops_fwd[1] = 2.0 * (double)edges * (double)dout;
            c->agg_flops_bwd[0] = grad_in ? 2.0 * (double)edges * (double)din : 0.0;
            c->agg_flops_bwd[1] = 2.0 * (double)edges * (double)dout;
        }
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

/* t = a x1 + b x2 by least squares (normal equations), a, b >= 0. */
static void fit2(double (*s)[3], int n, double *a, double *b)
{
    double s11 = 0, s12 = 0, s22 = 0, s1t = 0, s2t = 0;
    for (int i = 0; i < n; i++) {
        s11 += s[i][0] * s[i][0], s12 += s[i][0] * s[i][1], s22 += s[i][1] * s[i][1];
        s1t += s[i][0] * s[i][2], s2t += s[i][1] * s[i][2];
    }
    double det = s11 * s22 - s12 * s12;
    if (n >= 2 && fabs(det) > 1e-12 * s11 * s22) {
        *a = (s1t * s22 - s2t * s12) / det;
        *b = (s2t * s11 - s1t * s12) / det;
    } else {
        *a = s11 > 0 ? s1t / s11 : 0;
        *b = 0;
    }
    if (*a < 0 || *b < 0) { /* fall back to the dominant term alone */
        *a = s11 > 0 ? s1t / s11 : 0;
        *b = 0;
    }
}

void dkp_fit(dkp_model_t *m, dkp_choice_t *choices, int n, int64_t nv, int64_t edges)
{
    fit2(m->gemm, m->ngemm, &m->alpha, &m->beta);
    fit2(m->gather, m->ngather, &m->gamma, &m->delta);
    m->fitted = 1;
    double unit = m->gamma * (double)edges + m->delta * (double)nv; /* seconds per feature column gathered */
    for (int i = 0; i < n; i++) {
        dkp_choice_t *c = &choices[i];
        double agg_first = unit * (double)c->din * (c->input_needs_grad ? 2 : 1), comb_first = unit * 2.0 * (double)c->dout;
        c->predicted_saving_s = c->combination_first ? agg_first - comb_first : comb_first - agg_first;
    }
}
