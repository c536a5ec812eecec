/* kernels_fused.c - see kernels_fused.h. Each output row walks its edges
 * in blocks of LANES features: the leaves' rows are loaded into registers,
 * the steps run over the block (vectorisable), and the weighted result is
 * added in edge order, as k_gather_edge adds the plain program's messages.
 * The backward pass recomputes the registers per edge, then runs each
 * step's vector-Jacobian rule in reverse (the rules of kops_cpu.c's
 * elementwise ops). */
#include "kernels_fused.h"

#include <math.h>
#include <string.h>

#include "fast_math.h"
#include "base/threadpool.h"

#define LANES 64
#define NREG (FUSE_MAX_LEAVES + FUSE_MAX_STEPS)
#define AHEAD 4 /* edges between a row's prefetch and its use */

typedef struct {
    const fused_args_t *a;
    const fused_edges_t *x;
} fused_ctx_t;

/* The row of leaf k for an edge between own row `own` and the other
 * side's row nbr, at feature j0. */
static inline const float *leaf_row(const fused_args_t *a, int k, int64_t own, int64_t nbr, int64_t j0)
{
    return a->leaf[k] + ((a->own_mask >> k & 1) ? own : nbr) * a->f + j0;
}

/* Copies the leaves' rows of an edge, features [j0, j0 + bw), into the
 * leaf registers: each step then works on rows in L1, and the random
 * reads of the other side's rows happen once per edge. */
static void load(const fused_args_t *a, float r[NREG][LANES], int64_t own, int64_t nbr, int64_t j0, int bw)
{
    for (int k = 0; k < a->e->nleaf; k++) {
        const float *restrict row = leaf_row(a, k, own, nbr, j0);
        float *restrict reg = r[k];
        for (int j = 0; j < bw; j++) reg[j] = row[j];
    }
}

/* Asks for the rows an edge will read, a few edges ahead of their use
 * (the other side's rows are random reads: the gather's memory latency). */
static void prefetch(const fused_args_t *a, int64_t own, int64_t nbr, int64_t j0, int bw)
{
    for (int k = 0; k < a->e->nleaf; k++) {
        const char *row = (const char *)leaf_row(a, k, own, nbr, j0);
        for (int off = 0; off < bw * 4; off += 64) __builtin_prefetch(row + off);
    }
    if (a->dy && !a->dy_own)
        for (int off = 0; off < bw * 4; off += 64) __builtin_prefetch((const char *)(a->dy + nbr * a->f + j0) + off);
}

static void eval_steps(const fused_expr_t *e, float r[NREG][LANES], int bw)
{
    for (int s = 0; s < e->nstep; s++) {
        const fuse_step_t *st = &e->step[s];
        float *y = r[e->nleaf + s];
        const float *a = r[st->a], *b = st->b >= 0 ? r[st->b] : a, *c = st->c >= 0 ? r[st->c] : a;
        float fp = st->fparam;
        switch ((op_kind_t)st->op) {
        case OP_ADD: for (int j = 0; j < bw; j++) y[j] = a[j] + b[j]; break;
        case OP_MUL: for (int j = 0; j < bw; j++) y[j] = a[j] * b[j]; break;
        case OP_LERP: for (int j = 0; j < bw; j++) y[j] = (1.0f - a[j]) * b[j] + a[j] * c[j]; break;
        case OP_RELU: for (int j = 0; j < bw; j++) y[j] = a[j] > 0 ? a[j] : 0.0f; break;
        case OP_LEAKY_RELU: for (int j = 0; j < bw; j++) y[j] = a[j] > 0 ? a[j] : fp * a[j]; break;
        case OP_ELU: for (int j = 0; j < bw; j++) y[j] = a[j] > 0 ? a[j] : expm1f(a[j]); break;
        case OP_SIGMOID: for (int j = 0; j < bw; j++) y[j] = gs_sigmoidf(a[j]); break;
        case OP_TANH: for (int j = 0; j < bw; j++) y[j] = tanhf(a[j]); break;
        default: break;
        }
    }
}

/* d[last] holds the output's gradient; fills d for every register. */
static void reverse_steps(const fused_expr_t *e, float r[NREG][LANES], float d[NREG][LANES], int bw)
{
    int last = e->nleaf + e->nstep - 1;
    for (int k = 0; k < last; k++) memset(d[k], 0, sizeof(float) * (size_t)bw);
    for (int s = e->nstep - 1; s >= 0; s--) {
        const fuse_step_t *st = &e->step[s];
        const float *y = r[e->nleaf + s], *dy = d[e->nleaf + s], *a = r[st->a];
        float *da = d[st->a], fp = st->fparam;
        switch ((op_kind_t)st->op) {
        case OP_ADD: {
            float *db = d[st->b];
            for (int j = 0; j < bw; j++) da[j] += dy[j];
            for (int j = 0; j < bw; j++) db[j] += dy[j];
            break;
        }
        case OP_MUL: {
            const float *b = r[st->b];
            float *db = d[st->b];
            for (int j = 0; j < bw; j++) da[j] += dy[j] * b[j];
            for (int j = 0; j < bw; j++) db[j] += dy[j] * a[j];
            break;
        }
        case OP_LERP: {
            const float *b = r[st->b], *c = r[st->c];
            float *db = d[st->b], *dc = d[st->c];
            for (int j = 0; j < bw; j++) da[j] += dy[j] * (c[j] - b[j]);
            for (int j = 0; j < bw; j++) db[j] += dy[j] * (1.0f - a[j]);
            for (int j = 0; j < bw; j++) dc[j] += dy[j] * a[j];
            break;
        }
        case OP_RELU: for (int j = 0; j < bw; j++) da[j] += y[j] > 0 ? dy[j] : 0.0f; break;
        case OP_LEAKY_RELU: for (int j = 0; j < bw; j++) da[j] += a[j] > 0 ? dy[j] : fp * dy[j]; break;
        case OP_ELU: for (int j = 0; j < bw; j++) da[j] += a[j] > 0 ? dy[j] : dy[j] * (y[j] + 1.0f); break;
        case OP_SIGMOID: for (int j = 0; j < bw; j++) da[j] += dy[j] * y[j] * (1.0f - y[j]); break;
        case OP_TANH: for (int j = 0; j < bw; j++) da[j] += dy[j] * (1.0f - y[j] * y[j]); break;
        default: break;
        }
    }
}

/* Listed rows [b, e): each own row's weighted sum of its edges' values. */
static void forward_range(void *p, int64_t b, int64_t e)
{
    const fused_ctx_t *c = p;
    const fused_args_t *a = c->a;
    const fused_edges_t *x = c->x;
    int out = a->e->nleaf + a->e->nstep - 1;
    float r[NREG][LANES], sum[LANES];
    for (int64_t i = b; i < e; i++) {
        int64_t own = x->orow ? x->orow[i] : i;
        float *y = a->out[0] + own * a->f;
        for (int64_t j0 = 0; j0 < a->f; j0 += LANES) {
            int bw = (int)(a->f - j0 < LANES ? a->f - j0 : LANES);
            if (a->add) memcpy(sum, y + j0, sizeof(float) * (size_t)bw);
            else memset(sum, 0, sizeof sum);
            for (int64_t q = x->ptr[i]; q < x->ptr[i + 1]; q++) {
                if (q + AHEAD < x->ptr[i + 1]) prefetch(a, own, x->nbr[q + AHEAD], j0, bw);
                load(a, r, own, x->nbr[q], j0, bw);
                eval_steps(a->e, r, bw);
                float s = x->w ? x->w[q] : 1.0f;
                for (int j = 0; j < bw; j++) sum[j] += s * r[out][j];
            }
            memcpy(y + j0, sum, sizeof(float) * (size_t)bw);
        }
    }
}

/* Listed rows [b, e): each own-side leaf's gradient at its own row, the
 * expression recomputed per edge and its rules run in reverse. */
static void backward_range(void *p, int64_t b, int64_t e)
{
    const fused_ctx_t *c = p;
    const fused_args_t *a = c->a;
    const fused_edges_t *x = c->x;
    int nleaf = a->e->nleaf, out = nleaf + a->e->nstep - 1;
    float r[NREG][LANES], d[NREG][LANES], sum[FUSE_MAX_LEAVES][LANES];
    for (int64_t i = b; i < e; i++) {
        int64_t own = x->orow ? x->orow[i] : i;
        for (int64_t j0 = 0; j0 < a->f; j0 += LANES) {
            int bw = (int)(a->f - j0 < LANES ? a->f - j0 : LANES);
            for (int k = 0; k < nleaf; k++)
                if (a->out[k] && a->add) memcpy(sum[k], a->out[k] + own * a->f + j0, sizeof(float) * (size_t)bw);
                else if (a->out[k]) memset(sum[k], 0, sizeof sum[k]);
            for (int64_t q = x->ptr[i]; q < x->ptr[i + 1]; q++) {
                int64_t nbr = x->nbr[q];
                if (q + AHEAD < x->ptr[i + 1]) prefetch(a, own, x->nbr[q + AHEAD], j0, bw);
                load(a, r, own, nbr, j0, bw);
                eval_steps(a->e, r, bw);
                float s = x->w ? x->w[q] : 1.0f;
                const float *dyv = a->dy + (a->dy_own ? own : nbr) * a->f + j0;
                for (int j = 0; j < bw; j++) d[out][j] = s * dyv[j];
                reverse_steps(a->e, r, d, bw);
                for (int k = 0; k < nleaf; k++)
                    if (a->out[k])
                        for (int j = 0; j < bw; j++) sum[k][j] += d[k][j];
            }
            for (int k = 0; k < nleaf; k++) {
                if (!a->out[k]) continue;
                float *dst = a->out[k] + own * a->f + j0;
                for (int j = 0; j < bw; j++) dst[j] = a->acc[k] ? dst[j] + sum[k][j] : sum[k][j];
            }
        }
    }
}

void k_fused_rows(const fused_args_t *a, const fused_edges_t *x, int backward)
{
    fused_ctx_t c = {a, x};
    gs_parallel_for(x->nd, 32, backward ? backward_range : forward_range, &c);
}

void k_gather_fused(const graph_t *g, const fused_expr_t *e, const float *const *leaf, int64_t f, float *y)
{
    fused_args_t a = {.e = e, .own_mask = e->leaf_dst, .f = f};
    for (int k = 0; k < e->nleaf; k++) a.leaf[k] = leaf[k];
    a.out[0] = y;
    fused_edges_t x = {g->in_ptr, NULL, g->in_src, k_weights_csc(g, (agg_weight_t)e->agg), g->n};
    k_fused_rows(&a, &x, 0);
}

void k_gather_fused_bwd(const graph_t *g, const fused_expr_t *e, const float *const *leaf, const float *dy, int64_t f,
                        float *const *dleaf, const int *acc)
{
    for (int own_dst = 1; own_dst >= 0; own_dst--) { /* destination leaves over the CSC, then source leaves over the CSR */
        fused_args_t a = {.e = e, .own_mask = own_dst ? e->leaf_dst : ~(unsigned)e->leaf_dst, .dy = dy, .dy_own = own_dst, .f = f};
        int any = 0;
        for (int k = 0; k < e->nleaf; k++) {
            a.leaf[k] = leaf[k];
            if (dleaf[k] && (a.own_mask >> k & 1)) a.out[k] = dleaf[k], a.acc[k] = acc[k], any = 1;
        }
        fused_edges_t csc = {g->in_ptr, NULL, g->in_src, k_weights_csc(g, (agg_weight_t)e->agg), g->n};
        fused_edges_t csr = {g->out_ptr, NULL, g->out_dst, k_weights_csr(g, (agg_weight_t)e->agg), g->nsrc};
        if (any) k_fused_rows(&a, own_dst ? &csc : &csr, 1);
    }
}

double k_fused_flops(const fused_expr_t *e) { return 2.0 + (double)e->nstep; }
