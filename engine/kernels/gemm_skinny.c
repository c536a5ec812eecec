/* gemm_skinny.c - see gemm_skinny.h. */
#include "gemm_skinny.h"

#include <stdlib.h>
#include <string.h>

#include "base/threadpool.h"

#define NARROW 32
#define ROW_GRAIN 256

typedef float v8 __attribute__((vector_size(32), aligned(4))); /* eight floats, unaligned loads and stores */

typedef struct {
    const float *a, *b;
    float *c;
    int64_t n, k;
    int acc;
} rows_job_t;

/* x in every lane (a macro: a function returning v8 would change the ABI where AVX is off) */
#define BCAST(x) ((v8){(x), (x), (x), (x), (x), (x), (x), (x)})

/* C rows [r0, r1) of C (+)= A B with V = n / 8 vectors a row (n <= 32):
 * four rows at a time in registers, so each row of B is loaded once for
 * four; each element summed over k in order (a * b, then +). */
static inline __attribute__((always_inline)) void nn_rows(const rows_job_t *j, int64_t r0, int64_t r1, const int V)
{
    const int64_t k = j->k, n = 8 * V;
    for (int64_t r = r0; r < r1; r += 4) {
        int rows = r1 - r < 4 ? (int)(r1 - r) : 4;
        v8 s[4][4];
        for (int i = 0; i < 4; i++)
            for (int v = 0; v < V; v++) s[i][v] = j->acc && i < rows ? *(const v8 *)(j->c + (r + i) * n + 8 * v) : BCAST(0.0f);
        const float *ar[4];
        for (int i = 0; i < 4; i++) ar[i] = j->a + (r + (i < rows ? i : 0)) * k;
        for (int64_t q = 0; q < k; q++) {
            v8 bq[4];
            for (int v = 0; v < V; v++) bq[v] = *(const v8 *)(j->b + q * n + 8 * v);
            for (int i = 0; i < 4; i++) {
                float a1 = ar[i][q];
                v8 av = BCAST(a1);
                for (int v = 0; v < V; v++) s[i][v] += av * bq[v];
            }
        }
        for (int i = 0; i < rows; i++)
            for (int v = 0; v < V; v++) *(v8 *)(j->c + (r + i) * n + 8 * v) = s[i][v];
    }
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
                for (int v = 0; v < 8; v++) s[v] += av * *(const v8 *)(bq + 8 * v);
            }
            for (int v = 0; v < 8; v++) *(v8 *)(cr + 8 * v) = s[v];
        }
    }
}

int k_gemm_skinny(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c, int acc)
{
    /* by shape alone, never by m: a streamed run's row chunks must take the path the whole product takes */
    if (!trans_a && !trans_b && n <= NARROW && n % 8 == 0) {
        rows_job_t j = {a, b, c, n, k, acc};
        gs_range_fn fn[] = {nn_8, nn_16, nn_24, nn_32};
        gs_parallel_for(m, ROW_GRAIN, fn[n / 8 - 1], &j);
        return 1;
    }
    if (!trans_a && trans_b && k <= NARROW && n % 64 == 0) {
        float *bt = malloc(sizeof(float) * (size_t)(k * n)); /* B (n x k) as k x n */
        if (!bt) return 0;
        for (int64_t x = 0; x < n; x++)
            for (int64_t q = 0; q < k; q++) bt[q * n + x] = b[x * k + q];
        rows_job_t j = {a, bt, c, n, k, acc};
        gs_parallel_for(m, ROW_GRAIN, small_k_rows, &j);
        free(bt);
        return 1;
    }
    return 0;
}
