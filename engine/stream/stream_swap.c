/* stream_swap.c - see stream_swap.h. */
#include "stream_swap.h"

#include <math.h>
#include <stdlib.h>

/* Makespan of a copy-then-compute pipeline with `slots` device buffers. */
double stream_simulate(const int *order, int n, const double *tc, const double *tk, int slots)
{
    double copy_end = 0, comp_end = 0, *ce = malloc(sizeof(double) * (size_t)(n + 1));
    if (!ce) return INFINITY;
    for (int t = 0; t < n; t++) {
        double start = copy_end;
        if (t >= slots) start = fmax(start, ce[t - slots]);
        copy_end = start + tc[order[t]];
        comp_end = fmax(copy_end, comp_end) + tk[order[t]];
        ce[t] = comp_end;
    }
    free(ce);
    return comp_end;
}

/* At most this many schedules simulated per column (a column of P * k
 * blocks costs O(P k) to simulate). */
#define SWAP_MAX_TRIALS 4096

static void swap_at(int *order, int i, int j)
{
    int x = order[i];
    order[i] = order[j], order[j] = x;
}

double stream_swap_order(const sub_t *col, int nb, int k, const double *tc, const double *tk, int slots, int *order)
{
    int n = 0, w;
    for (int b = 0; b < nb; b++) /* the natural order, empty blocks after: they are skipped */
        if (col[b].nnz) order[n++] = b;
    w = n;
    for (int b = 0; b < nb; b++)
        if (!col[b].nnz) order[w++] = b;
    double start = stream_simulate(order, n, tc, tk, slots), best = start;
    for (int trials = 0; trials < SWAP_MAX_TRIALS;) { /* the best swap of each sweep, until none helps */
        int bi = -1, bj = -1;
        double sweep_best = best;
        for (int i = 0; i < n && trials < SWAP_MAX_TRIALS; i++)
            for (int j = i + 1; j < n && trials < SWAP_MAX_TRIALS; j++) {
                int a = order[i], b = order[j];
                int heterogeneous = (tc[a] > tk[a]) != (tc[b] > tk[b]); /* one copy-heavy, one compute-heavy */
                if (a / k != b / k || !heterogeneous) continue;       /* sub-chunks of one chunk only */
                swap_at(order, i, j);
                double t = stream_simulate(order, n, tc, tk, slots);
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
