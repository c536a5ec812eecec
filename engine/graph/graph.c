/* graph.c - builds CSC/CSR with self-loops and normalisation weights from
 * a dataset's pair list. O(E log d) for the per-vertex sorts, which run on
 * the thread pool (the lists are sorted one by one, so the graph is the
 * same whatever the threads). */
#include "graph.h"

#include "base/membudget.h"
#include "base/threadpool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void graph_free(graph_t *g)
{
    free(g->in_ptr), free(g->in_src), free(g->in_dst), free(g->etype);
    free(g->w_norm), free(g->w_mean);
    free(g->out_ptr), free(g->out_dst), free(g->out_eid), free(g->out_w_norm), free(g->out_w_mean);
    free(g->orig_id);
    memset(g, 0, sizeof *g);
}

typedef struct {
    int32_t src, type;
} in_edge_t;

static int cmp_in_edge(const void *a, const void *b)
{
    const in_edge_t *x = a, *y = b;
    if (x->src != y->src) return (x->src > y->src) - (x->src < y->src);
    return (x->type > y->type) - (x->type < y->type);
}

/* Vertices' in-edge lists in tmp (list v at ptr[v]..ptr[v + 1]), each
 * sorted by source and type and its duplicate sources dropped (the lowest
 * type kept) in place; kept[v] gets the length left. */
typedef struct {
    const int64_t *ptr;
    in_edge_t *tmp;
    int64_t *kept;
} sorted_lists_t;

static void sort_lists(void *ctx, int64_t begin, int64_t end)
{
    const sorted_lists_t *j = ctx;
    for (int64_t v = begin; v < end; v++) {
        in_edge_t *l = j->tmp + j->ptr[v];
        int64_t len = j->ptr[v + 1] - j->ptr[v], u = 0;
        qsort(l, (size_t)len, sizeof *l, cmp_in_edge);
        for (int64_t k = 0; k < len; k++)
            if (u == 0 || l[k].src != l[u - 1].src) l[u++] = l[k];
        j->kept[v] = u;
    }
}

/* The in-edge lists of d's pairs (both directions, a self-loop each) into
 * tmp, by destination, each sorted by source with duplicates dropped
 * (the lowest type kept); g->in_ptr and g->m follow. cnt: (n + 1) zeroed. */
static void in_lists(graph_t *g, const dataset_t *d, int32_t t_base, int64_t *cnt, in_edge_t *tmp)
{
    int64_t n = d->n;
    for (int64_t i = 0; i < d->npairs; i++) {
        if (d->pair_src[i] == d->pair_dst[i]) continue; /* the self-loop is added below */
        cnt[d->pair_dst[i]]++;
        cnt[d->pair_src[i]]++;
    }
    for (int64_t v = 0; v < n; v++) g->in_ptr[v + 1] = g->in_ptr[v] + cnt[v] + 1;
    for (int64_t v = 0; v < n; v++) cnt[v] = g->in_ptr[v];
    for (int64_t i = 0; i < d->npairs; i++) {
        int32_t u = d->pair_src[i], v = d->pair_dst[i], t = d->pair_type ? d->pair_type[i] : 0;
        if (u == v) continue;
        tmp[cnt[v]++] = (in_edge_t){u, 2 * t};
        tmp[cnt[u]++] = (in_edge_t){v, 2 * t + 1};
    }
    for (int64_t v = 0; v < n; v++) tmp[cnt[v]++] = (in_edge_t){(int32_t)v, 2 * t_base};
    sorted_lists_t job = {g->in_ptr, tmp, cnt};
    gs_parallel_for(n, 256, sort_lists, &job); /* each list on its own: the same result on any number of threads */
    int64_t m = 0;
    for (int64_t v = 0; v < n; v++) { /* the lists packed, in order */
        int64_t b = g->in_ptr[v];
        memmove(tmp + m, tmp + b, sizeof *tmp * (size_t)cnt[v]);
        g->in_ptr[v] = m;
        m += cnt[v];
    }
    g->in_ptr[n] = m;
    g->m = m;
}

/* The CSC arrays from the sorted lists (tmp can go after this); the
 * out-degrees counted in cnt. */
static void fill_csc(graph_t *g, const in_edge_t *tmp, int64_t *cnt)
{
    memset(cnt, 0, sizeof *cnt * ((size_t)g->n + 1));
    for (int64_t v = 0; v < g->n; v++) {
        g->orig_id[v] = (int32_t)v;
        for (int64_t e = g->in_ptr[v]; e < g->in_ptr[v + 1]; e++) {
            g->in_src[e] = tmp[e].src;
            g->in_dst[e] = (int32_t)v;
            g->etype[e] = tmp[e].type;
            cnt[tmp[e].src]++;
        }
    }
}

/* The weights (out-degrees in cnt) and the CSR in destination order within each source. */
static void fill_weights_csr(graph_t *g, int64_t *cnt)
{
    int64_t n = g->n, m = g->m;
    for (int64_t u = 0; u < n; u++) g->out_ptr[u + 1] = g->out_ptr[u] + cnt[u];
    for (int64_t v = 0; v < n; v++) {
        int64_t indeg = g->in_ptr[v + 1] - g->in_ptr[v];
        for (int64_t e = g->in_ptr[v]; e < g->in_ptr[v + 1]; e++) {
            int64_t outdeg = cnt[g->in_src[e]];
            g->w_norm[e] = (float)(1.0 / sqrt((double)outdeg * (double)indeg));
            g->w_mean[e] = (float)(1.0 / (double)indeg);
        }
    }
    for (int64_t u = 0; u < n; u++) cnt[u] = g->out_ptr[u];
    for (int64_t e = 0; e < m; e++) { /* e runs in dst order, so CSR rows come out sorted by dst */
        int64_t k = cnt[g->in_src[e]]++;
        g->out_dst[k] = g->in_dst[e];
        g->out_eid[k] = e;
        if (g->out_w_norm) g->out_w_norm[k] = g->w_norm[e], g->out_w_mean[k] = g->w_mean[e];
    }
}

double graph_bytes(int64_t n, int64_t edges, int csr_weights)
{
    /* an edge: in_src, in_dst, etype, w_norm, w_mean, out_dst (4 bytes each), out_eid (8), the CSR weights (4 + 4);
     * a vertex: in_ptr, out_ptr (8 each), orig_id (4) */
    return (double)edges * (32.0 + (csr_weights ? 8.0 : 0.0)) + (double)n * 20.0;
}

/* graph_build, with the CSR-order weights or without them. */
static int build(graph_t *g, const dataset_t *d, int csr_weights, gs_err_t *err)
{
    memset(g, 0, sizeof *g);
    int64_t n = d->n, cap = d->npairs * 2 + n;
    char what[192];
    snprintf(what, sizeof what, "the graph of %s (%lld vertices, up to %lld edges)", d->name, (long long)n, (long long)cap);
    int rc = gs_mem_check(graph_bytes(n, cap, csr_weights), what, err);
    if (rc) return rc;
    int32_t t_base = d->pair_type ? d->ntypes : 1;
    g->n = g->nsrc = g->nbase = n;
    g->ntypes = 2 * t_base + 1;
    int64_t *cnt = calloc((size_t)n + 1, sizeof *cnt);
    in_edge_t *tmp = malloc(sizeof *tmp * (size_t)cap);
    g->in_ptr = calloc((size_t)n + 1, sizeof *g->in_ptr);
    if (!cnt || !tmp || !g->in_ptr) goto oom;
    in_lists(g, d, t_base, cnt, tmp);
    /* the CSC first and the sorted lists freed before the rest: at a
     * paper's size the lists (8 bytes an edge) never meet the whole graph */
    size_t m = (size_t)g->m;
    g->in_src = malloc(sizeof(int32_t) * m), g->in_dst = malloc(sizeof(int32_t) * m), g->etype = malloc(sizeof(int32_t) * m);
    g->orig_id = malloc(sizeof(int32_t) * (size_t)n);
    if (!g->in_src || !g->in_dst || !g->etype || !g->orig_id) goto oom;
    fill_csc(g, tmp, cnt);
    free(tmp);
    tmp = NULL;
    g->w_norm = malloc(sizeof(float) * m), g->w_mean = malloc(sizeof(float) * m);
    g->out_ptr = calloc((size_t)n + 1, sizeof *g->out_ptr);
    g->out_dst = malloc(sizeof(int32_t) * m), g->out_eid = malloc(sizeof(int64_t) * m);
    if (csr_weights) g->out_w_norm = malloc(sizeof(float) * m), g->out_w_mean = malloc(sizeof(float) * m);
    if (!g->w_norm || !g->w_mean || !g->out_ptr || !g->out_dst || !g->out_eid ||
        (csr_weights && (!g->out_w_norm || !g->out_w_mean)))
        goto oom;
    fill_weights_csr(g, cnt);
    free(cnt);
    return GS_OK;
oom:
    free(cnt);
    free(tmp);
    graph_free(g);
    return gs_fail(err, GS_EFAIL, "out of memory building the graph (%lld vertices, %lld edges)", (long long)n,
                   (long long)cap);
}

int graph_build(graph_t *g, const dataset_t *d, gs_err_t *err) { return build(g, d, 1, err); }

int graph_build_structure(graph_t *g, const dataset_t *d, gs_err_t *err) { return build(g, d, 0, err); }
