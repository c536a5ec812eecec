/* roofline_limits.c - this machine's limits for the per-op roofline report
 * (bench_roofline.py), measured on the graph the report trains on, on
 * THREADS threads through the engine's own pool and OpenBLAS:
 *   - streaming bandwidth: a parallel copy of an N x 128 float tensor,
 *     bytes read plus bytes written per second (the bound of elementwise
 *     ops that write a new tensor), and a parallel update of one in place,
 *     the same count (no write-allocate read: ~1.45x the copy's rate here;
 *     the bound of ops that write over their operand), and a parallel read
 *     of one, bytes read per second (a bias's backward in place only reads);
 *   - random-row gather bandwidth at each width F: a plain weighted pull
 *     over the graph's CSC (forward: destination rows summing their
 *     sources' rows) and its CSR (backward), the rows read by index per
 *     second (graph ops' bound);
 *   - sgemm: OpenBLAS at the training step's shapes (N x 128 x 128 three
 *     ways, N x 16 x 128), and the best of them (matmuls' FLOP bound);
 *   - exponentials: a parallel pass y = exp(x) over N x 16 floats with the
 *     engine's vectorised gs_expf, elements per second (the loss's bound:
 *     an exponential per logit).
 * Each is the best of 7 runs, on tensors from the engine's allocator (huge
 * pages where the kernel gives them). Prints one JSON object.
 * Usage: roofline_limits DATASET THREADS F [F ...] */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mono_clock.h"
#include "base/threadpool.h"
#include "datasets/dataset_load.h"
#include "engine/graph/graph.h"
#include "engine/graph/tensor.h"
#include "engine/kernels/fast_math.h"

#define REPS 7

typedef struct {
    const int64_t *ptr;
    const int32_t *nbr;
    const float *w, *x;
    float *y;
    int64_t f;
} pull_t;

typedef float v8f __attribute__((vector_size(32), aligned(4))); /* unaligned loads and stores */

/* Rows [b, e): each a weighted sum of its neighbours' rows, the width a
 * constant. At 8 to 64 wide in steps of 8 the sums stay in vector
 * registers (a float array there compiled to a reload of every lane at
 * every edge: half the rate at 16); otherwise they are summed in the
 * output row. */
static inline __attribute__((always_inline)) void pull_width(const pull_t *p, int64_t b, int64_t e, const int64_t f)
{
    enum { REG = 8 }; /* vectors of sums kept in registers: 64 floats */
    const int in_regs = f % 8 == 0 && f <= 8 * REG;
    for (int64_t r = b; r < e; r++) {
        float *y = p->y + r * f;
        v8f s[REG] = {{0}};
        if (!in_regs) memset(y, 0, sizeof(float) * (size_t)f);
        for (int64_t q = p->ptr[r]; q < p->ptr[r + 1]; q++) {
            if (q + 4 < p->ptr[r + 1]) __builtin_prefetch(p->x + (int64_t)p->nbr[q + 4] * f);
            const float *x = p->x + (int64_t)p->nbr[q] * f;
            float w = p->w[q];
            if (in_regs)
                for (int64_t k = 0; k < f / 8; k++) s[k] += w * *(const v8f *)(x + 8 * k);
            else
                for (int64_t j = 0; j < f; j++) y[j] += w * x[j];
        }
        if (in_regs) memcpy(y, s, sizeof(float) * (size_t)f);
    }
}

static void pull_rows(void *ctx, int64_t b, int64_t e)
{
    const pull_t *p = ctx;
    switch (p->f) {
    case 16: pull_width(p, b, e, 16); break;
    case 32: pull_width(p, b, e, 32); break;
    case 64: pull_width(p, b, e, 64); break;
    case 128: pull_width(p, b, e, 128); break;
    case 256: pull_width(p, b, e, 256); break;
    default: pull_width(p, b, e, p->f); break;
    }
}

typedef struct {
    const float *a;
    float *b;
    int64_t cols;
} copy_t;

static void copy_rows(void *ctx, int64_t b, int64_t e)
{
    const copy_t *c = ctx;
    memcpy(c->b + b * c->cols, c->a + b * c->cols, sizeof(float) * (size_t)((e - b) * c->cols));
}

/* Read only: the rows summed into four vectors (kept live, so the loads stay). */
static void read_rows(void *ctx, int64_t b, int64_t e)
{
    const copy_t *c = ctx;
    v8f s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    int64_t i = b * c->cols, end = e * c->cols;
    for (; i + 32 <= end; i += 32) {
        s0 += *(const v8f *)(c->b + i), s1 += *(const v8f *)(c->b + i + 8);
        s2 += *(const v8f *)(c->b + i + 16), s3 += *(const v8f *)(c->b + i + 24);
    }
    s0 += s1 + s2 + s3;
    __asm__ volatile("" ::"x"(s0));
}

/* In place: each element read and written back (no write-allocate read). */
static void update_rows(void *ctx, int64_t b, int64_t e)
{
    const copy_t *c = ctx;
    for (int64_t i = b * c->cols; i < e * c->cols; i++) c->b[i] = c->b[i] * 0.5f + 1.0f;
}

static void exp_rows(void *ctx, int64_t b, int64_t e)
{
    const copy_t *c = ctx;
    for (int64_t i = b * c->cols; i < e * c->cols; i++) c->b[i] = gs_expf(c->a[i]);
}

/* Seconds of the best of REPS parallel runs of fn over rows. */
static double best_of(gs_range_fn fn, const void *ctx, int64_t rows, int64_t grain)
{
    double best = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = gs_mono_s();
        gs_parallel_for(rows, grain, fn, (void *)ctx);
        double t = gs_mono_s() - t0;
        best = t < best ? t : best;
    }
    return best;
}

/* GFLOP/s of C (m x n) = op(A) op(B), best of REPS. */
static double sgemm_rate(int ta, int tb, int64_t m, int64_t n, int64_t k)
{
    float *a = calloc((size_t)(m * k), sizeof(float)), *b = calloc((size_t)(k * n), sizeof(float));
    float *c = calloc((size_t)(m * n), sizeof(float));
    if (!a || !b || !c) return 0;
    for (int64_t i = 0; i < m * k; i++) a[i] = (float)(i % 7) * 0.1f;
    for (int64_t i = 0; i < k * n; i++) b[i] = (float)(i % 5) * 0.1f;
    double best = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = gs_mono_s();
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a,
                    ta ? (int)m : (int)k, b, tb ? (int)k : (int)n, 0.0f, c, (int)n);
        double t = gs_mono_s() - t0;
        best = t < best ? t : best;
    }
    free(a), free(b), free(c);
    return 2.0 * (double)m * (double)n * (double)k / best / 1e9;
}

static void print_gathers(const graph_t *g, char **widths, int nw, float *x, float *y)
{
    printf(",\"gather\":{");
    for (int i = 0; i < nw; i++) {
        int64_t f = atoll(widths[i]);
        pull_t fwd = {g->in_ptr, g->in_src, g->w_norm, x, y, f};
        pull_t bwd = {g->out_ptr, g->out_dst, g->out_w_norm, x, y, f};
        double rows = 4.0 * (double)g->m * (double)f;
        printf("%s\"%lld\":{\"fwd_gbs\":%.3f,\"bwd_gbs\":%.3f}", i ? "," : "", (long long)f, rows / best_of(pull_rows, &fwd, g->n, 32) / 1e9,
               rows / best_of(pull_rows, &bwd, g->nsrc, 32) / 1e9);
    }
    printf("}");
}

static void print_sgemm(int64_t n)
{
    struct {
        const char *name;
        int ta, tb;
        int64_t m, n, k;
    } s[] = {{"N x 128 x 128 (forward)", 0, 0, n, 128, 128},
             {"N x 128 x 128 (input gradient, B transposed)", 0, 1, n, 128, 128},
             {"128 x 128 x N (weight gradient, A transposed)", 1, 0, 128, 128, n},
             {"N x 16 x 128 (a narrow output)", 0, 0, n, 16, 128}};
    double peak = 0;
    printf(",\"sgemm_gflops\":{");
    for (int i = 0; i < 4; i++) {
        double r = sgemm_rate(s[i].ta, s[i].tb, s[i].m, s[i].n, s[i].k);
        peak = r > peak ? r : peak;
        printf("%s\"%s\":%.3f", i ? "," : "", s[i].name, r);
    }
    printf("},\"sgemm_peak_gflops\":%.3f", peak);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: roofline_limits DATASET THREADS F [F ...]\n");
        return 2;
    }
    int threads = atoi(argv[2]);
    gs_pool_init(threads);
    openblas_set_num_threads(threads);
    dataset_t ds;
    graph_t g;
    gs_warnings_t warn = {0};
    gs_err_t err;
    if (dataset_load(&ds, argv[1], 1, &warn, &err) || graph_build(&g, &ds, &err)) {
        fprintf(stderr, "roofline_limits: %s\n", err.msg);
        return 2;
    }
    int64_t fmax = 128;
    for (int i = 3; i < argc; i++) fmax = atoll(argv[i]) > fmax ? atoll(argv[i]) : fmax;
    int64_t rows = g.nsrc > g.n ? g.nsrc : g.n;
    float *x = gs_aligned_alloc(sizeof(float) * (size_t)(rows * fmax)), *y = gs_aligned_alloc(sizeof(float) * (size_t)(rows * fmax));
    if (!x || !y) return 1;
    for (int64_t i = 0; i < rows * fmax; i++) x[i] = (float)(i % 11) * 0.1f, y[i] = 0;
    copy_t c = {x, y, 128};
    printf("{\"threads\":%d,\"nodes\":%lld,\"edges\":%lld,\"stream_gbs\":%.3f", threads, (long long)g.n, (long long)g.m,
           2.0 * 4.0 * (double)rows * 128 / best_of(copy_rows, &c, rows, 256) / 1e9);
    printf(",\"stream_in_place_gbs\":%.3f", 2.0 * 4.0 * (double)rows * 128 / best_of(update_rows, &c, rows, 256) / 1e9);
    printf(",\"stream_read_gbs\":%.3f", 4.0 * (double)rows * 128 / best_of(read_rows, &c, rows, 256) / 1e9);
    copy_t logits = {x, y, 16};
    printf(",\"exp_gps\":%.3f", (double)rows * 16 / best_of(exp_rows, &logits, rows, 1024) / 1e9);
    print_gathers(&g, argv + 3, argc - 3, x, y);
    print_sgemm(rows);
    printf("}\n");
    return 0;
}
