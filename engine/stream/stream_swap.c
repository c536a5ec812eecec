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

typedef struct {
    double key;
    int b;
} keyed_block_t;

static int cmp_kb(const void *a, const void *b)
{
    const keyed_block_t *x = a, *y = b;
    if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
    return x->b - y->b;
}

/* Johnson's rule for the two-stage flow shop (copy, compute), kept only
 * when the simulated schedule beats the natural order. Returns the
 * simulated seconds it saves (0: natural order kept). */
double stream_swap_order(const sub_t *col, int nb, const double *tc, const double *tk, int slots, int *order)
{
    double saved = 0;
    int n = 0;
    keyed_block_t *first = malloc(sizeof *first * (size_t)nb), *second = malloc(sizeof *second * (size_t)nb);
    int *natural = calloc((size_t)nb + 1, sizeof(int)), *cand = calloc((size_t)nb + 1, sizeof(int));
    for (int b = 0; b < nb; b++) order[b] = b;
    if (!first || !second || !natural || !cand) goto done;
    int n1 = 0, n2 = 0;
    for (int b = 0; b < nb; b++) {
        if (col[b].nnz == 0) continue;
        natural[n++] = b;
        if (tc[b] < tk[b]) first[n1++] = (keyed_block_t){tc[b], b};
        else second[n2++] = (keyed_block_t){-tk[b], b};
    }
    qsort(first, (size_t)n1, sizeof *first, cmp_kb);
    qsort(second, (size_t)n2, sizeof *second, cmp_kb);
    for (int i = 0; i < n1; i++) cand[i] = first[i].b;
    for (int i = 0; i < n2; i++) cand[n1 + i] = second[i].b;
    double t_cand = stream_simulate(cand, n, tc, tk, slots), t_natural = stream_simulate(natural, n, tc, tk, slots);
    if (t_cand < t_natural) {
        saved = t_natural - t_cand;
        int w = 0;
        for (int i = 0; i < n; i++) order[w++] = cand[i];
        for (int b = 0; b < nb; b++) /* empty blocks after, they are skipped */
            if (col[b].nnz == 0) order[w++] = b;
    }
done:
    free(first), free(second), free(natural), free(cand);
    return saved;
}
