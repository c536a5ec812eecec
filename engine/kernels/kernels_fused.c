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
    const graph_t *g;
    const fused_expr_t *e;
    const float *const *leaf;
    const float *dy;
    float *const *dleaf;
    const int *acc;
    int64_t f;
    float *y;
    int want_dst; /* backward: 1 the destination leaves (CSC), 0 the source leaves (CSR) */
} fused_ctx_t;

/* Copies the leaves' rows at source u and destination v, features
 * [j0, j0 + bw), into the leaf registers: each step then works on rows
 * in L1, and the random source reads happen once per edge. */
static void load(const fused_ctx_t *c, float r[NREG][LANES], int64_t u, int64_t v, int64_t j0, int bw)
{
    for (int k = 0; k < c->e->nleaf; k++) {
        const float *restrict row = c->leaf[k] + ((c->e->leaf_dst >> k & 1) ? v : u) * c->f + j0;
        float *restrict reg = r[k];
        for (int j = 0; j < bw; j++) reg[j] = row[j];
    }
}

/* Asks for the rows edge (u, v) will read, a few edges ahead of their use
 * (the source rows are random reads: the gather's memory latency). */
static void prefetch(const fused_ctx_t *c, int64_t u, int64_t v, int64_t j0, int bw)
{
    for (int k = 0; k < c->e->nleaf; k++) {
        const char *row = (const char *)(c->leaf[k] + ((c->e->leaf_dst >> k & 1) ? v : u) * c->f + j0);
        for (int off = 0; off < bw * 4; off += 64) __builtin_prefetch(row + off);
    }
    if (c->dy)
        for (int off = 0; off < bw * 4; off += 64) __builtin_prefetch((const char *)(c->dy + v * c->f + j0) + off);
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

static void forward_range(void *p, int64_t b, int64_t e)
{
    const fused_ctx_t *c = p;
    const graph_t *g = c->g;
    const float *w = k_weights_csc(g, (agg_weight_t)c->e->agg);
    int out = c->e->nleaf + c->e->nstep - 1;
    float r[NREG][LANES], sum[LANES];
    for (int64_t v = b; v < e; v++)
        for (int64_t j0 = 0; j0 < c->f; j0 += LANES) {
            int bw = (int)(c->f - j0 < LANES ? c->f - j0 : LANES);
            memset(sum, 0, sizeof sum);
            for (int64_t q = g->in_ptr[v]; q < g->in_ptr[v + 1]; q++) {
                if (q + AHEAD < g->in_ptr[v + 1]) prefetch(c, g->in_src[q + AHEAD], v, j0, bw);
                load(c, r, g->in_src[q], v, j0, bw);
                eval_steps(c->e, r, bw);
                float s = w ? w[q] : 1.0f;
                for (int j = 0; j < bw; j++) sum[j] += s * r[out][j];
            }
            memcpy(c->y + v * c->f + j0, sum, sizeof(float) * (size_t)bw);
        }
}

void k_gather_fused(const graph_t *g, const fused_expr_t *e, const float *const *leaf, int64_t f, float *y)
{
    fused_ctx_t c = {.g = g, .e = e, .leaf = leaf, .f = f, .y = y};
    gs_parallel_for(g->n, 32, forward_range, &c);
}

/* Rows [b, e) of one side: destinations over the CSC or sources over the
 * CSR; each adds its edges' register gradients to its own leaf rows. */
static void backward_range(void *p, int64_t b, int64_t e)
{
    const fused_ctx_t *c = p;
    const graph_t *g = c->g;
    const fused_expr_t *x = c->e;
    const float *w = c->want_dst ? k_weights_csc(g, (agg_weight_t)x->agg) : k_weights_csr(g, (agg_weight_t)x->agg);
    const int64_t *ptr = c->want_dst ? g->in_ptr : g->out_ptr;
    int out = x->nleaf + x->nstep - 1;
    float r[NREG][LANES], d[NREG][LANES], sum[FUSE_MAX_LEAVES][LANES];
    for (int64_t row = b; row < e; row++)
        for (int64_t j0 = 0; j0 < c->f; j0 += LANES) {
            int bw = (int)(c->f - j0 < LANES ? c->f - j0 : LANES);
            memset(sum, 0, sizeof sum);
            for (int64_t q = ptr[row]; q < ptr[row + 1]; q++) {
                int64_t u = c->want_dst ? g->in_src[q] : row, v = c->want_dst ? row : g->out_dst[q];
                if (q + AHEAD < ptr[row + 1])
                    prefetch(c, c->want_dst ? g->in_src[q + AHEAD] : row, c->want_dst ? row : g->out_dst[q + AHEAD], j0, bw);
                load(c, r, u, v, j0, bw);
                eval_steps(x, r, bw);
                float s = w ? w[q] : 1.0f;
                const float *dyv = c->dy + v * c->f + j0;
                for (int j = 0; j < bw; j++) d[out][j] = s * dyv[j];
                reverse_steps(x, r, d, bw);
                for (int k = 0; k < x->nleaf; k++)
                    if (c->dleaf[k] && ((x->leaf_dst >> k & 1) != 0) == c->want_dst)
                        for (int j = 0; j < bw; j++) sum[k][j] += d[k][j];
            }
            for (int k = 0; k < x->nleaf; k++) {
                if (!c->dleaf[k] || ((x->leaf_dst >> k & 1) != 0) != c->want_dst) continue;
                float *dst = c->dleaf[k] + row * c->f + j0;
                for (int j = 0; j < bw; j++) dst[j] = c->acc[k] ? dst[j] + sum[k][j] : sum[k][j];
            }
        }
}

void k_gather_fused_bwd(const graph_t *g, const fused_expr_t *e, const float *const *leaf, const float *dy, int64_t f,
                        float *const *dleaf, const int *acc)
{
    fused_ctx_t c = {.g = g, .e = e, .leaf = leaf, .dy = dy, .dleaf = dleaf, .acc = acc, .f = f};
    int any_dst = 0, any_src = 0;
    for (int k = 0; k < e->nleaf; k++)
        if (dleaf[k]) (e->leaf_dst >> k & 1) ? (any_dst = 1) : (any_src = 1);
    if (any_dst) {
        c.want_dst = 1;
        gs_parallel_for(g->n, 32, backward_range, &c);
    }
    if (any_src) {
        c.want_dst = 0;
        gs_parallel_for(g->nsrc, 32, backward_range, &c);
    }
}

double k_fused_flops(const fused_expr_t *e) { return 2.0 + (double)e->nstep; }
