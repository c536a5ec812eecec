/* gemm_skinny.c - see gemm_skinny.h. */
#include "gemm_skinny.h"

#include <stdlib.h>
#include <string.h>

#include "base/threadpool.h"

#include "stream_store.h"

#define NARROW 32
#define WIDE_MAX 128 /* NN in 32-column panels up to this width, */
#define WIDE_K 512   /* and this depth (past them OpenBLAS's packed kernels are as fast or faster here) */
#define ROW_GRAIN 256
#define SUM_ROWS_MAX 512 /* A^T B's narrow output: at most this many rows */

typedef float v8 __attribute__((vector_size(32), aligned(4))); /* eight floats, unaligned loads and stores */

typedef struct {
    const float *a, *b;
    float *c;
    int64_t m, n, k;
    int acc;
} rows_job_t;

/* x in every lane (a macro: a function returning v8 would change the ABI where AVX is off) */
#define BCAST(x) ((v8){(x), (x), (x), (x), (x), (x), (x), (x)})

/* s + a b, one rounding where the build has FMA (two elsewhere: each build
 * is consistent with itself, which is what the equivalence tests ask). */
#if defined(__FMA__)
#define MADD(a, b, s) ((v8)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(s)))
#else
#define MADD(a, b, s) ((a) * (b) + (s))
#endif

#define TILE_VECTORS 12 /* accumulators a tile holds in registers (of 16) */

/* C rows [r0, r1) of C (+)= A B in panels of 8 V columns (V = n / 8 for
 * n <= 32, else 4), R = 12 / V rows at a time in registers, so each row of
 * a panel of B is loaded once for R rows; each element summed over k in
 * order. Rows go in blocks of NN_BLOCK, each block panel by panel, so a
 * panel of B stays in L1 across the block's tiles. A fresh output bigger
 * than the caches is written with non-temporal stores. */
#define NN_BLOCK 48 /* a multiple of every R (12, 6, 4, 3) */

static inline __attribute__((always_inline)) void nn_tile(const rows_job_t *j, int64_t r, int rows, int64_t x, int stream, const int V)
{
    const int64_t k = j->k, n = j->n;
    const int R = TILE_VECTORS / V;
    const float *ar[TILE_VECTORS];
    for (int i = 0; i < R; i++) ar[i] = j->a + (r + (i < rows ? i : 0)) * k;
    v8 s[TILE_VECTORS][4] = {{BCAST(0.0f)}}; /* (all set below; the initialiser quiets a false maybe-uninitialized) */
    for (int i = 0; i < R; i++)
        for (int v = 0; v < V; v++) s[i][v] = j->acc && i < rows ? *(const v8 *)(j->c + (r + i) * n + x + 8 * v) : BCAST(0.0f);
    for (int64_t q = 0; q < k; q++) {
        v8 bq[4];
        for (int v = 0; v < V; v++) bq[v] = *(const v8 *)(j->b + q * n + x + 8 * v);
        for (int i = 0; i < R; i++) {
            float a1 = ar[i][q];
            v8 av = BCAST(a1);
            for (int v = 0; v < V; v++) s[i][v] = MADD(av, bq[v], s[i][v]);
        }
    }
    for (int i = 0; i < rows; i++)
        for (int v = 0; v < V; v++) {
            float *cv = j->c + (r + i) * n + x + 8 * v;
            if (stream)
                GS_STREAM_STORE8(cv, s[i][v]);
            else
                *(v8 *)cv = s[i][v];
        }
}

static inline __attribute__((always_inline)) void nn_rows(const rows_job_t *j, int64_t r0, int64_t r1, const int V)
{
    const int64_t k = j->k, n = j->n;
    const int R = TILE_VECTORS / V;
    const int stream = !j->acc && gs_stream_output(j->c, j->m * n);
    for (int64_t blk = r0; blk < r1; blk += NN_BLOCK) {
        int64_t end = r1 - blk < NN_BLOCK ? r1 : blk + NN_BLOCK;
        for (int64_t x = 0; x < n; x += 8 * V)
            for (int64_t r = blk; r < end; r += R) {
                /* the next tile's rows, read a column at a time, which the hardware does not prefetch: in the
                 * block's first panel, and from the next block in its last (later panels find them cached) */
                int64_t next = r + R;
                if (next + R <= r1 && ((x == 0 && next < end) || (x + 8 * V >= n && next >= end)))
                    for (int64_t y = 0; y < R * k; y += 16) __builtin_prefetch(j->a + next * k + y);
                nn_tile(j, r, end - r < R ? (int)(end - r) : R, x, stream, V);
            }
    }
    if (stream) GS_STREAM_FENCE();
}

static void nn_8(void *ctx, int64_t r0, int64_t r1) { nn_rows(ctx, r0, r1, 1); }
static void nn_16(void *ctx, int64_t r0, int64_t r1) { nn_rows(ctx, r0, r1, 2); }
static void nn_24(void *ctx, int64_t r0, int64_t r1) { nn_rows(ctx, r0, r1, 3); }
static void nn_32(void *ctx, int64_t r0, int64_t r1) { nn_rows(ctx, r0, r1, 4); }

/* C rows [r0, r1) of A (m x k) Bt (k x n) with k <= NARROW and n a
 * multiple of 64: each row of C in 64-column tiles held in registers,
 * summed over the k rows of Bt in order. */
static void small_k_rows(void *ctx, int64_t r0, int64_t r1)
{
    const rows_job_t *j = ctx;
    const int64_t n = j->n, k = j->k;
    const int stream = !j->acc && gs_stream_output(j->c, j->m * n) && n % 8 == 0; /* (rows of whole vectors) */
    for (int64_t r = r0; r < r1; r++) {
        const float *ar = j->a + r * k;
        for (int64_t x = 0; x < n; x += 64) {
            float *cr = j->c + r * n + x;
            v8 s[8];
            for (int v = 0; v < 8; v++) s[v] = j->acc ? *(const v8 *)(cr + 8 * v) : BCAST(0.0f);
            for (int64_t q = 0; q < k; q++) {
                float a1 = ar[q];
                v8 av = BCAST(a1);
                const float *bq = j->b + q * n + x;
                for (int v = 0; v < 8; v++) s[v] = MADD(av, *(const v8 *)(bq + 8 * v), s[v]);
            }
            if (stream) /* a fresh output bigger than the caches: no read for ownership */
                for (int v = 0; v < 8; v++) GS_STREAM_STORE8(cr + 8 * v, s[v]);
            else
                for (int v = 0; v < 8; v++) *(v8 *)(cr + 8 * v) = s[v];
        }
    }
    if (stream) GS_STREAM_FENCE();
}

/* The weight gradient's shape, C (m x n) (+)= A^T B with A (k x m) and
 * B (k x n): the k rows cut in fixed blocks of SUM_BLOCK (from the call's
 * first row, whatever the threads), each block's partial product summed in
 * registers (R = 12 / V rows of C at a time, the block's rows in order),
 * then the partials added to C in block order. */
#define SUM_BLOCK 1024
#define SUM_SUB 64 /* rows of A (64 x m floats) swept once per tile of C */

typedef struct {
    const float *a, *b;
    float *part; /* (blocks x m x n) */
    int64_t m, n, k;
} sum_job_t;

static inline __attribute__((always_inline)) void tn_block(const sum_job_t *j, int64_t blk, const int V)
{
    const int64_t m = j->m, n = 8 * V, q0 = blk * SUM_BLOCK, q1 = q0 + SUM_BLOCK < j->k ? q0 + SUM_BLOCK : j->k;
    const int R = TILE_VECTORS / V;
    float *part = j->part + blk * m * n;
    memset(part, 0, sizeof(float) * (size_t)(m * n));
    for (int64_t s0 = q0; s0 < q1; s0 += SUM_SUB) { /* sub-blocks of A that stay in L1 across the tiles */
        int64_t s1 = s0 + SUM_SUB < q1 ? s0 + SUM_SUB : q1;
        /* the next sub-block's lines prefetched one per row step until all are asked for (addresses as integers: the
         * last sub-block's "next" lies past A, which a prefetch never faults on) */
        const uintptr_t ahead_end = (uintptr_t)(j->a + s0 * m) + 2 * sizeof(float) * (size_t)(SUM_SUB * m);
        uintptr_t ahead = ahead_end - sizeof(float) * (size_t)(SUM_SUB * m);
        for (int64_t i0 = 0; i0 < m; i0 += R) {
            int rows = m - i0 < R ? (int)(m - i0) : R;
            v8 s[TILE_VECTORS][4] = {{BCAST(0.0f)}}; /* (all set below; the initialiser quiets a false maybe-uninitialized) */
            for (int i = 0; i < R; i++)
                for (int v = 0; v < V; v++) s[i][v] = i < rows ? *(const v8 *)(part + (i0 + i) * n + 8 * v) : BCAST(0.0f);
            const uintptr_t step = ahead < ahead_end ? 64 : 0; /* (a branch-free inner loop) */
            for (int64_t q = s0; q < s1; q++) {
                __builtin_prefetch((const void *)ahead);
                ahead += step;
                v8 bq[4];
                for (int v = 0; v < V; v++) bq[v] = *(const v8 *)(j->b + q * n + 8 * v);
                const float *aq = j->a + q * m + i0;
                for (int i = 0; i < R; i++) {
                    float a1 = aq[i < rows ? i : 0];
                    v8 av = BCAST(a1);
                    for (int v = 0; v < V; v++) s[i][v] = MADD(av, bq[v], s[i][v]);
                }
            }
            for (int i = 0; i < rows; i++)
                for (int v = 0; v < V; v++) *(v8 *)(part + (i0 + i) * n + 8 * v) = s[i][v];
        }
    }
}

static void tn_8(void *ctx, int64_t b0, int64_t b1) { for (int64_t b = b0; b < b1; b++) tn_block(ctx, b, 1); }
static void tn_16(void *ctx, int64_t b0, int64_t b1) { for (int64_t b = b0; b < b1; b++) tn_block(ctx, b, 2); }
static void tn_24(void *ctx, int64_t b0, int64_t b1) { for (int64_t b = b0; b < b1; b++) tn_block(ctx, b, 3); }
static void tn_32(void *ctx, int64_t b0, int64_t b1) { for (int64_t b = b0; b < b1; b++) tn_block(ctx, b, 4); }

static int gemm_tn_sum(int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c, int acc)
{
    int64_t blocks = (k + SUM_BLOCK - 1) / SUM_BLOCK;
    sum_job_t j = {a, b, malloc(sizeof(float) * (size_t)(blocks * m * n)), m, n, k};
    if (!j.part) return 0;
    gs_range_fn fn[] = {tn_8, tn_16, tn_24, tn_32};
    gs_parallel_for(blocks, 1, fn[n / 8 - 1], &j);
    if (!acc) memset(c, 0, sizeof(float) * (size_t)(m * n));
    for (int64_t blk = 0; blk < blocks; blk++) /* each element's partials in block order; all elements at once */
        for (int64_t e = 0; e < m * n; e++) c[e] += j.part[blk * m * n + e];
    free(j.part);
    return 1;
}

int k_gemm_skinny(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c, int acc)
{
    /* by shape alone, never by m: a streamed run's row chunks must take the path the whole product takes */
    if (!trans_a && !trans_b && n % 8 == 0 && (n <= NARROW || (n % NARROW == 0 && n <= WIDE_MAX && k <= WIDE_K))) {
        rows_job_t j = {a, b, c, m, n, k, acc};
        gs_range_fn fn[] = {nn_8, nn_16, nn_24, nn_32};
        gs_parallel_for(m, ROW_GRAIN, fn[(n <= NARROW ? n : NARROW) / 8 - 1], &j);
        return 1;
    }
    if (!trans_a && trans_b && k <= NARROW && n % 64 == 0) {
        float *bt = malloc(sizeof(float) * (size_t)(k * n)); /* B (n x k) as k x n */
        if (!bt) return 0;
        for (int64_t x = 0; x < n; x++)
            for (int64_t q = 0; q < k; q++) bt[q * n + x] = b[x * k + q];
        rows_job_t j = {a, bt, c, m, n, k, acc};
        gs_parallel_for(m, ROW_GRAIN, small_k_rows, &j);
        free(bt);
        return 1;
    }
    if (trans_a && !trans_b && n <= NARROW && n % 8 == 0 && m <= SUM_ROWS_MAX) return gemm_tn_sum(m, n, k, a, b, c, acc);
    return 0;
}
