/* kernels_cpu.c - CPU implementations of kernels.h.
 * Vertex-parallel over CSC (forward) or CSR (backward) so that every
 * output row has exactly one writer: no atomics, bitwise deterministic
 * results for any thread count. Inner loops run over features and are
 * left to the compiler's vectoriser. */
#include "kernels.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "threadpool.h"

#define GRAIN 32

typedef struct {
    const graph_t *g;
    const float *w;   /* edge weights in the order the loop walks, or NULL */
    const float *x, *y2; /* inputs */
    float *out;
    int32_t *idx;
    int64_t f, k, h;
    int acc;
} sp_ctx_t;

void k_gemm(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c,
            int acc)
{
    if (m == 0 || n == 0) return;
    if (k == 0) {
        if (!acc) memset(c, 0, sizeof(float) * (size_t)(m * n));
        return;
    }
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, (int)m,
                (int)n, (int)k, 1.0f, a, trans_a ? (int)m : (int)k, b, trans_b ? (int)k : (int)n, acc ? 1.0f : 0.0f,
                c, (int)n);
}


static inline void axpy_row(float *restrict y, const float *restrict x, float a, int64_t f)
{
    for (int64_t j = 0; j < f; j++) y[j] += a * x[j];
}

static inline void add_row(float *restrict y, const float *restrict x, int64_t f)
{
    for (int64_t j = 0; j < f; j++) y[j] += x[j];
}

/* ---- gather sum: CSC pull ---- */
static void gather_sum_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t f = c->f;
    for (int64_t v = b; v < e; v++) {
        float *y = c->out + v * f;
        if (!c->acc) memset(y, 0, sizeof(float) * (size_t)f);
        int64_t e0 = g->in_ptr[v], e1 = g->in_ptr[v + 1];
        for (int64_t q = e0; q < e1; q++) {
            if (q + 4 < e1) __builtin_prefetch(c->x + (int64_t)g->in_src[q + 4] * f);
            axpy_row(y, c->x + (int64_t)g->in_src[q] * f, c->w ? c->w[q] : 1.0f, f);
        }
    }
}

void k_gather_sum(const graph_t *g, agg_weight_t w, const float *x, int64_t f, float *y, int acc)
{
    sp_ctx_t c = {.g = g, .w = k_weights_csc(g, w), .x = x, .out = y, .f = f, .acc = acc};
    gs_parallel_for(g->n, GRAIN, gather_sum_range, &c);
}

/* ---- gather sum backward: CSR push turned into a pull per source ---- */
static void gather_sum_bwd_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t f = c->f;
    for (int64_t u = b; u < e; u++) {
        float *y = c->out + u * f;
        if (!c->acc) memset(y, 0, sizeof(float) * (size_t)f);
        int64_t e0 = g->out_ptr[u], e1 = g->out_ptr[u + 1];
        for (int64_t q = e0; q < e1; q++) {
            if (q + 4 < e1) __builtin_prefetch(c->x + (int64_t)g->out_dst[q + 4] * f);
            axpy_row(y, c->x + (int64_t)g->out_dst[q] * f, c->w ? c->w[q] : 1.0f, f);
        }
    }
}

void k_gather_sum_bwd(const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dx, int acc)
{
    sp_ctx_t c = {.g = g, .w = k_weights_csr(g, w), .x = dy, .out = dx, .f = f, .acc = acc};
    gs_parallel_for(g->n, GRAIN, gather_sum_bwd_range, &c);
}

/* ---- gather max ---- */
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
            int32_t u = g->in_src[q];
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
    gs_parallel_for(g->n, GRAIN, gather_max_bwd_range, &c);
}

/* ---- scatter ---- */
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

static void scatter_src_bwd_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t f = c->f;
    for (int64_t u = b; u < e; u++) {
        float *dx = c->out + u * f;
        if (!c->acc) memset(dx, 0, sizeof(float) * (size_t)f);
        for (int64_t q = g->out_ptr[u]; q < g->out_ptr[u + 1]; q++) add_row(dx, c->x + g->out_eid[q] * f, f);
    }
}

void k_scatter_src_bwd(const graph_t *g, const float *dy, int64_t f, float *dx, int acc)
{
    sp_ctx_t c = {.g = g, .x = dy, .out = dx, .f = f, .acc = acc};
    gs_parallel_for(g->n, GRAIN, scatter_src_bwd_range, &c);
}

/* ---- gather of edge data (also the scatter-dst backward with w = 1) ---- */
static void gather_edge_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t f = c->f;
    for (int64_t v = b; v < e; v++) {
        float *y = c->out + v * f;
        if (!c->acc) memset(y, 0, sizeof(float) * (size_t)f);
        for (int64_t q = g->in_ptr[v]; q < g->in_ptr[v + 1]; q++) axpy_row(y, c->x + q * f, c->w ? c->w[q] : 1.0f, f);
    }
}

void k_gather_edge(const graph_t *g, agg_weight_t w, const float *m, int64_t f, float *y, int acc)
{
    sp_ctx_t c = {.g = g, .w = k_weights_csc(g, w), .x = m, .out = y, .f = f, .acc = acc};
    gs_parallel_for(g->n, GRAIN, gather_edge_range, &c);
}

void k_scatter_dst_bwd(const graph_t *g, const float *dy, int64_t f, float *dx, int acc)
{
    k_gather_edge(g, AGG_ONE, dy, f, dx, acc);
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

/* ---- attention pieces ---- */
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

static void gather_attn_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t k = c->k, h = c->h, f = k * h;
    for (int64_t v = b; v < e; v++) {
        float *y = c->out + v * f;
        memset(y, 0, sizeof(float) * (size_t)f);
        for (int64_t q = g->in_ptr[v]; q < g->in_ptr[v + 1]; q++) {
            const float *x = c->x + (int64_t)g->in_src[q] * f;
            for (int64_t j = 0; j < k; j++) axpy_row(y + j * h, x + j * h, c->y2[q * k + j], h);
        }
    }
}

void k_gather_attn(const graph_t *g, const float *x, const float *a, int64_t k, int64_t h, float *y)
{
    sp_ctx_t c = {.g = g, .x = x, .y2 = a, .out = y, .k = k, .h = h};
    gs_parallel_for(g->n, GRAIN, gather_attn_range, &c);
}

static void gather_attn_bwd_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t k = c->k, h = c->h, f = k * h;
    for (int64_t u = b; u < e; u++) {
        float *dx = c->out + u * f;
        if (!c->acc) memset(dx, 0, sizeof(float) * (size_t)f);
        for (int64_t q = g->out_ptr[u]; q < g->out_ptr[u + 1]; q++) {
            const float *dy = c->x + (int64_t)g->out_dst[q] * f;
            const float *a = c->y2 + g->out_eid[q] * k;
            for (int64_t j = 0; j < k; j++) axpy_row(dx + j * h, dy + j * h, a[j], h);
        }
    }
}

void k_gather_attn_bwd(const graph_t *g, const float *a, const float *dy, int64_t k, int64_t h, float *dx, int acc)
{
    sp_ctx_t c = {.g = g, .x = dy, .y2 = a, .out = dx, .k = k, .h = h, .acc = acc};
    gs_parallel_for(g->n, GRAIN, gather_attn_bwd_range, &c);
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

/* ---- typed gather (GG-NN) ---- */
static void gather_typed_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t h = c->h, zf = (int64_t)g->ntypes * h;
    for (int64_t v = b; v < e; v++) {
        float *y = c->out + v * h;
        if (!c->acc) memset(y, 0, sizeof(float) * (size_t)h);
        for (int64_t q = g->in_ptr[v]; q < g->in_ptr[v + 1]; q++)
            axpy_row(y, c->x + (int64_t)g->in_src[q] * zf + (int64_t)g->etype[q] * h, c->w ? c->w[q] : 1.0f, h);
    }
}

void k_gather_typed(const graph_t *g, agg_weight_t w, const float *z, int64_t h, float *y, int acc)
{
    sp_ctx_t c = {.g = g, .w = k_weights_csc(g, w), .x = z, .out = y, .h = h, .acc = acc};
    gs_parallel_for(g->n, GRAIN, gather_typed_range, &c);
}

static void gather_typed_bwd_range(void *p, int64_t b, int64_t e)
{
    const sp_ctx_t *c = p;
    const graph_t *g = c->g;
    int64_t h = c->h, zf = (int64_t)g->ntypes * h;
    for (int64_t u = b; u < e; u++) {
        float *dz = c->out + u * zf;
        if (!c->acc) memset(dz, 0, sizeof(float) * (size_t)zf);
        for (int64_t q = g->out_ptr[u]; q < g->out_ptr[u + 1]; q++) {
            int64_t eid = g->out_eid[q];
            axpy_row(dz + (int64_t)g->etype[eid] * h, c->x + (int64_t)g->out_dst[q] * h, c->w ? c->w[q] : 1.0f, h);
        }
    }
}

void k_gather_typed_bwd(const graph_t *g, agg_weight_t w, const float *dy, int64_t h, float *dz, int acc)
{
    sp_ctx_t c = {.g = g, .w = k_weights_csr(g, w), .x = dy, .out = dz, .h = h, .acc = acc};
    gs_parallel_for(g->n, GRAIN, gather_typed_bwd_range, &c);
}
