/* kops_cpu.c - the host's compute-op table (kops.h): the kernels of
 * kernels_cpu.c plus the elementwise ops, column sums, head dots, loss,
 * accuracy and Adam, all on the thread pool. This is the reference the
 * CUDA plugin's table is tested against. Memory is plain host memory; the
 * graph mirror is the graph itself; the context is empty (the thread pool
 * is process-wide), so every op ignores it. */
#include "kops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __AVX__
#include <immintrin.h>
#endif

#include "dropout_rows.h"
#include "fast_math.h"
#include "fast_math_v8.h"
#include "stream_store.h"
#include "kernels_fused.h"
#include "engine/graph/tensor.h"
#include "train_math.h"
#include "xent_cpu.h"
#include "base/threadpool.h"

/* ---------------- context and memory ---------------- */

static kops_ctx_t *host_open(gs_err_t *err)
{
    (void)err;
    return NULL; /* nothing to hold: every op ignores its context */
}
static void host_close(kops_ctx_t *cx) { (void)cx; }

kplace_t kplace_host(void) { return (kplace_t){&kops_cpu, NULL}; }

static void *host_alloc(kops_ctx_t *cx, size_t bytes)
{
    (void)cx;
    void *p = gs_aligned_alloc(bytes ? bytes : 64);
    if (p) memset(p, 0, bytes);
    return p;
}

static void host_release(kops_ctx_t *cx, void *p) { (void)cx, free(p); }
static void host_zero(kops_ctx_t *cx, void *p, size_t bytes) { (void)cx, memset(p, 0, bytes); }
static void host_copy(kops_ctx_t *cx, void *dst, const void *src, size_t bytes)
{
    (void)cx;
    if (dst != src) memmove(dst, src, bytes);
}
static int host_sync(kops_ctx_t *cx, gs_err_t *err)
{
    (void)cx, (void)err;
    return GS_OK;
}
static int host_mirror(kops_ctx_t *cx, const graph_t *host, graph_t *out, gs_err_t *err)
{
    (void)cx, (void)err;
    *out = *host;
    return GS_OK;
}
static void host_mirror_release(kops_ctx_t *cx, graph_t *mirror) { (void)cx, memset(mirror, 0, sizeof *mirror); }

/* ---------------- the graph kernels of kernels.h, with the context ---------------- */
/* A reference kernel as a table op: the host's context is empty. */
#define UNPAREN(...) __VA_ARGS__
#define HOST_KERNEL(name, params, args) \
    static void h_##name(kops_ctx_t *cx, UNPAREN params) { (void)cx, k_##name args; }
HOST_KERNEL(gemm, (int ta, int tb, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c, int acc), (ta, tb, m, n, k, a, b, c, acc))
HOST_KERNEL(gather_sum, (const graph_t *g, agg_weight_t w, const float *x, int64_t f, float *y, int acc), (g, w, x, f, y, acc))
HOST_KERNEL(gather_sum_bwd, (const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dx, int acc), (g, w, dy, f, dx, acc))
HOST_KERNEL(gather_max, (const graph_t *g, const float *x, int64_t f, float *y, int32_t *am), (g, x, f, y, am))
HOST_KERNEL(gather_max_bwd, (const graph_t *g, const int32_t *am, const float *dy, int64_t f, float *dx, int acc), (g, am, dy, f, dx, acc))
HOST_KERNEL(scatter_src, (const graph_t *g, const float *x, int64_t f, float *y), (g, x, f, y))
HOST_KERNEL(scatter_dst, (const graph_t *g, const float *x, int64_t f, float *y), (g, x, f, y))
HOST_KERNEL(scatter_src_bwd, (const graph_t *g, const float *dy, int64_t f, float *dx, int acc), (g, dy, f, dx, acc))
HOST_KERNEL(scatter_dst_bwd, (const graph_t *g, const float *dy, int64_t f, float *dx, int acc), (g, dy, f, dx, acc))
HOST_KERNEL(gather_edge, (const graph_t *g, agg_weight_t w, const float *m, int64_t f, float *y, int acc), (g, w, m, f, y, acc))
HOST_KERNEL(gather_edge_bwd, (const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dm, int acc), (g, w, dy, f, dm, acc))
HOST_KERNEL(edge_uaddv, (const graph_t *g, const float *l, const float *r, int64_t k, float *s), (g, l, r, k, s))
HOST_KERNEL(edge_softmax, (const graph_t *g, const float *s, int64_t k, float *a), (g, s, k, a))
HOST_KERNEL(edge_softmax_bwd, (const graph_t *g, const float *a, const float *da, int64_t k, float *ds, int acc), (g, a, da, k, ds, acc))
HOST_KERNEL(gather_attn, (const graph_t *g, const float *x, const float *a, int64_t k, int64_t h, float *y), (g, x, a, k, h, y))
HOST_KERNEL(gather_attn_bwd, (const graph_t *g, const float *a, const float *dy, int64_t k, int64_t h, float *dx, int acc), (g, a, dy, k, h, dx, acc))
HOST_KERNEL(sddmm, (const graph_t *g, const float *p, const float *q, int64_t k, int64_t h, float *out, int acc), (g, p, q, k, h, out, acc))
HOST_KERNEL(gather_typed, (const graph_t *g, agg_weight_t w, const float *z, int64_t h, float *y, int acc), (g, w, z, h, y, acc))
HOST_KERNEL(gather_typed_bwd, (const graph_t *g, agg_weight_t w, const float *dy, int64_t h, float *dz, int acc), (g, w, dy, h, dz, acc))
HOST_KERNEL(scatter_typed, (const graph_t *g, const float *z, int64_t h, float *y), (g, z, h, y))
HOST_KERNEL(scatter_typed_bwd, (const graph_t *g, const float *dy, int64_t h, float *dz, int acc), (g, dy, h, dz, acc))
HOST_KERNEL(edge_matmul_typed, (const graph_t *g, const float *x, const float *a, int64_t k, int64_t m, float *y), (g, x, a, k, m, y))
HOST_KERNEL(edge_matmul_typed_bwd, (const graph_t *g, const float *x, const float *a, const float *dy, int64_t k, int64_t m, float *dx, int acc_x, float *da, int acc_a), (g, x, a, dy, k, m, dx, acc_x, da, acc_a))
HOST_KERNEL(gather_edge_max, (const graph_t *g, const float *m, int64_t f, float *y, int32_t *am), (g, m, f, y, am))
HOST_KERNEL(gather_edge_max_bwd, (const graph_t *g, const int32_t *am, const float *dy, int64_t f, float *dm, int acc), (g, am, dy, f, dm, acc))
HOST_KERNEL(gather_fused, (const graph_t *g, const fused_expr_t *e, const float *const *leaf, int64_t f, float *y), (g, e, leaf, f, y))
HOST_KERNEL(gather_fused_bwd, (const graph_t *g, const fused_expr_t *e, const float *const *leaf, const float *dy, int64_t f, float *const *dleaf, const int *acc), (g, e, leaf, dy, f, dleaf, acc))

/* ---------------- elementwise ops ---------------- */

static uint64_t row_key(const ew_args_t *c, int64_t r)
{
    return gs_drop_row_key(c->key, c->g->orig_id, c->g->in_src, c->g->in_dst, c->edge, c->row0 + r);
}

/* RELU's sign bits of row y (kops.h: one row in GS_MASK_WORDS(f) words),
 * eight at a time by a compare and a movemask where the build has AVX (a
 * bit at a time, relu's forward took 1.2x its time without the bits). */
static void relu_bits(const float *y, int64_t f, uint64_t *bits)
{
    for (int64_t w = 0; w < GS_MASK_WORDS(f); w++) {
        uint64_t word = 0;
        int64_t j0 = w * 64, n = f - j0 < 64 ? f - j0 : 64, i = 0;
#ifdef __AVX__
        for (; i + 8 <= n; i += 8) /* ordered greater-than: a NaN or -0 gives 0, as y > 0 */
            word |= (uint64_t)(uint32_t)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(y + j0 + i), _mm256_setzero_ps(), _CMP_GT_OQ)) << i;
#endif
        for (; i < n; i++) word |= (uint64_t)(y[j0 + i] > 0) << i;
        bits[w] = word;
    }
}

typedef uint32_t u32x8 __attribute__((vector_size(32), aligned(4)));
typedef float f32x8 __attribute__((vector_size(32), aligned(4)));

/* da (+)= dy where RELU's sign bit is set, else 0 (+0.0f: dy's bits ANDed
 * with a lane mask, eight lanes from a byte of bits at a time), stored
 * as one vector (through an array of floats, each vector took 14 moves). */
static void relu_bwd_bits(const float *dy, const uint64_t *bits, int64_t f, float *da, int acc)
{
    const u32x8 lane = {0, 1, 2, 3, 4, 5, 6, 7};
    int64_t j = 0;
    for (; j + 8 <= f; j += 8) {
        uint32_t byte = (uint32_t)(bits[j >> 6] >> (j & 63)) & 0xffu;
        u32x8 keep = -(((u32x8){byte, byte, byte, byte, byte, byte, byte, byte} >> lane) & 1u);
        u32x8 d;
        memcpy(&d, dy + j, sizeof d);
        d &= keep;
        if (acc) {
            f32x8 sum;
            memcpy(&sum, da + j, sizeof sum);
            sum += (f32x8)d;
            memcpy(da + j, &sum, sizeof sum);
        } else {
            memcpy(da + j, &d, sizeof d);
        }
    }
    for (; j < f; j++) GS_PUT(da[j], acc, bits[j >> 6] >> (j & 63) & 1 ? dy[j] : 0.0f);
}

static void ew_forward_range(void *p, int64_t rb, int64_t re)
{
    const ew_args_t *c = p;
    int64_t f = c->cols;
    /* dropout's fresh output (the input features' copy, kept for the next epoch) written without reading it first */
    const int stream = c->op == OP_DROPOUT && c->out != c->a && f % 8 == 0 && gs_stream_output(c->out, c->rows * f);
    for (int64_t r = rb; r < re; r++) {
        const float *a = c->a + r * f, *b = c->b ? c->b + r * f : NULL;
        float *y = c->out + r * f;
        switch (c->op) {
        case OP_BIAS: for (int64_t j = 0; j < f; j++) y[j] = a[j] + c->b[j]; break;
        case OP_ADD: for (int64_t j = 0; j < f; j++) y[j] = a[j] + b[j]; break;
        case OP_MUL: for (int64_t j = 0; j < f; j++) y[j] = a[j] * b[j]; break;
        case OP_LERP: {
            const float *z = a, *x0 = b, *x1 = c->c + r * f;
            for (int64_t j = 0; j < f; j++) y[j] = (1.0f - z[j]) * x0[j] + z[j] * x1[j];
            break;
        }
        case OP_RELU:
            for (int64_t j = 0; j < f; j++) y[j] = a[j] > 0 ? a[j] : 0.0f;
            if (c->mask) relu_bits(y, f, c->mask + r * GS_MASK_WORDS(f));
            break;
        case OP_LEAKY_RELU: for (int64_t j = 0; j < f; j++) y[j] = a[j] > 0 ? a[j] : c->fp * a[j]; break;
        case OP_ELU: for (int64_t j = 0; j < f; j++) y[j] = a[j] > 0 ? a[j] : expm1f(a[j]); break;
        case OP_SIGMOID: for (int64_t j = 0; j < f; j++) y[j] = gs_sigmoidf(a[j]); break;
        case OP_TANH: for (int64_t j = 0; j < f; j++) y[j] = tanhf(a[j]); break;
        case OP_DROPOUT:
            if (c->fp == 0.0f) {
                if (y != a) memcpy(y, a, sizeof(float) * (size_t)f); /* in place: nothing to do */
            } else {
                gs_drop_apply(y, a, row_key(c, r), f, c->fp, stream ? GS_DROP_STREAM : GS_DROP_STORE);
            }
            break;
        default: break;
        }
    }
    if (stream) GS_STREAM_FENCE();
}

static void ew_backward_range(void *p, int64_t rb, int64_t re)
{
    const ew_args_t *c = p;
    int64_t f = c->cols;
    for (int64_t r = rb; r < re; r++) {
        const float *dy = c->dy + r * f, *a = c->a + r * f, *y = c->y ? c->y + r * f : NULL;
        float *da = c->da ? c->da + r * f : NULL, *db = c->db ? c->db + r * f : NULL;
        switch (c->op) {
        case OP_BIAS:
        case OP_ADD:
            if (da && !c->acc_a && da != dy) memcpy(da, dy, sizeof(float) * (size_t)f); /* da == dy: in place, nothing to do */
            else if (da && c->acc_a) for (int64_t j = 0; j < f; j++) da[j] += dy[j];
            if (db && c->op == OP_ADD) for (int64_t j = 0; j < f; j++) GS_PUT(db[j], c->acc_b, dy[j]);
            break;
        case OP_MUL: {
            const float *b = c->b + r * f;
            if (da) for (int64_t j = 0; j < f; j++) GS_PUT(da[j], c->acc_a, dy[j] * b[j]);
            if (db) for (int64_t j = 0; j < f; j++) GS_PUT(db[j], c->acc_b, dy[j] * a[j]);
            break;
        }
        case OP_LERP: {
            const float *x0 = c->b + r * f, *x1 = c->c + r * f;
            float *dc = c->dc ? c->dc + r * f : NULL;
            if (da) for (int64_t j = 0; j < f; j++) GS_PUT(da[j], c->acc_a, dy[j] * (x1[j] - x0[j]));
            if (db) for (int64_t j = 0; j < f; j++) GS_PUT(db[j], c->acc_b, dy[j] * (1.0f - a[j]));
            if (dc) for (int64_t j = 0; j < f; j++) GS_PUT(dc[j], c->acc_c, dy[j] * a[j]);
            break;
        }
        case OP_RELU:
            if (c->mask) {
                relu_bwd_bits(dy, c->mask + r * GS_MASK_WORDS(f), f, da, c->acc_a);
            } else {
                for (int64_t j = 0; j < f; j++) GS_PUT(da[j], c->acc_a, y[j] > 0 ? dy[j] : 0.0f);
            }
            break;
        case OP_LEAKY_RELU: for (int64_t j = 0; j < f; j++) GS_PUT(da[j], c->acc_a, a[j] > 0 ? dy[j] : c->fp * dy[j]); break;
        case OP_ELU: for (int64_t j = 0; j < f; j++) GS_PUT(da[j], c->acc_a, a[j] > 0 ? dy[j] : dy[j] * (y[j] + 1.0f)); break;
        case OP_SIGMOID: for (int64_t j = 0; j < f; j++) GS_PUT(da[j], c->acc_a, dy[j] * y[j] * (1.0f - y[j])); break;
        case OP_TANH: for (int64_t j = 0; j < f; j++) GS_PUT(da[j], c->acc_a, dy[j] * (1.0f - y[j] * y[j])); break;
        case OP_DROPOUT:
            if (c->fp == 0.0f) {
                for (int64_t j = 0; j < f; j++) GS_PUT(da[j], c->acc_a, dy[j]);
            } else {
                gs_drop_apply(da, dy, row_key(c, r), f, c->fp, c->acc_a ? GS_DROP_ADD : GS_DROP_STORE);
            }
            break;
        default: break;
        }
    }
}

/* Rows per grain of an elementwise op: 256 KB of floats. Each thread then
 * streams long contiguous runs; at 16 KB grains (the old 4096 floats) the
 * two threads' interleaved pieces and the shared counter's traffic made a
 * 120K x 128 dropout 3.6-4.4 ms instead of 1.8-2.0 (a copy: 2.1-2.5 ms). */
#define EW_GRAIN_FLOATS ((int64_t)1 << 16)
static int64_t ew_grain(int64_t cols) { return cols >= EW_GRAIN_FLOATS ? 1 : EW_GRAIN_FLOATS / (cols ? cols : 1); }

static void ew_forward(kops_ctx_t *cx, const ew_args_t *a)
{
    (void)cx;
    gs_parallel_for(a->rows, ew_grain(a->cols), ew_forward_range, (void *)a);
}

static void ew_backward(kops_ctx_t *cx, const ew_args_t *a)
{
    (void)cx;
    if (!a->da && !a->db && !a->dc) return;
    /* a bias with no operand gradient, or in place (its operand's gradient
     * is its output's): nothing to write here (its column sums are colsum's;
     * a pass over the rows to find that cost 0.1-0.2 ms) */
    if (a->op == OP_BIAS && (!a->da || (a->da == a->dy && !a->acc_a))) return;
    gs_parallel_for(a->rows, ew_grain(a->cols), ew_backward_range, (void *)a);
}

/* ---------------- column sums: fixed-order partials ---------------- */

#define COLSUM_BLOCKS 64
typedef struct {
    const float *x;
    int64_t rows, cols;
    float *partial; /* (COLSUM_BLOCKS, cols) */
} colsum_ctx_t;

/* Block blk's column sums with the row's V = cols / 8 vectors in registers
 * (the sums in row order, as the plain loop: the same bits). At 128
 * columns (a hidden layer's bias) that is all sixteen of AVX2's: 120K x 128
 * ran at 1.0-1.25x a plain read's time through the general loop, at
 * 1.0-1.02x so. */
static inline __attribute__((always_inline)) void colsum_block_vec(const colsum_ctx_t *c, int64_t blk, const int V)
{
    int64_t r0 = c->rows * blk / COLSUM_BLOCKS, r1 = c->rows * (blk + 1) / COLSUM_BLOCKS;
    gs_v8f acc[16] = {GS_V8_BCAST(0.0f)}; /* (the rest zeroed below; the initialiser quiets a false maybe-uninitialized) */
    for (int v = 0; v < V; v++) acc[v] = GS_V8_BCAST(0.0f);
    for (int64_t r = r0; r < r1; r++)
        for (int v = 0; v < V; v++) acc[v] += *(const gs_v8f *)(c->x + r * 8 * V + 8 * v);
    for (int v = 0; v < V; v++) *(gs_v8f *)(c->partial + blk * 8 * V + 8 * v) = acc[v];
}

static void colsum_range(void *p, int64_t b, int64_t e)
{
    const colsum_ctx_t *c = p;
    for (int64_t blk = b; blk < e; blk++) {
        switch (c->cols) { /* the narrow widths (a layer's classes) and a hidden layer's */
        case 8: colsum_block_vec(c, blk, 1); continue;
        case 16: colsum_block_vec(c, blk, 2); continue;
        case 32: colsum_block_vec(c, blk, 4); continue;
        case 64: colsum_block_vec(c, blk, 8); continue;
        case 128: colsum_block_vec(c, blk, 16); continue;
        default: break;
        }
        float *acc = c->partial + blk * c->cols;
        memset(acc, 0, sizeof(float) * (size_t)c->cols);
        int64_t r0 = c->rows * blk / COLSUM_BLOCKS, r1 = c->rows * (blk + 1) / COLSUM_BLOCKS;
        for (int64_t r = r0; r < r1; r++)
            for (int64_t j = 0; j < c->cols; j++) acc[j] += c->x[r * c->cols + j];
    }
}

static void colsum(kops_ctx_t *cx, const float *x, int64_t rows, int64_t cols, float *out, int acc)
{
    (void)cx;
    float *partial = malloc(sizeof(float) * (size_t)(COLSUM_BLOCKS * (cols ? cols : 1)));
    if (!partial) { /* no scratch: the same blocked sums, one column at a time (the same bits, on one thread) */
        for (int64_t j = 0; j < cols; j++) {
            float s = 0;
            for (int blk = 0; blk < COLSUM_BLOCKS; blk++) {
                float part = 0;
                for (int64_t r = rows * blk / COLSUM_BLOCKS; r < rows * (blk + 1) / COLSUM_BLOCKS; r++) part += x[r * cols + j];
                s += part;
            }
            out[j] = acc ? out[j] + s : s;
        }
        return;
    }
    colsum_ctx_t c = {x, rows, cols, partial};
    gs_parallel_for(COLSUM_BLOCKS, 1, colsum_range, &c);
    for (int64_t j = 0; j < cols; j++) {
        float s = 0;
        for (int b = 0; b < COLSUM_BLOCKS; b++) s += partial[b * cols + j];
        out[j] = acc ? out[j] + s : s;
    }
    free(partial);
}

/* ---------------- head dot (GAT attention projections) ---------------- */

static void head_dot(kops_ctx_t *cx, const float *a, const float *w, int64_t rows, int64_t k, int64_t h, float *y)
{
    (void)cx;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < k; j++) {
            float s = 0;
            for (int64_t t = 0; t < h; t++) s += a[r * k * h + j * h + t] * w[j * h + t];
            y[r * k + j] = s;
        }
}

static void head_dot_bwd(kops_ctx_t *cx, const float *a, const float *w, const float *dy, int64_t rows, int64_t k,
                         int64_t h, float *da, int acc_a, float *dw, int acc_w)
{
    (void)cx;
    if (dw && !acc_w) memset(dw, 0, sizeof(float) * (size_t)(k * h));
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < k; j++) {
            float g = dy[r * k + j];
            for (int64_t t = 0; t < h; t++) {
                int64_t idx = r * k * h + j * h + t;
                if (da) GS_PUT(da[idx], acc_a, g * w[j * h + t]);
                if (dw) dw[j * h + t] += g * a[idx];
            }
        }
}

/* ---------------- loss, accuracy, optimiser ---------------- */

/* The loss over the listed rows (xent_cpu.h: vector rows on the pool, the
 * terms summed in fixed blocks, so the total is the same whatever the
 * threads). */
static double xent(kops_ctx_t *cx, const float *logits, int64_t nrows, int64_t c, const int32_t *label,
                   const int32_t *idx, int64_t n, int64_t counted, float *dlogits, int unlisted_zero)
{
    (void)cx;
    return xent_cpu(logits, nrows, c, label, idx, n, counted, dlogits, unlisted_zero);
}

/* Correct predictions among the listed rows [begin, end). */
static int64_t correct_rows(const float *logits, int64_t c, const int32_t *label, const int32_t *idx, int64_t begin,
                            int64_t end)
{
    int64_t ok = 0;
    for (int64_t i = begin; i < end; i++) {
        int64_t v = idx[i];
        if (label[v] < 0) continue;
        const float *z = logits + v * c;
        int64_t best = 0;
        for (int64_t k = 1; k < c; k++)
            if (z[k] > z[best]) best = k;
        ok += best == label[v];
    }
    return ok;
}

#define CORRECT_BLOCK 4096

/* The count per block of CORRECT_BLOCK listed rows, on the pool. */
typedef struct {
    const float *logits;
    int64_t c, n;
    const int32_t *label, *idx;
    int64_t *ok;
} correct_job_t;

static void correct_range(void *ctx, int64_t begin, int64_t end)
{
    const correct_job_t *j = ctx;
    for (int64_t b = begin; b < end; b++) {
        int64_t hi = (b + 1) * CORRECT_BLOCK < j->n ? (b + 1) * CORRECT_BLOCK : j->n;
        j->ok[b] = correct_rows(j->logits, j->c, j->label, j->idx, b * CORRECT_BLOCK, hi);
    }
}

static int64_t correct(kops_ctx_t *cx, const float *logits, int64_t c, const int32_t *label, const int32_t *idx,
                       int64_t n)
{
    (void)cx;
    int64_t blocks = (n + CORRECT_BLOCK - 1) / CORRECT_BLOCK, ok = 0;
    correct_job_t j = {logits, c, n, label, idx, malloc(sizeof(int64_t) * (size_t)(blocks ? blocks : 1))};
    if (!j.ok) return correct_rows(logits, c, label, idx, 0, n);
    gs_parallel_for(blocks, 1, correct_range, &j);
    for (int64_t b = 0; b < blocks; b++) ok += j.ok[b];
    free(j.ok);
    return ok;
}

static void adam(kops_ctx_t *cx, float *w, const float *g, float *m, float *v, int64_t n, float lr, float wd, float c1,
                 float c2)
{
    (void)cx;
    gs_adam_step_t a = gs_adam_factors(lr, c1, c2);
    for (int64_t j = 0; j < n; j++) gs_adam_elem(w, g, m, v, j, wd, a);
}

const kops_t kops_cpu = {
    .name = "cpu",
    .device = 0,
    .relu_masks = 1,
    .open = host_open,
    .close = host_close,
    .alloc = host_alloc,
    .release = host_release,
    .zero = host_zero,
    .copy = host_copy,
    .upload = host_copy,
    .download = host_copy,
    .sync = host_sync,
    .graph_mirror = host_mirror,
    .graph_release = host_mirror_release,
    .gemm = h_gemm,
    .gather_sum = h_gather_sum,
    .gather_sum_bwd = h_gather_sum_bwd,
    .gather_max = h_gather_max,
    .gather_max_bwd = h_gather_max_bwd,
    .scatter_src = h_scatter_src,
    .scatter_dst = h_scatter_dst,
    .scatter_src_bwd = h_scatter_src_bwd,
    .scatter_dst_bwd = h_scatter_dst_bwd,
    .gather_edge = h_gather_edge,
    .gather_edge_bwd = h_gather_edge_bwd,
    .edge_uaddv = h_edge_uaddv,
    .edge_softmax = h_edge_softmax,
    .edge_softmax_bwd = h_edge_softmax_bwd,
    .gather_attn = h_gather_attn,
    .gather_attn_bwd = h_gather_attn_bwd,
    .sddmm = h_sddmm,
    .gather_typed = h_gather_typed,
    .gather_typed_bwd = h_gather_typed_bwd,
    .ew_forward = ew_forward,
    .ew_backward = ew_backward,
    .colsum = colsum,
    .head_dot = head_dot,
    .head_dot_bwd = head_dot_bwd,
    .xent = xent,
    .correct = correct,
    .adam = adam,
    .gather_fused = h_gather_fused,
    .gather_fused_bwd = h_gather_fused_bwd,
    .scatter_typed = h_scatter_typed,
    .scatter_typed_bwd = h_scatter_typed_bwd,
    .edge_matmul_typed = h_edge_matmul_typed,
    .edge_matmul_typed_bwd = h_edge_matmul_typed_bwd,
    .gather_edge_max = h_gather_edge_max,
    .gather_edge_max_bwd = h_gather_edge_max_bwd,
};
