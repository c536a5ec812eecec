/* xent_cpu.c - see xent_cpu.h. LANES listed rows make a block (a
 * register's lanes: sixteen with AVX-512, eight otherwise), one row a
 * vector lane: their logits are transposed LANES columns at a time into a
 * tile of column vectors, so the max, the label's logit, the
 * exponentials, their sums, the logarithms, the gradient's scaling
 * and the label's share are vertical operations with no dependence
 * between rows (a row at a time, each row's chain took ~47 ns at 16
 * classes on a Zen 4 core; in blocks, ~25 ns). BLOCKS blocks go in step
 * (two chains in flight: 35.9 -> 33.0 ns a row on a Zen 3 core, in
 * cache). The arithmetic keeps train_math.h's order: the running max
 * from z[0] (exact in any order), element j's exponential summed into
 * lane j % 8 from 0, the eight lanes folded 4, 2, 1, the share subtracted
 * from the label's scaled exponential (x - 0 is x elsewhere), the term
 * (double)log(s) + mx - z[y] left to right; so every row's term and
 * gradient have gs_xent_row's bits. Every vector, the doubles' included,
 * is one register of the build (GCC 12 put a 64-byte vector of doubles
 * through the stack at every add on AVX2: a third of the time). Lanes
 * past the block's rows repeat its first row and are never stored. The
 * gradient's rows are zeroed by the range whose listed rows end at or
 * after them, in one memset (idx sorted ascending; otherwise every row
 * first; zeroing the unlisted rows gap by gap took 0.5 ms of a 2.9 ms loss
 * over 120K x 16), then the listed rows overwritten by their blocks; when
 * the caller knows the unlisted rows hold zero, only the listed rows are
 * written. */
#include "xent_cpu.h"

#include <stdlib.h>
#include <string.h>

#include "fast_math_v8.h"
#include "train_math.h"
#include "base/threadpool.h"

#define LANES GS_VN /* rows taken together, and the columns a transpose moves */
#define HALF (LANES / 2) /* the rows whose doubles fill one register */
#ifndef BLOCKS
#define BLOCKS 2 /* blocks of LANES rows taken in step */
#endif
#define SUM_ROWS XENT_SUM_ROWS

typedef gs_vnf vf; /* fast_math_v8.h's native width */
typedef gs_vni vi;
typedef double vd __attribute__((vector_size(8 * HALF), aligned(8))); /* a register of doubles */
typedef float vhf __attribute__((vector_size(4 * HALF), aligned(4)));  /* half a register of floats */

/* Vectors go by pointer: a function taking or returning one by value would
 * change the ABI where the build lacks its width (hence macros below). */

/* Swaps the off-diagonal s x s blocks of each 2s x 2s block of the LANES x
 * LANES matrix m (rows m[i]); s = LANES / 2, ..., 2, 1 in turn transposes
 * it. The shuffles' lane lists by width: */
#define SWAP_BLOCKS(m, s, LO, HI)                                                                                      \
    for (int i_ = 0; i_ < LANES; i_++)                                                                                 \
        if (!(i_ & (s))) {                                                                                             \
            vf a_ = (m)[i_], b_ = (m)[i_ + (s)];                                                                       \
            (m)[i_] = __builtin_shufflevector(a_, b_, LO);                                                             \
            (m)[i_ + (s)] = __builtin_shufflevector(a_, b_, HI);                                                       \
        }
#if LANES == 16
#define HALF_OF(v, h) ((h) ? __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15) : __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7))
#define JOIN_HALVES(a, b) __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define S8_LO 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define S8_HI 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
#define S4_LO 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27
#define S4_HI 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31
#define S2_LO 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29
#define S2_HI 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31
#define S1_LO 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30
#define S1_HI 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31
#else
#define HALF_OF(v, h) ((h) ? __builtin_shufflevector(v, v, 4, 5, 6, 7) : __builtin_shufflevector(v, v, 0, 1, 2, 3))
#define JOIN_HALVES(a, b) __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7)
#define S4_LO 0, 1, 2, 3, 8, 9, 10, 11
#define S4_HI 4, 5, 6, 7, 12, 13, 14, 15
#define S2_LO 0, 1, 8, 9, 4, 5, 12, 13
#define S2_HI 2, 3, 10, 11, 6, 7, 14, 15
#define S1_LO 0, 8, 2, 10, 4, 12, 6, 14
#define S1_HI 1, 9, 3, 11, 5, 13, 7, 15
#endif

static inline void transpose(vf *m)
{
#if LANES == 16
    SWAP_BLOCKS(m, 8, S8_LO, S8_HI)
#endif
    SWAP_BLOCKS(m, 4, S4_LO, S4_HI)
    SWAP_BLOCKS(m, 2, S2_LO, S2_HI)
    SWAP_BLOCKS(m, 1, S1_LO, S1_HI)
}

typedef struct {
    const float *logits;
    int64_t nrows, c, counted, n;
    float share;    /* 1 / counted, each labelled row's label share, as gs_xent_row takes it */
    vd counted_lanes; /* counted in every lane of a register of doubles */
    const int32_t *label, *idx;
    float *dlogits; /* overwritten: zeroed, then each listed row written by its block */
    int zero_gaps;  /* idx is sorted: each range zeroes the rows after the range before's up to its last listed one */
    int unlisted_zero; /* the rows outside idx hold zero already: only the listed rows are written */
    double *block_sum; /* (n / SUM_ROWS rounded up) each block's labelled rows' terms summed in row order */
} xent_job_t;

/* tile[j] lane r = z[row[r]][j] for j < c. */
static void load_tile(const xent_job_t *j, const int64_t *row, vf *tile)
{
    for (int64_t g = 0; g < j->c; g += LANES) {
        int64_t w = j->c - g < LANES ? j->c - g : LANES;
        vf m[LANES];
        if (w == LANES) {
#pragma GCC unroll 16
            for (int r = 0; r < LANES; r++) m[r] = *(const vf *)(j->logits + row[r] * j->c + g); /* r constant: a register each */
        } else
            for (int r = 0; r < LANES; r++) {
                const float *z = j->logits + row[r] * j->c + g;
                if (row[r] * j->c + g + LANES <= j->nrows * j->c)
                    m[r] = *(const vf *)z; /* lanes past w (the next row's) are never stored */
                else {
                    m[r] = (vf){0};
                    for (int64_t k = 0; k < w; k++) m[r][k] = z[k];
                }
            }
        transpose(m);
        if (w == LANES) {
#pragma GCC unroll 16
            for (int k = 0; k < LANES; k++) tile[g + k] = m[k]; /* a loop to w became a call to memcpy */
        } else
            for (int64_t k = 0; k < w; k++) tile[g + k] = m[k];
    }
}

/* The first w <= LANES lanes of *m stored at d, in pieces of fixed size (a
 * loop of w becomes a rep movs, whose start costs more than the row). */
static inline void store_lanes(float *d, const vf *m, int64_t w)
{
    const float *f = (const float *)m;
    int64_t at = 0;
    for (int64_t piece = LANES; piece >= 1; piece /= 2)
        if (w & piece) {
            memcpy(d + at, f + at, sizeof(float) * (size_t)piece);
            at += piece;
        }
}

/* Row r's gradient, for j < c: tile[j] lane r (the exponentials) times
 * inv lane r, less the share 1 / counted at the row's label y lane r, as
 * gs_xent_row takes it (x - 0 is x); zero where y < 0. Rows past nb are
 * not stored. */
static void store_gradient(const xent_job_t *j, const int64_t *row, int nb, const vf *tile, const vf *inv, const vi *y)
{
    vi share = (vi)((vf){} + j->share), labelled = *y >= 0;
    for (int64_t g = 0; g < j->c; g += LANES) {
        int64_t w = j->c - g < LANES ? j->c - g : LANES;
        vf m[LANES];
        for (int k = 0; k < LANES; k++)
            m[k] = k < w ? (vf)((vi)(tile[g + k] * *inv - (vf)(share & (*y == (int32_t)(g + k)))) & labelled) : (vf){0};
        transpose(m);
#pragma GCC unroll 16
        for (int r = 0; r < LANES; r++) /* r constant once unrolled: m[r] stays a register (a loop to nb kept m */
            if (r < nb) {               /* on the stack and copied each row in halves: 10% of the loss) */
                float *d = j->dlogits + row[r] * j->c + g;
                if (w == LANES) *(vf *)d = m[r];
                else store_lanes(d, &m[r], w);
            }
    }
}

/* gs_expf's upper clamp min(88.3, x) for x = z - max(z): never above 0
 * (a NaN passes either way), so it is x and the exponential skips it. */
#define BELOW_CAP(VI, cap, x) (x)

/* Each block's tile (c vectors at tile + b c) of exponentials less each
 * lane's max mx[b], in place, and their sums in gs_xent_row's order in
 * sum[b]; zy[b] lane r is the logit at the lane's label y[b] (0 where
 * none). The blocks go in step, so the core has their chains of max,
 * exponential and sum in flight together. */
static void exp_and_sum(vf *tile, int64_t c, const vi *y, vf *mx, vf *zy, vf *sum)
{
    vf m[BLOCKS], at[BLOCKS];
    for (int b = 0; b < BLOCKS; b++) m[b] = tile[b * c], at[b] = (vf){0};
    for (int64_t k = 0; k < c; k++)
        for (int b = 0; b < BLOCKS; b++) {
            vf t = tile[b * c + k];
            m[b] = GS_VN_MAX(vi, t, m[b]);
            at[b] = GS_VEC_SELECT(vi, y[b] == (int32_t)k, t, at[b]);
        }
    for (int64_t k = 0; k < c; k++) /* the exponentials alone: the sums' registers would crowd them */
        for (int b = 0; b < BLOCKS; b++) GS_EXPF_CLAMPED(tile[b * c + k], tile[b * c + k] - m[b], vf, vi, GS_VN_MAX, BELOW_CAP);
    for (int b = 0; b < BLOCKS; b++) {
        mx[b] = m[b], zy[b] = at[b];
        vf part[8] = {{0}};
        for (int64_t k0 = 0; k0 < c; k0 += 8)
            for (int l = 0; l < 8 && k0 + l < c; l++) part[l] += tile[b * c + k0 + l]; /* l constant once unrolled */
        sum[b] = ((part[0] + part[4]) + (part[2] + part[6])) + ((part[1] + part[5]) + (part[3] + part[7]));
    }
}

/* Block b's gradients (if any) and terms, its nb rows row[0, nb) with
 * labels *y, from the sums s of its exponentials (in tile). */
static void finish_block(const xent_job_t *j, const int64_t *row, int nb, const vf *tile, const vi *y, const vf *s,
                         const vf *mx, const vf *zy, double *term)
{
    vf lg;
    GS_LOGF_VEC(lg, *s, vf, vi);
    if (j->dlogits) {
        /* inv = (float)(1.0 / ((double)s * counted)), as the reference */
        vhf inv0 = __builtin_convertvector(1.0 / (__builtin_convertvector(HALF_OF(*s, 0), vd) * j->counted_lanes), vhf),
            inv1 = __builtin_convertvector(1.0 / (__builtin_convertvector(HALF_OF(*s, 1), vd) * j->counted_lanes), vhf);
        vf inv = JOIN_HALVES(inv0, inv1);
        store_gradient(j, row, nb, tile, &inv, y);
    }
    double t[LANES]; /* (double)log(s) + mx - z[y], left to right as the reference */
    for (int h = 0; h < 2; h++) {
        vd part = (__builtin_convertvector(HALF_OF(lg, h), vd) + __builtin_convertvector(HALF_OF(*mx, h), vd)) -
                  __builtin_convertvector(HALF_OF(*zy, h), vd);
        memcpy(t + h * HALF, &part, sizeof part);
    }
    for (int r = 0; r < nb; r++) term[r] = (*y)[r] < 0 ? 0.0 : t[r];
}

/* Listed rows [i0, i0 + nb), nb <= BLOCKS x LANES, with BLOCKS x c x LANES
 * floats of tile: their terms in term[0, nb), their gradients overwritten.
 * Lanes past nb repeat the first row and are never stored. */
static void xent_blocks(const xent_job_t *j, int64_t i0, int nb, vf *tile, double *term)
{
    int64_t row[BLOCKS * LANES];
    vi y[BLOCKS];
    for (int r = 0; r < BLOCKS * LANES; r++) {
        row[r] = j->idx[i0 + (r < nb ? r : 0)];
        y[r / LANES][r % LANES] = j->label[row[r]];
    }
    /* the logits of the blocks two steps on (one thread, 120K x 16: 1.81 -> 1.66 ms) */
    for (int64_t i = i0 + 2 * BLOCKS * LANES; i < i0 + 3 * BLOCKS * LANES && i < j->n; i++)
        __builtin_prefetch(j->logits + j->idx[i] * j->c, 0, 3);
    for (int b = 0; b < BLOCKS; b++) load_tile(j, row + b * LANES, tile + b * j->c);
    vf mx[BLOCKS], zy[BLOCKS], sum[BLOCKS];
    exp_and_sum(tile, j->c, y, mx, zy, sum);
    for (int b = 0; b < BLOCKS && b * LANES < nb; b++) {
        int in = nb - b * LANES < LANES ? nb - b * LANES : LANES;
        finish_block(j, row + b * LANES, in, tile + b * j->c, &y[b], &sum[b], &mx[b], &zy[b], term + b * LANES);
    }
}

/* Rows idx[begin, end) one at a time by the reference (the same bits): the
 * way without memory for a tile. */
static void xent_rows_reference(const xent_job_t *j, int64_t begin, int64_t end, double *term)
{
    for (int64_t i = begin; i < end; i++) {
        int64_t v = j->idx[i];
        float *d = j->dlogits ? j->dlogits + v * j->c : NULL;
        if (d) memset(d, 0, sizeof(float) * (size_t)j->c);
        term[i - begin] = j->label[v] < 0 ? 0.0 : gs_xent_row(j->logits + v * j->c, j->c, j->label[v], j->counted, d);
    }
}

/* Listed rows [begin, end) (at most SUM_ROWS), their gradients written:
 * their terms summed in row order from 0. By blocks of rows with a tile
 * (BLOCKS x c vectors), or by the reference without. An unlabelled row's
 * term is +0, and x + +0 is x for every x but -0, which a sum begun at
 * +0 never is: the labelled rows' sum, without reading the labels again. */
static double sum_terms(const xent_job_t *j, int64_t begin, int64_t end, vf *tile)
{
    double sum = 0;
    for (int64_t i = begin; i < end; i += BLOCKS * LANES) {
        int nb = end - i < BLOCKS * LANES ? (int)(end - i) : BLOCKS * LANES;
        double term[BLOCKS * LANES];
        if (tile) xent_blocks(j, i, nb, tile, term);
        else xent_rows_reference(j, i, i + nb, term);
        for (int r = 0; r < nb; r++) sum += term[r];
    }
    return sum;
}

#define STACK_COLS 128 /* tiles this wide live on the stack (8 KB a block with AVX2) */

/* The pool's ranges are whole blocks of SUM_ROWS listed rows (its grain),
 * or all of them in one call: begin is a multiple of SUM_ROWS. */
static void xent_range(void *ctx, int64_t begin, int64_t end)
{
    const xent_job_t *j = ctx;
    if (j->zero_gaps) { /* rows from the one after the range before's last to this range's last, listed ones included */
        int64_t from = begin ? j->idx[begin - 1] + 1 : 0, to = end == j->n ? j->nrows : j->idx[end - 1] + 1;
        memset(j->dlogits + from * j->c, 0, sizeof(float) * (size_t)((to - from) * j->c));
    }
    vf stack[BLOCKS * STACK_COLS] __attribute__((aligned(64)));
    vf *tile = j->c <= STACK_COLS ? stack : malloc(sizeof(vf) * (size_t)(BLOCKS * j->c)); /* none: the reference */
    for (int64_t i = begin; i < end; i += SUM_ROWS)
        j->block_sum[i / SUM_ROWS] = sum_terms(j, i, end - i < SUM_ROWS ? end : i + SUM_ROWS, tile);
    if (tile != stack) free(tile);
}

static void zero_range(void *ctx, int64_t begin, int64_t end)
{
    memset((float *)ctx + begin, 0, sizeof(float) * (size_t)(end - begin));
}

/* Whether idx ascends strictly: whole pieces compared without a branch,
 * so the compiler vectorises them (a branch a pair took 0.04 ms of the
 * loss over 72K listed rows). */
static int sorted_ascending(const int32_t *idx, int64_t n)
{
    for (int64_t at = 1; at < n; at += 4096) {
        int64_t end = n - at < 4096 ? n : at + 4096;
        int ascending = 1;
        for (int64_t i = at; i < end; i++) ascending &= idx[i] > idx[i - 1];
        if (!ascending) return 0;
    }
    return 1;
}

double xent_cpu(const float *logits, int64_t nrows, int64_t c, const int32_t *label, const int32_t *idx, int64_t n,
                int64_t counted, float *dlogits, int unlisted_zero)
{
    /* with nothing counted no listed row is written: every row is zeroed */
    xent_job_t j = {logits, nrows, c, counted, n, counted ? 1.0f / (float)counted : 0.0f, {0}, label, idx, dlogits, 0,
                    unlisted_zero && counted > 0, NULL};
    j.counted_lanes += (double)counted;
    int64_t blocks = (n + SUM_ROWS - 1) / SUM_ROWS;
    j.block_sum = counted ? malloc(sizeof(double) * (size_t)(blocks ? blocks : 1)) : NULL;
    j.zero_gaps = j.block_sum && dlogits && n > 0 && !j.unlisted_zero && sorted_ascending(idx, n);
    if (dlogits && !j.zero_gaps && !j.unlisted_zero) gs_parallel_for(nrows * c, 1 << 16, zero_range, dlogits);
    if (counted == 0) return 0;
    double total = 0;
    if (!j.block_sum) { /* no memory for the blocks' sums: the blocks one after another, by the reference */
        for (int64_t i = 0; i < n; i += SUM_ROWS) total += sum_terms(&j, i, n - i < SUM_ROWS ? n : i + SUM_ROWS, NULL);
        return total / (double)counted;
    }
    gs_parallel_for(n, SUM_ROWS, xent_range, &j); /* idx lists each row once: the rows' writes are disjoint */
    for (int64_t b = 0; b < blocks; b++) total += j.block_sum[b]; /* in block order, whatever the threads */
    free(j.block_sum);
    return total / (double)counted;
}
