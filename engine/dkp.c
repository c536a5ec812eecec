/* dkp.c - see dkp.h. The rewrite swaps the two instructions in place: the
 * gather's slot computes X W into the gather's value (now dout wide), and
 * the matmul's slot gathers it into the matmul's value. */
#include "dkp.h"

static int uses(const instr_t *in, int v)
{
    for (int k = 0; k < in->nin; k++)
        if (in->in[k] == v) return 1;
    return 0;
}

int dkp_rewrite(program_t *p, dkp_mode_t mode, int64_t edges, dkp_choice_t *choices, int max)
{
    int n = 0;
    for (int i = 0; i < p->ncode; i++) {
        instr_t *g = &p->code[i];
        if (g->op != OP_GATHER) continue;
        int consumer = -1, nuse = 0;
        for (int j = i + 1; j < p->ncode; j++)
            if (uses(&p->code[j], g->out)) consumer = j, nuse++;
        if (nuse != 1 || p->output == g->out) continue;
        instr_t *m = &p->code[consumer];
        if (m->op != OP_MATMUL || m->in[0] != g->out) continue;
        int64_t din = p->vals[g->out].cols, dout = p->vals[m->out].cols;
        int swap = mode == DKP_ON || (mode == DKP_AUTO && dout < din);
        if (n < max)
            choices[n] = (dkp_choice_t){g->layer, swap, 2.0 * (double)edges * (double)din,
                                        2.0 * (double)edges * (double)(swap ? dout : din)};
        n++;
        if (!swap) continue;
        int x = g->in[0], w = m->in[1], tmp = g->out;
        agg_weight_t agg = (agg_weight_t)g->iparam;
        saga_stage_t gs = g->stage, ms = m->stage;
        p->vals[tmp].cols = dout;
        p->vals[tmp].requires_grad = p->vals[x].requires_grad | p->vals[w].requires_grad;
        *g = (instr_t){OP_MATMUL, tmp, {x, w, -1}, 2, 0, 0, g->layer, ms};
        *m = (instr_t){OP_GATHER, m->out, {tmp, -1, -1}, 1, 0, (int)agg, m->layer, gs};
    }
    return n;
}
