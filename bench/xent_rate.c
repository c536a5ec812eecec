/* xent_rate.c - the host's loss (xent_cpu: softmax cross-entropy and its
 * gradient) against its bound, on one logits tensor (ROWS x C, the output
 * layer of a GCN on a ROWS-vertex graph) with 60% of the rows listed (a
 * training split), each time the median of 41 calls on THREADS threads:
 *   - the loss itself as a run's epochs after its first call it (the
 *     gradient's unlisted rows known to hold zero: only the listed rows
 *     written), on THREADS threads and on one; and as a first epoch does
 *     (every row written);
 *   - its bound as bench_roofline.py takes it: an exponential per listed
 *     logit (what the loss must exponentiate) at the rate of a parallel
 *     gs_expf pass over the whole tensor (the same pass roofline_limits.c
 *     times), and for comparison that pass over the listed rows through
 *     idx, a row at a time.
 * Prints each in ms and the loss over each bound; exits 1 when the loss is
 * over 1.5x the roofline report's bound (issue 28's bar for every op).
 * Usage: xent_rate ROWS C THREADS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mono_clock.h"
#include "base/threadpool.h"
#include "engine/kernels/fast_math.h"
#include "engine/kernels/xent_cpu.h"

#define CALLS 41

typedef struct {
    const float *z;
    float *y;
    int64_t c;
    const int32_t *idx; /* rows to exponentiate, or NULL: every row */
} exp_job_t;

static void exp_rows(void *ctx, int64_t b, int64_t e)
{
    const exp_job_t *j = ctx;
    if (!j->idx) { /* one flat loop, as roofline_limits.c's */
        for (int64_t k = b * j->c; k < e * j->c; k++) j->y[k] = gs_expf(j->z[k]);
        return;
    }
    for (int64_t i = b; i < e; i++)
        for (int64_t k = j->idx[i] * j->c; k < (j->idx[i] + 1) * j->c; k++) j->y[k] = gs_expf(j->z[k]);
}

/* The next of a 64-bit linear congruential sequence (Knuth's MMIX constants). */
static uint64_t next_random(uint64_t *s) { return *s = *s * 6364136223846793005ULL + 1442695040888963407ULL; }

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct {
    const float *z;
    float *d;
    const int32_t *label, *idx;
    int64_t rows, c, n;
    exp_job_t all, listed;
} bench_t;

/* The median seconds of CALLS runs of what: 0 the loss with the unlisted
 * rows left (a run's later epochs), 1 every row's exponentials, 2 the
 * listed rows', 3 the loss writing every row (a first epoch). */
static double median_s(const bench_t *b, int what)
{
    double t[CALLS];
    for (int i = 0; i < CALLS; i++) {
        double t0 = gs_mono_s();
        if (what == 0 || what == 3) (void)xent_cpu(b->z, b->rows, b->c, b->label, b->idx, b->n, b->n, b->d, what == 0);
        else gs_parallel_for(what == 1 ? b->rows : b->n, 1024, exp_rows, (void *)(what == 1 ? &b->all : &b->listed));
        t[i] = gs_mono_s() - t0;
    }
    qsort(t, CALLS, sizeof t[0], by_value);
    return t[CALLS / 2];
}

int main(int argc, char **argv)
{
    if (argc != 4 || atoll(argv[1]) < 1 || atoll(argv[2]) < 1 || atoi(argv[3]) < 1) {
        fprintf(stderr, "usage: xent_rate ROWS C THREADS (each at least 1)\n");
        return 2;
    }
    int64_t rows = atoll(argv[1]), c = atoll(argv[2]), n = 0;
    int threads = atoi(argv[3]);
    float *z = malloc(sizeof(float) * (size_t)(rows * c)), *d = malloc(sizeof(float) * (size_t)(rows * c));
    int32_t *label = malloc(sizeof(int32_t) * (size_t)rows), *idx = malloc(sizeof(int32_t) * (size_t)rows);
    if (!z || !d || !label || !idx) return 1;
    uint64_t s = 1;
    for (int64_t i = 0; i < rows * c; i++) z[i] = (float)(next_random(&s) >> 40) / (1 << 24) * 8 - 4; /* in [-4, 4) */
    for (int64_t r = 0; r < rows; r++) {
        next_random(&s);
        label[r] = (int32_t)((s >> 33) % (uint64_t)c);
        if ((s >> 20) % 10 < 6) idx[n++] = (int32_t)r;
    }
    bench_t b = {z, d, label, idx, rows, c, n, {z, d, c, NULL}, {z, d, c, idx}};
    gs_pool_init(1);
    double first = median_s(&b, 3), one = median_s(&b, 0); /* the first call leaves the unlisted rows zero */
    gs_pool_init(threads);
    double loss = median_s(&b, 0), all = median_s(&b, 1), listed = median_s(&b, 2), every = median_s(&b, 3);
    printf("%lld x %lld logits, %lld rows listed, %d threads (medians of %d)\n", (long long)rows, (long long)c, (long long)n,
           threads, CALLS);
    printf("loss               %8.3f ms (one thread %.3f ms)\n", 1e3 * loss, 1e3 * one);
    printf("loss, every row    %8.3f ms (one thread %.3f ms): a run's first epoch\n", 1e3 * every, 1e3 * first);
    double bound = all * (double)n / (double)rows; /* the listed logits at the flat pass's rate */
    printf("exp, every row     %8.3f ms (a flat pass over the tensor)\n", 1e3 * all);
    printf("exp, listed logits %8.3f ms (the roofline report's bound: the flat pass's rate): loss %.2fx\n", 1e3 * bound,
           loss / bound);
    printf("exp, listed rows   %8.3f ms (the same pass row by row, through idx): loss %.2fx\n", 1e3 * listed, loss / listed);
    free(z), free(d), free(label), free(idx);
    return loss <= 1.5 * bound ? 0 : 1;
}
