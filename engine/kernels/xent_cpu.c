/* xent_cpu.c - see xent_cpu.h. Rows go in blocks of eight: each row's max
 * and exponentials (stored in its gradient row) and their sum, then the
 * block's eight logs in one vector and its rows' gradients scaled. The
 * arithmetic keeps train_math.h's order: the running max (exact in any
 * order), element j's exponential summed in double into lane j % 8 (two
 * four-lane double vectors), lanes folded 4, 2, 1; the last partial vector
 * of a row is padded with z[0] and its padding's exponentials set to +0,
 * which leaves a lane's sum as it was (gs_expf clamps: exp(-inf) is not 0).
 * Each gradient row is written once: a listed row by its block, an
 * unlisted one zeroed by the range whose listed rows surround it (idx
 * sorted ascending; otherwise every row is zeroed first). */
#include "xent_cpu.h"

#include <stdlib.h>
#include <string.h>

#include "fast_math_v8.h"
#include "train_math.h"
#include "base/threadpool.h"

typedef double v4d __attribute__((vector_size(32), aligned(8)));

#define BLOCK 8 /* rows whose logs are taken together */

/* Vectors go by pointer: a function taking or returning one by value would
 * change the ABI where the build has no AVX. */

/* *v = vector q of row z: elements [8q, 8q + 8), the tail padded with z[0]. */
static inline void row_vector(const float *z, int64_t c, int64_t q, gs_v8f *v)
{
    if (c - 8 * q >= 8) {
        *v = *(const gs_v8f *)(z + 8 * q);
        return;
    }
    *v = GS_V8_BCAST(z[0]);
    for (int64_t j = 8 * q; j < c; j++) (*v)[j - 8 * q] = z[j];
}

/* *x = the exponentials of vector q less the max, +0 in the padding. */
static inline void row_exp(const float *z, int64_t c, int64_t q, float mx, gs_v8f *x)
{
    gs_v8f v;
    row_vector(z, c, q, &v);
    GS_EXPF_V8(*x, v - mx);
    if (c - 8 * q >= 8) return;
    int32_t left = (int32_t)(c - 8 * q);
    gs_v8i live = (gs_v8i){0, 1, 2, 3, 4, 5, 6, 7} < (gs_v8i){left, left, left, left, left, left, left, left};
    *x = GS_V8_SELECT(live, *x, GS_V8_BCAST(0.0f));
}

/* Vector *x's c - 8q <= 8 leading lanes stored at p + 8q. */
static inline void store_lanes(float *p, int64_t c, int64_t q, const gs_v8f *x)
{
    if (c - 8 * q >= 8) *(gs_v8f *)(p + 8 * q) = *x;
    else
        for (int64_t j = 8 * q; j < c; j++) p[j] = (*x)[j - 8 * q];
}

static inline float row_max(const float *z, int64_t c)
{
    gs_v8f m = GS_V8_BCAST(z[0]);
    for (int64_t q = 0; q < (c + 7) / 8; q++) {
        gs_v8f v;
        row_vector(z, c, q, &v);
        m = GS_V8_SELECT(v > m, v, m);
    }
    gs_v8f t = __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3); /* folded by the same select */
    m = GS_V8_SELECT(t > m, t, m);
    t = __builtin_shufflevector(m, m, 2, 3, 0, 1, 6, 7, 4, 5);
    m = GS_V8_SELECT(t > m, t, m);
    t = __builtin_shufflevector(m, m, 1, 0, 3, 2, 5, 4, 7, 6);
    m = GS_V8_SELECT(t > m, t, m);
    return m[0];
}

/* The sum of row z's exponentials less mx; each stored in e when not NULL. */
static inline double row_sum(const float *z, int64_t c, float mx, float *e)
{
    v4d lo = {0, 0, 0, 0}, hi = {0, 0, 0, 0};
    for (int64_t q = 0; q < (c + 7) / 8; q++) {
        gs_v8f x;
        row_exp(z, c, q, mx, &x);
        if (e) store_lanes(e, c, q, &x);
        lo += __builtin_convertvector(__builtin_shufflevector(x, x, 0, 1, 2, 3), v4d);
        hi += __builtin_convertvector(__builtin_shufflevector(x, x, 4, 5, 6, 7), v4d);
    }
    v4d s4 = lo + hi;
    return (s4[0] + s4[2]) + (s4[1] + s4[3]);
}

/* Row d (holding its exponentials) times inv, less `share` (1/counted) at the label. */
static inline void row_grad(float *d, int64_t c, int32_t y, float inv, float share)
{
    for (int64_t q = 0; q < (c + 7) / 8; q++) {
        gs_v8f x;
        row_vector(d, c, q, &x);
        x *= inv;
        store_lanes(d, c, q, &x);
    }
    d[y] -= share;
}

typedef struct {
    const float *logits;
    int64_t nrows, c, counted, n;
    const int32_t *label, *idx;
    float *dlogits; /* overwritten: every row is written once */
    int zero_gaps;  /* idx is sorted: each range zeroes the unlisted rows up to its last listed one */
    double *term;   /* (n) each listed row's loss, 0 for an unlabelled one */
} xent_job_t;

/* Listed rows [i0, i0 + nb), nb <= BLOCK: their terms in term[0, nb), their
 * gradients overwritten. */
static void xent_block(const xent_job_t *j, int64_t i0, int nb, double *term)
{
    float mx[BLOCK], sf[BLOCK] = {1, 1, 1, 1, 1, 1, 1, 1}, share = 1.0f / (float)j->counted;
    double s[BLOCK];
    for (int r = 0; r < nb; r++) {
        int64_t v = j->idx[i0 + r];
        const float *z = j->logits + v * j->c;
        float *d = j->dlogits ? j->dlogits + v * j->c : NULL;
        if (j->label[v] < 0) {
            if (d) memset(d, 0, sizeof(float) * (size_t)j->c);
            continue;
        }
        mx[r] = row_max(z, j->c);
        s[r] = row_sum(z, j->c, mx[r], d);
        sf[r] = (float)s[r];
    }
    gs_v8f lg;
    GS_LOGF_V8(lg, *(const gs_v8f *)sf);
    for (int r = 0; r < nb; r++) {
        int64_t v = j->idx[i0 + r];
        int32_t y = j->label[v];
        term[r] = y < 0 ? 0.0 : (double)lg[r] + mx[r] - j->logits[v * j->c + y];
        if (y >= 0 && j->dlogits)
            row_grad(j->dlogits + v * j->c, j->c, y, (float)(1.0 / (s[r] * (double)j->counted)), share);
    }
}

static void xent_range(void *ctx, int64_t begin, int64_t end)
{
    const xent_job_t *j = ctx;
    if (j->zero_gaps) {
        int64_t from = begin ? j->idx[begin - 1] + 1 : 0, to = end == j->n ? j->nrows : j->idx[end - 1] + 1;
        for (int64_t v = from, i = begin; v < to; v++, i++) { /* the unlisted rows [v, next listed) */
            int64_t next = i < end ? j->idx[i] : to;
            memset(j->dlogits + v * j->c, 0, sizeof(float) * (size_t)((next - v) * j->c));
            v = next;
        }
    }
    for (int64_t i = begin; i < end; i += BLOCK) xent_block(j, i, end - i < BLOCK ? (int)(end - i) : BLOCK, j->term + i);
}

static void zero_range(void *ctx, int64_t begin, int64_t end)
{
    memset((float *)ctx + begin, 0, sizeof(float) * (size_t)(end - begin));
}

static int sorted_ascending(const int32_t *idx, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (idx[i] <= idx[i - 1]) return 0;
    return 1;
}

double xent_cpu(const float *logits, int64_t nrows, int64_t c, const int32_t *label, const int32_t *idx, int64_t n,
                int64_t counted, float *dlogits)
{
    xent_job_t j = {logits, nrows, c, counted, n, label, idx, dlogits, 0, NULL};
    j.term = counted ? malloc(sizeof(double) * (size_t)(n ? n : 1)) : NULL;
    j.zero_gaps = j.term && dlogits && n > 0 && sorted_ascending(idx, n);
    if (dlogits && !j.zero_gaps) gs_parallel_for(nrows * c, 1 << 16, zero_range, dlogits);
    if (counted == 0) return 0;
    double total = 0;
    if (!j.term) { /* no memory for the terms: the blocks one after another, each block's terms summed in order */
        for (int64_t i = 0; i < n; i += BLOCK) {
            double term[BLOCK];
            int nb = n - i < BLOCK ? (int)(n - i) : BLOCK;
            xent_block(&j, i, nb, term);
            for (int r = 0; r < nb; r++)
                if (label[idx[i + r]] >= 0) total += term[r];
        }
        return total / (double)counted;
    }
    gs_parallel_for(n, 1024, xent_range, &j); /* idx lists each row once: the rows' writes are disjoint */
    for (int64_t i = 0; i < n; i++)
        if (label[idx[i]] >= 0) total += j.term[i]; /* in row order, whatever the threads */
    free(j.term);
    return total / (double)counted;
}
