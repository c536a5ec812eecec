/* order.c - see order.h. */
#include "order.h"

#include <metis.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

void order_even_bounds(int64_t n, int p, int64_t *bounds)
{
    for (int i = 0; i <= p; i++) bounds[i] = n * i / p;
}

typedef struct {
    uint64_t key;
    int32_t v;
} keyed_t;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
    return (x->v > y->v) - (x->v < y->v);
}

static int metis_parts(const graph_t *g, int p, uint64_t seed, idx_t *part, gs_err_t *err)
{
    idx_t n = (idx_t)g->n, ncon = 1, np = p, objval = 0;
    idx_t *xadj = malloc(sizeof(idx_t) * (size_t)(g->n + 1)), *adj = malloc(sizeof(idx_t) * (size_t)(g->m + 1));
    if (!xadj || !adj) {
        free(xadj), free(adj);
        return gs_fail(err, GS_EFAIL, "out of memory for METIS");
    }
    int64_t k = 0;
    xadj[0] = 0;
    for (int64_t v = 0; v < g->n; v++) { /* METIS wants no self-loops */
        for (int64_t e = g->in_ptr[v]; e < g->in_ptr[v + 1]; e++)
            if (g->in_src[e] != v) adj[k++] = g->in_src[e];
        xadj[v + 1] = (idx_t)k;
    }
    idx_t opt[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opt);
    opt[METIS_OPTION_SEED] = (idx_t)(seed & 0x7fffffff);
    int rc = METIS_PartGraphKway(&n, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL, opt, &objval, part);
    free(xadj), free(adj);
    if (rc != METIS_OK) return gs_fail(err, GS_EFAIL, "METIS_PartGraphKway failed (code %d)", rc);
    return GS_OK;
}

int order_vertices(const graph_t *g, order_kind_t kind, int p, uint64_t seed, int32_t *perm, int64_t *bounds,
                    gs_err_t *err)
{
    int64_t n = g->n;
    if (p < 1 || p > n) return gs_fail(err, GS_EINPUT, "--chunks %d must be in [1, %lld]", p, (long long)n);
    order_even_bounds(n, p, bounds);
    if (kind == ORDER_NONE || (kind == ORDER_METIS && p == 1)) {
        for (int64_t v = 0; v < n; v++) perm[v] = (int32_t)v;
        return GS_OK;
    }
    keyed_t *k = malloc(sizeof *k * (size_t)n);
    if (!k) return gs_fail(err, GS_EFAIL, "out of memory");
    if (kind == ORDER_RANDOM) {
        for (int64_t v = 0; v < n; v++) k[v] = (keyed_t){gs_hash2(seed, (uint64_t)g->orig_id[v]), (int32_t)v};
    } else {
        idx_t *part = malloc(sizeof(idx_t) * (size_t)n);
        int rc = part ? metis_parts(g, p, seed, part, err) : gs_fail(err, GS_EFAIL, "out of memory");
        if (rc) {
            free(part), free(k);
            return rc;
        }
        int64_t *count = calloc((size_t)p + 1, sizeof *count);
        for (int64_t v = 0; v < n; v++) k[v] = (keyed_t){(uint64_t)part[v], (int32_t)v}, count[part[v]]++;
        bounds[0] = 0;
        for (int i = 0; i < p; i++) bounds[i + 1] = bounds[i] + count[i];
        free(count), free(part);
    }
    qsort(k, (size_t)n, sizeof *k, cmp_keyed); /* stable within a part: by original id */
    for (int64_t v = 0; v < n; v++) perm[v] = k[v].v;
    free(k);
    return GS_OK;
}
