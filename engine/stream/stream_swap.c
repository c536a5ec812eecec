/* stream_swap.c - see stream_swap.h. */
#include "stream_swap.h"

#include <math.h>
#include <string.h>

double stream_simulate_from(const pipe_state_t *from, const int *order, int n, const double *tc, const double *tk, int slots,
                            pipe_state_t *to)
{
    pipe_state_t p = from ? *from : (pipe_state_t){0};
    for (int t = 0; t < n; t++) {
        int s = t % slots;
        double start = fmax(p.copy_end, p.slot_free[s]);
        p.copy_end = start + tc[order[t]];
        p.comp_end = fmax(p.copy_end, p.comp_end) + tk[order[t]];
        p.slot_free[s] = p.comp_end;
    }
    if (to) *to = p;
    return p.comp_end;
}

double stream_simulate(const int *order, int n, const double *tc, const double *tk, int slots)
{
    return stream_simulate_from(NULL, order, n, tc, tk, slots, NULL);
}

int stream_natural_order(const sub_t *col, int nb, int *order)
{
    int n = 0;
    for (int b = 0; b < nb; b++)
        if (col[b].nnz) order[n++] = b;
    for (int b = 0, w = n; b < nb; b++)
        if (!col[b].nnz) order[w++] = b;
    return n;
}

/* When the schedule ctx judges by ends: this column's order[0..n), then the next column's. */
static double judged(const swap_ctx_t *ctx, const int *order, int n, const double *tc, const double *tk, int slots)
{
    pipe_state_t mid;
    double end = stream_simulate_from(ctx ? &ctx->start : NULL, order, n, tc, tk, slots, &mid);
    if (!ctx || !ctx->next || ctx->next_n == 0) return end;
    return stream_simulate_from(&mid, ctx->next, ctx->next_n, ctx->next_tc, ctx->next_tk, slots, NULL);
}

/* At most this many schedules simulated per column (a column of P * k
 * blocks costs O(P k) to simulate). */
#define SWAP_MAX_TRIALS 4096

/* The column's copy time over its compute time: a sub-chunk whose own
 * ratio is above it is copy-heavy for this column's pipeline, below it
 * compute-heavy (at 1:1 a transfer-bound column would have no
 * compute-heavy sub-chunk, though its hubs' sub-chunks still hide its
 * copies best early and its lightest gather ends it best). */
static double column_balance(const int *order, int n, const double *tc, const double *tk)
{
    double copy = 0, comp = 0;
    for (int t = 0; t < n; t++) copy += tc[order[t]], comp += tk[order[t]];
    return comp > 0 ? copy / comp : 1;
}

static void swap_at(int *order, int i, int j)
{
    int x = order[i];
    order[i] = order[j], order[j] = x;
}

double stream_swap_order(const sub_t *col, int nb, int k, const double *tc, const double *tk, int slots, const swap_ctx_t *ctx,
                         int *order)
{
    int n = stream_natural_order(col, nb, order);
    double balance = column_balance(order, n, tc, tk);
    double start = judged(ctx, order, n, tc, tk, slots), best = start;
    for (int trials = 0; trials < SWAP_MAX_TRIALS;) { /* the best swap of each sweep, until none helps */
        int bi = -1, bj = -1;
        double sweep_best = best;
        for (int i = 0; i < n && trials < SWAP_MAX_TRIALS; i++)
            for (int j = i + 1; j < n && trials < SWAP_MAX_TRIALS; j++) {
                int a = order[i], b = order[j];
                int heterogeneous = (tc[a] > balance * tk[a]) != (tc[b] > balance * tk[b]); /* one copy-heavy, one compute-heavy */
                if (a / k != b / k || !heterogeneous) continue;       /* sub-chunks of one chunk only */
                swap_at(order, i, j);
                double t = judged(ctx, order, n, tc, tk, slots);
                swap_at(order, i, j);
                trials++;
                if (t < sweep_best * (1 - 1e-12)) sweep_best = t, bi = i, bj = j;
            }
        if (bi < 0) break;
        swap_at(order, bi, bj);
        best = sweep_best;
    }
    return start - best;
}

/* The best of every order of order[lo, hi) (Heap's algorithm), the rest of
 * the column as it is: left in order, and its simulated end returned. */
static double best_of_chunk(int *order, int lo, int hi, int n, const double *tc, const double *tk, int slots,
                            const swap_ctx_t *ctx)
{
    int m = hi - lo, c[SWAP_BOUND_MAX_K] = {0}, best[SWAP_BOUND_MAX_K];
    double t_best = judged(ctx, order, n, tc, tk, slots);
    for (int i = 0; i < m; i++) best[i] = order[lo + i];
    for (int i = 1; i < m;) {
        if (c[i] < i) {
            swap_at(order, lo + (i % 2 ? c[i] : 0), lo + i);
            double t = judged(ctx, order, n, tc, tk, slots);
            if (t < t_best * (1 - 1e-12)) {
                t_best = t;
                for (int q = 0; q < m; q++) best[q] = order[lo + q];
            }
            c[i]++, i = 1;
        } else
            c[i++] = 0;
    }
    for (int i = 0; i < m; i++) order[lo + i] = best[i];
    return t_best;
}

double stream_swap_bound(const sub_t *col, int nb, int k, const double *tc, const double *tk, int slots, const swap_ctx_t *ctx,
                         const int *from)
{
    if (k > SWAP_BOUND_MAX_K || nb > SWAP_BOUND_MAX_BLOCKS) return -1;
    int order[SWAP_BOUND_MAX_BLOCKS], n = 0;
    for (int b = 0; b < nb; b++) n += col[b].nnz > 0;
    memcpy(order, from, sizeof(int) * (size_t)nb);
    double start = judged(ctx, order, n, tc, tk, slots), best = start, before;
    int sweeps = 0;
    do { /* sweeps of every chunk's every order, from the heuristic's, until a sweep gains nothing */
        before = best;
        for (int lo = 0; lo < n;) { /* a chunk's non-empty blocks stay adjacent: swaps keep them in place */
            int hi = lo + 1;
            while (hi < n && order[hi] / k == order[lo] / k) hi++;
            best = best_of_chunk(order, lo, hi, n, tc, tk, slots, ctx);
            lo = hi;
        }
    } while (best < before * (1 - 1e-12) && ++sweeps < SWAP_BOUND_MAX_SWEEPS);
    return start - best;
}
