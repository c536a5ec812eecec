/* kernels_cpu.c - CPU implementations of kernels.h.
 * Every sum-gather (forward and backward, vertex or edge sources, typed,
 * attention-scaled, and the streaming backend's chunk gathers) is one pull
 * loop, k_pull, over a CSC or CSR pointer array; only the arrays differ.
 * Vertex-parallel so that every output row has exactly one writer: no
 * atomics, bitwise deterministic results for any thread count. Inner loops
 * run over features and are left to the compiler's vectoriser. */
#include "kernels.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "base/threadpool.h"
#include "gemm_skinny.h"

#define GRAIN 32

void k_gemm(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c,
            int acc)
{
    if (m == 0 || n == 0) return;
    if (k == 0) {
        if (!acc) memset(c, 0, sizeof(float) * (size_t)(m * n));
        return;
    }
    if (k_gemm_skinny(trans_a, trans_b, m, n, k, a, b, c, acc)) return;
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, (int)m,
                (int)n, (int)k, 1.0f, a, trans_a ? (int)m : (int)k, b, trans_b ? (int)k : (int)n, acc ? 1.0f : 0.0f,
                c, (int)n);
}

static inline void axpy_row(float *restrict y, const float *restrict x, float a, int64_t f)
{
    for (int64_t j = 0; j < f; j++) y[j] += a * x[j];
}

/* ---------------- the pull ---------------- */

static void pull_range(void *ctx, int64_t b, int64_t e)
{
    const k_pull_t *p = ctx;
    int64_t f = p->f;
    for (int64_t r = b; r < e; r++) {
        float *y = p->y + (p->orow ? p->orow[r] : r) * p->y_stride;
        if (!p->acc) memset(y, 0, sizeof(float) * (size_t)p->y_stride);
        int64_t q1 = p->ptr[r + 1];
        for (int64_t q = p->ptr[r]; q < q1; q++) {
            int64_t eid = p->eid ? p->eid[q] : q;
            int64_t src = p->src_edge ? eid : p->nbr[q];
            if (!p->src_edge && q + 4 < q1) __builtin_prefetch(p->x + (int64_t)p->nbr[q + 4] * p->x_stride);
            const float *x = p->x + src * p->x_stride;
            float *yy = y;
            if (p->typed == TYPED_IN) x += (int64_t)p->etype[eid] * f;
            else if (p->typed == TYPED_OUT) yy += (int64_t)p->etype[eid] * f;
            float s = p->w ? p->w[q] : 1.0f;
            if (p->att) {
                const float *a = p->att + eid * p->att_k;
                for (int64_t j = 0; j < p->att_k; j++) axpy_row(yy + j * p->att_h, x + j * p->att_h, s * a[j], p->att_h);
            } else {
                axpy_row(yy, x, s, f);
            }
        }
    }
}

typedef float pull_v8f __attribute__((vector_size(32), aligned(4))); /* unaligned loads and stores */
#define PULL_REGS 8 /* vectors of sums kept in registers: widths up to 64 */

/* The common pull (vertex rows, no types, no attention): each output row
 * summed in vector registers for widths of 8 to 64 in steps of 8 (a float
 * array there compiled to a store of the sums at every entry), in the
 * output row otherwise; the width a compile-time constant for the usual
 * ones, no per-entry branches. The same additions in the same order as
 * pull_range, so the same bits. */
static inline __attribute__((always_inline)) void pull_plain(const k_pull_t *p, int64_t b, int64_t e, const int64_t f)
{
    const int in_regs = f % 8 == 0 && f <= 8 * PULL_REGS;
    for (int64_t r = b; r < e; r++) {
        float *y = p->y + (p->orow ? p->orow[r] : r) * f;
        pull_v8f s[PULL_REGS] = {{0}};
        if (in_regs && p->acc) memcpy(s, y, sizeof(float) * (size_t)f);
        if (!in_regs && !p->acc) memset(y, 0, sizeof(float) * (size_t)f);
        int64_t q1 = p->ptr[r + 1];
        for (int64_t q = p->ptr[r]; q < q1; q++) {
            if (q + 4 < q1) __builtin_prefetch(p->x + (int64_t)p->nbr[q + 4] * p->x_stride);
            const float *restrict x = p->x + (int64_t)p->nbr[q] * p->x_stride;
            float w = p->w ? p->w[q] : 1.0f;
            if (in_regs)
                for (int64_t k = 0; k < f / 8; k++) s[k] += w * *(const pull_v8f *)(x + 8 * k);
            else
                for (int64_t j = 0; j < f; j++) y[j] += w * x[j];
        }
        if (in_regs) memcpy(y, s, sizeof(float) * (size_t)f);
    }
}

#define PULL_WIDTH(F) \
    static void pull_plain_##F(void *ctx, int64_t b, int64_t e) { pull_plain(ctx, b, e, F); }
PULL_WIDTH(8)
PULL_WIDTH(16)
PULL_WIDTH(32)
PULL_WIDTH(64)
PULL_WIDTH(128)
PULL_WIDTH(256)

static void pull_plain_any(void *ctx, int64_t b, int64_t e) { pull_plain(ctx, b, e, ((const k_pull_t *)ctx)->f); }

static gs_range_fn plain_pull_for(const k_pull_t *p)
{
    if (p->src_edge || p->typed != TYPED_NONE || p->att || p->y_stride != p->f) return pull_range;
    switch (p->f) {
    case 8: return pull_plain_8;
    case 16: return pull_plain_16;
    case 32: return pull_plain_32;
    case 64: return pull_plain_64;
    case 128: return pull_plain_128;
    case 256: return pull_plain_256;
    default: return p->f <= 64 ? pull_range : pull_plain_any;
    }
}

void k_pull(const k_pull_t *p, int64_t rows) { gs_parallel_for(rows, GRAIN, plain_pull_for(p), (void *)p); }

/* A pull over the forward CSC (destinations) or the backward CSR (sources). */
static k_pull_t csc_pull(const graph_t *g, const float *w, const float *x, int64_t x_stride, float *y, int64_t f, int acc)
{
    return (k_pull_t){.ptr = g->in_ptr, .nbr = g->in_src, .w = w, .x = x, .x_stride = x_stride, .y = y, .y_stride = f,
                      .f = f, .acc = acc, .etype = g->etype};
}

static k_pull_t csr_pull(const graph_t *g, const float *w, const float *x, int64_t x_stride, float *y, int64_t f, int acc)
{
    return (k_pull_t){.ptr = g->out_ptr, .nbr = g->out_dst, .eid = g->out_eid, .w = w, .x = x, .x_stride = x_stride,
                      .y = y, .y_stride = f, .f = f, .acc = acc, .etype = g->etype};
}

void k_gather_sum(const graph_t *g, agg_weight_t w, const float *x, int64_t f, float *y, int acc)
{
    k_pull_t p = csc_pull(g, k_weights_csc(g, w), x, f, y, f, acc);
    k_pull(&p, g->n);
}

void k_gather_sum_bwd(const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dx, int acc)
{
    k_pull_t p = csr_pull(g, k_weights_csr(g, w), dy, f, dx, f, acc);
    k_pull(&p, g->nsrc);
}

void k_scatter_src_bwd(const graph_t *g, const float *dy, int64_t f, float *dx, int acc)
{
    k_pull_t p = csr_pull(g, NULL, dy, f, dx, f, acc);
    p.src_edge = 1;
    k_pull(&p, g->nsrc);
}

void k_gather_edge(const graph_t *g, agg_weight_t w, const float *m, int64_t f, float *y, int acc)
{
    k_pull_t p = csc_pull(g, k_weights_csc(g, w), m, f, y, f, acc);
    p.src_edge = 1;
    k_pull(&p, g->n);
}

void k_scatter_dst_bwd(const graph_t *g, const float *dy, int64_t f, float *dx, int acc)
{
    k_gather_edge(g, AGG_ONE, dy, f, dx, acc);
}

void k_gather_attn(const graph_t *g, const float *x, const float *a, int64_t k, int64_t h, float *y)
{
    k_pull_t p = csc_pull(g, NULL, x, k * h, y, k * h, 0);
    p.att = a, p.att_k = k, p.att_h = h;
    k_pull(&p, g->n);
}

void k_gather_attn_bwd(const graph_t *g, const float *a, const float *dy, int64_t k, int64_t h, float *dx, int acc)
{
    k_pull_t p = csr_pull(g, NULL, dy, k * h, dx, k * h, acc);
    p.att = a, p.att_k = k, p.att_h = h;
    k_pull(&p, g->nsrc);
}

void k_gather_typed(const graph_t *g, agg_weight_t w, const float *z, int64_t h, float *y, int acc)
{
    k_pull_t p = csc_pull(g, k_weights_csc(g, w), z, (int64_t)g->ntypes * h, y, h, acc);
    p.typed = TYPED_IN;
    k_pull(&p, g->n);
}

void k_gather_typed_bwd(const graph_t *g, agg_weight_t w, const float *dy, int64_t h, float *dz, int acc)
{
    k_pull_t p = csr_pull(g, k_weights_csr(g, w), dy, h, dz, h, acc);
    p.typed = TYPED_OUT, p.y_stride = (int64_t)g->ntypes * h;
    k_pull(&p, g->nsrc);
}

/* ---------------- the other graph kernels ---------------- */

void k_scatter_typed_bwd(const graph_t *g, const float *dy, int64_t h, float *dz, int acc)
{
    k_pull_t p = csr_pull(g, NULL, dy, h, dz, h, acc);
    p.typed = TYPED_OUT, p.y_stride = (int64_t)g->ntypes * h, p.src_edge = 1;
    k_pull(&p, g->nsrc);
}

typedef struct {
    const graph_t *g;
    const float *w;      /* edge weights in the order the loop walks, or NULL */
    const float *x, *y2; /* inputs */
    float *out;
    int32_t *idx;
    int64_t f, k, h;
    int acc;
} sp_ctx_t;

/* c->k = 1: the rows are the edges' own (an edge tensor), winners are edge positions */
static void gather_max_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t f = c->f;
    for (int64_t v = b; v < e; v++) {
        float *y = c->out + v * f;
        int32_t *am = c->idx + v * f;
        for (int64_t j = 0; j < f; j++) y[j] = -FLT_MAX, am[j] = -1;
        for (int64_t q = g->in_ptr[v]; q < g->in_ptr[v + 1]; q++) {
            int32_t u = c->k ? (int32_t)q : g->in_src[q];
            const float *x = c->x + (int64_t)u * f;
            for (int64_t j = 0; j < f; j++)
                if (x[j] > y[j]) y[j] = x[j], am[j] = u;
        }
        for (int64_t j = 0; j < f; j++)
            if (am[j] < 0) y[j] = 0.0f;
    }
}

void k_gather_max(const graph_t *g, const float *x, int64_t f, float *y, int32_t *argmax)
{
    sp_ctx_t c = {.g = g, .x = x, .out = y, .idx = argmax, .f = f};
    gs_parallel_for(g->n, GRAIN, gather_max_range, &c);
}

static void gather_max_bwd_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t f = c->f;
    for (int64_t u = b; u < e; u++) {
        float *dx = c->out + u * f;
        if (!c->acc) memset(dx, 0, sizeof(float) * (size_t)f);
        for (int64_t q = g->out_ptr[u]; q < g->out_ptr[u + 1]; q++) {
            int64_t v = g->out_dst[q];
            const int32_t *am = c->idx + v * f;
            const float *dy = c->x + v * f;
            for (int64_t j = 0; j < f; j++)
                if (am[j] == (int32_t)u) dx[j] += dy[j];
        }
    }
}

void k_gather_max_bwd(const graph_t *g, const int32_t *argmax, const float *dy, int64_t f, float *dx, int acc)
{
    sp_ctx_t c = {.g = g, .x = dy, .out = dx, .idx = (int32_t *)argmax, .f = f, .acc = acc};
    gs_parallel_for(g->nsrc, GRAIN, gather_max_bwd_range, &c);
}

void k_gather_edge_max(const graph_t *g, const float *m, int64_t f, float *y, int32_t *argmax)
{
    sp_ctx_t c = {.g = g, .x = m, .out = y, .idx = argmax, .f = f, .k = 1};
    gs_parallel_for(g->n, GRAIN, gather_max_range, &c);
}

static void gather_edge_max_bwd_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t f = c->f;
    for (int64_t v = b; v < e; v++) {
        const int32_t *am = c->idx + v * f;
        const float *dy = c->x + v * f;
        for (int64_t q = g->in_ptr[v]; q < g->in_ptr[v + 1]; q++) {
            float *dm = c->out + q * f;
            for (int64_t j = 0; j < f; j++) {
                float d = am[j] == (int32_t)q ? dy[j] : 0.0f;
                dm[j] = c->acc ? dm[j] + d : d;
            }
        }
    }
}

void k_gather_edge_max_bwd(const graph_t *g, const int32_t *argmax, const float *dy, int64_t f, float *dm, int acc)
{
    sp_ctx_t c = {.g = g, .x = dy, .out = dm, .idx = (int32_t *)argmax, .f = f, .acc = acc};
    gs_parallel_for(g->n, GRAIN, gather_edge_max_bwd_range, &c);
}

static void scatter_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const int32_t *end = c->idx;
    int64_t f = c->f;
    for (int64_t q = b; q < e; q++) memcpy(c->out + q * f, c->x + (int64_t)end[q] * f, sizeof(float) * (size_t)f);
}

void k_scatter_src(const graph_t *g, const float *x, int64_t f, float *y)
{
    sp_ctx_t c = {.g = g, .x = x, .out = y, .idx = g->in_src, .f = f};
    gs_parallel_for(g->m, 1024, scatter_range, &c);
}

void k_scatter_dst(const graph_t *g, const float *x, int64_t f, float *y)
{
    sp_ctx_t c = {.g = g, .x = x, .out = y, .idx = g->in_dst, .f = f};
    gs_parallel_for(g->m, 1024, scatter_range, &c);
}

static void scatter_typed_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t h = c->f, stride = (int64_t)g->ntypes * h;
    for (int64_t q = b; q < e; q++)
        memcpy(c->out + q * h, c->x + (int64_t)g->in_src[q] * stride + (int64_t)g->etype[q] * h, sizeof(float) * (size_t)h);
}

void k_scatter_typed(const graph_t *g, const float *z, int64_t h, float *y)
{
    sp_ctx_t c = {.g = g, .x = z, .out = y, .f = h};
    gs_parallel_for(g->m, 1024, scatter_typed_range, &c);
}

/* Rows of the typed product (forward: c->out = Y) or of its input
 * gradient (c->acc set by the caller: c->out = dX, c->x = dY, transposed). */
typedef struct {
    const graph_t *g;
    const float *x, *a, *dy;
    float *out;
    int64_t k, m;
    int acc;
} tmm_ctx_t;

static void tmm_forward_range(void *p, int64_t b, int64_t e)
{
    const tmm_ctx_t *c = p;
    int64_t k = c->k, m = c->m, stride = (int64_t)c->g->ntypes * m;
    for (int64_t q = b; q < e; q++) {
        const float *x = c->x + q * k, *a = c->a + (int64_t)c->g->etype[q] * m;
        float *y = c->out + q * m;
        memset(y, 0, sizeof(float) * (size_t)m);
        for (int64_t r = 0; r < k; r++) axpy_row(y, a + r * stride, x[r], m);
    }
}

static void tmm_dx_range(void *p, int64_t b, int64_t e)
{
    const tmm_ctx_t *c = p;
    int64_t k = c->k, m = c->m, stride = (int64_t)c->g->ntypes * m;
    for (int64_t q = b; q < e; q++) {
        const float *dy = c->dy + q * m, *a = c->a + (int64_t)c->g->etype[q] * m;
        float *dx = c->out + q * k;
        for (int64_t r = 0; r < k; r++) {
            float s = 0;
            for (int64_t j = 0; j < m; j++) s += dy[j] * a[r * stride + j];
            dx[r] = c->acc ? dx[r] + s : s;
        }
    }
}

/* Rows r = (type t, input row kk) of dA's blocks: one writer each, edges in order. */
static void tmm_da_range(void *p, int64_t b, int64_t e)
{
    const tmm_ctx_t *c = p;
    int64_t k = c->k, m = c->m, stride = (int64_t)c->g->ntypes * m;
    for (int64_t row = b; row < e; row++) {
        int64_t t = row / k, r = row % k;
        float *da = c->out + r * stride + t * m;
        if (!c->acc) memset(da, 0, sizeof(float) * (size_t)m);
        for (int64_t q = 0; q < c->g->m; q++)
            if (c->g->etype[q] == t) axpy_row(da, c->dy + q * m, c->x[q * k + r], m);
    }
}

void k_edge_matmul_typed(const graph_t *g, const float *x, const float *a, int64_t k, int64_t m, float *y)
{
    tmm_ctx_t c = {.g = g, .x = x, .a = a, .out = y, .k = k, .m = m};
    gs_parallel_for(g->m, 256, tmm_forward_range, &c);
}

void k_edge_matmul_typed_bwd(const graph_t *g, const float *x, const float *a, const float *dy, int64_t k, int64_t m, float *dx,
                             int acc_x, float *da, int acc_a)
{
    if (dx) {
        tmm_ctx_t c = {.g = g, .a = a, .dy = dy, .out = dx, .k = k, .m = m, .acc = acc_x};
        gs_parallel_for(g->m, 256, tmm_dx_range, &c);
    }
    if (da) {
        tmm_ctx_t c = {.g = g, .x = x, .dy = dy, .out = da, .k = k, .m = m, .acc = acc_a};
        gs_parallel_for((int64_t)g->ntypes * k, 1, tmm_da_range, &c);
    }
}

static void gather_edge_bwd_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t f = c->f;
    for (int64_t q = b; q < e; q++) {
        float *dm = c->out + q * f;
        const float *dy = c->x + (int64_t)g->in_dst[q] * f;
        float w = c->w ? c->w[q] : 1.0f;
        if (c->acc)
            for (int64_t j = 0; j < f; j++) dm[j] += w * dy[j];
        else
            for (int64_t j = 0; j < f; j++) dm[j] = w * dy[j];
    }
}

void k_gather_edge_bwd(const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dm, int acc)
{
    sp_ctx_t c = {.g = g, .w = k_weights_csc(g, w), .x = dy, .out = dm, .f = f, .acc = acc};
    gs_parallel_for(g->m, 1024, gather_edge_bwd_range, &c);
}

static void uaddv_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t k = c->k;
    for (int64_t q = b; q < e; q++) {
        const float *l = c->x + (int64_t)g->in_src[q] * k, *r = c->y2 + (int64_t)g->in_dst[q] * k;
        for (int64_t j = 0; j < k; j++) c->out[q * k + j] = l[j] + r[j];
    }
}

void k_edge_uaddv(const graph_t *g, const float *l, const float *r, int64_t k, float *s)
{
    sp_ctx_t c = {.g = g, .x = l, .y2 = r, .out = s, .k = k};
    gs_parallel_for(g->m, 1024, uaddv_range, &c);
}

static void softmax_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t k = c->k;
    for (int64_t v = b; v < e; v++) {
        int64_t e0 = g->in_ptr[v], e1 = g->in_ptr[v + 1];
        for (int64_t j = 0; j < k; j++) {
            float mx = -FLT_MAX;
            for (int64_t q = e0; q < e1; q++) mx = fmaxf(mx, c->x[q * k + j]);
            double sum = 0;
            for (int64_t q = e0; q < e1; q++) {
                float ex = expf(c->x[q * k + j] - mx);
                c->out[q * k + j] = ex;
                sum += ex;
            }
            float inv = (float)(1.0 / sum);
            for (int64_t q = e0; q < e1; q++) c->out[q * k + j] *= inv;
        }
    }
}

void k_edge_softmax(const graph_t *g, const float *s, int64_t k, float *a)
{
    sp_ctx_t c = {.g = g, .x = s, .out = a, .k = k};
    gs_parallel_for(g->n, GRAIN, softmax_range, &c);
}

static void softmax_bwd_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t k = c->k;
    const float *a = c->x, *da = c->y2;
    for (int64_t v = b; v < e; v++) {
        int64_t e0 = g->in_ptr[v], e1 = g->in_ptr[v + 1];
        for (int64_t j = 0; j < k; j++) {
            double dot = 0;
            for (int64_t q = e0; q < e1; q++) dot += (double)a[q * k + j] * da[q * k + j];
            for (int64_t q = e0; q < e1; q++) {
                float d = a[q * k + j] * (da[q * k + j] - (float)dot);
                c->out[q * k + j] = c->acc ? c->out[q * k + j] + d : d;
            }
        }
    }
}

void k_edge_softmax_bwd(const graph_t *g, const float *a, const float *da, int64_t k, float *ds, int acc)
{
    sp_ctx_t c = {.g = g, .x = a, .y2 = da, .out = ds, .k = k, .acc = acc};
    gs_parallel_for(g->n, GRAIN, softmax_bwd_range, &c);
}

static void sddmm_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t k = c->k, h = c->h, f = k * h;
    for (int64_t q = b; q < e; q++) {
        const float *pv = c->x + (int64_t)g->in_dst[q] * f, *qu = c->y2 + (int64_t)g->in_src[q] * f;
        for (int64_t j = 0; j < k; j++) {
            float s = 0;
            for (int64_t t = 0; t < h; t++) s += pv[j * h + t] * qu[j * h + t];
            c->out[q * k + j] = c->acc ? c->out[q * k + j] + s : s;
        }
    }
}

void k_sddmm(const graph_t *g, const float *p, const float *q, int64_t k, int64_t h, float *out, int acc)
{
    sp_ctx_t c = {.g = g, .x = p, .y2 = q, .out = out, .k = k, .h = h, .acc = acc};
    gs_parallel_for(g->m, 1024, sddmm_range, &c);
}
