/* snap_loader.c - see snap_loader.h for the format and the generated
 * feature/label rule. Memory: BYTES_PER_EDGE while loading, checked
 * against the memory rule (base/membudget.h) before the arrays grow. */
#include "snap_loader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/membudget.h"
#include "base/rng.h"
#include "csv_reader.h"

#define SNAP_FEATS 8
/* While loading: the raw src, dst and type (3 x 8), the sorted ids (2 x 8), the pairs (3 x 4). */
#define BYTES_PER_EDGE 52.0

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t find_id(const int64_t *ids, int64_t n, int64_t key)
{
    int64_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        int64_t mid = (lo + hi) / 2;
        if (ids[mid] < key) lo = mid + 1;
        else if (ids[mid] > key) hi = mid - 1;
        else return mid;
    }
    return -1;
}

typedef struct {
    int64_t *src, *dst, *type;
    int64_t n, cap;
    int ncols;
} raw_edges_t;

static int read_raw(csv_reader_t *r, raw_edges_t *e, gs_err_t *err)
{
    char *line;
    int rc;
    for (;;) {
        int got = csv_next_line(r, &line, err);
        if (got < 0) return err->code;
        if (got == 0) break;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '%' || *p == '\0') continue;
        int nf = csv_count_fields(p, CSV_SEP_SPACE);
        if (e->ncols == 0) {
            if (nf != 2 && nf != 3)
                return csv_error(r, err, "expected 2 columns (src dst) or 3 (src dst type), found %d", nf);
            e->ncols = nf;
        } else if (nf != e->ncols) {
            return csv_error(r, err, "expected %d columns like the first edge, found %d", e->ncols, nf);
        }
        if (e->n == e->cap) {
            e->cap = e->cap ? e->cap * 2 : 4096;
            gs_err_t why; /* the loader's peak: the raw edges, their ids sorted, the pairs */
            if (gs_mem_check((double)e->cap * BYTES_PER_EDGE, "the edges read so far", &why)) return csv_error(r, err, "%s", why.msg);
            int64_t *a = realloc(e->src, sizeof(int64_t) * (size_t)e->cap);
            if (a) e->src = a;
            int64_t *b = realloc(e->dst, sizeof(int64_t) * (size_t)e->cap);
            if (b) e->dst = b;
            int64_t *c = realloc(e->type, sizeof(int64_t) * (size_t)e->cap);
            if (c) e->type = c;
            if (!a || !b || !c) return gs_fail(err, GS_EFAIL, "out of memory reading %s", csv_path(r));
        }
        int64_t u, v, t = 0;
        if ((rc = csv_field_i64(r, &p, CSV_SEP_SPACE, 1, "src", &u, err))) return rc;
        if ((rc = csv_field_i64(r, &p, CSV_SEP_SPACE, 2, "dst", &v, err))) return rc;
        if (e->ncols == 3 && (rc = csv_field_i64(r, &p, CSV_SEP_SPACE, 3, "type", &t, err))) return rc;
        if (u < 0) return csv_error(r, err, "column 1 (src): node id %lld is negative", (long long)u);
        if (v < 0) return csv_error(r, err, "column 2 (dst): node id %lld is negative", (long long)v);
        if (t < 0 || t > 255) return csv_error(r, err, "column 3 (type): %lld is not in [0, 255]", (long long)t);
        e->src[e->n] = u;
        e->dst[e->n] = v;
        e->type[e->n] = t;
        e->n++;
    }
    if (e->n == 0) return csv_error(r, err, "file is empty (no edges found)");
    return GS_OK;
}

typedef struct {
    int64_t deg;
    int32_t id;
} deg_rank_t;

static int cmp_deg(const void *a, const void *b)
{
    const deg_rank_t *x = a, *y = b;
    if (x->deg != y->deg) return (x->deg > y->deg) - (x->deg < y->deg);
    return (x->id > y->id) - (x->id < y->id);
}

/* Whether the split rule's hash puts any of n vertices in the train split
 * (a graph of a few vertices may have none: vertex 0 trains then). */
static int train_hashes_any(int64_t n)
{
    for (int64_t v = 0; v < n; v++)
        if (gs_hash2(0x5917, (uint64_t)v) % 10 < 6) return 1;
    return 0;
}

/* Fills features, labels and splits by the rule in snap_loader.h. */
static int synthesize(dataset_t *d, gs_err_t *err)
{
    int64_t n = d->n;
    int64_t *deg = calloc((size_t)n, sizeof *deg);
    double *nbr = calloc((size_t)n, sizeof *nbr);
    deg_rank_t *rank = malloc(sizeof *rank * (size_t)n);
    d->f = SNAP_FEATS;
    d->c = 4;
    d->feat = malloc(sizeof(float) * (size_t)(n * SNAP_FEATS));
    d->label = malloc(sizeof(int32_t) * (size_t)n);
    for (int s = 0; s < 3; s++) d->split[s] = malloc(sizeof(int32_t) * (size_t)n);
    if (!deg || !nbr || !rank || !d->feat || !d->label || !d->split[0] || !d->split[1] || !d->split[2]) {
        free(deg), free(nbr), free(rank);
        return gs_fail(err, GS_EFAIL, "out of memory synthesizing features");
    }
    for (int64_t i = 0; i < d->npairs; i++) {
        deg[d->pair_src[i]]++;
        if (d->pair_dst[i] != d->pair_src[i]) deg[d->pair_dst[i]]++;
    }
    for (int64_t i = 0; i < d->npairs; i++) {
        nbr[d->pair_src[i]] += (double)deg[d->pair_dst[i]];
        if (d->pair_dst[i] != d->pair_src[i]) nbr[d->pair_dst[i]] += (double)deg[d->pair_src[i]];
    }
    for (int64_t v = 0; v < n; v++) {
        float *x = d->feat + v * SNAP_FEATS;
        x[0] = (float)log1p((double)deg[v]);
        x[1] = (float)log1p(deg[v] ? nbr[v] / (double)deg[v] : 0.0);
        for (int j = 2; j < SNAP_FEATS; j++) x[j] = gs_normal(gs_hash3(0x5a9, (uint64_t)v, (uint64_t)j));
        rank[v].deg = deg[v];
        rank[v].id = (int32_t)v;
    }
    qsort(rank, (size_t)n, sizeof *rank, cmp_deg);
    for (int64_t i = 0; i < n; i++) d->label[rank[i].id] = (int32_t)(i * 4 / n);
    for (int64_t v = 0; v < n; v++) {
        int b = (int)(gs_hash2(0x5917, (uint64_t)v) % 10);
        int s = n > 0 && v == 0 && !train_hashes_any(n) ? SPLIT_TRAIN : b < 6 ? SPLIT_TRAIN : b < 8 ? SPLIT_VALID : SPLIT_TEST;
        d->split[s][d->nsplit[s]++] = (int32_t)v;
    }
    free(deg), free(nbr), free(rank);
    return GS_OK;
}

int snap_load(dataset_t *d, const char *path, gs_err_t *err)
{
    csv_reader_t *r;
    raw_edges_t e = {0};
    int64_t *ids = NULL;
    int rc = csv_open(&r, path, err);
    if (rc) return rc;
    if ((rc = read_raw(r, &e, err))) goto done;
    ids = malloc(sizeof(int64_t) * (size_t)e.n * 2);
    if (!ids) {
        rc = gs_fail(err, GS_EFAIL, "out of memory");
        goto done;
    }
    memcpy(ids, e.src, sizeof(int64_t) * (size_t)e.n);
    memcpy(ids + e.n, e.dst, sizeof(int64_t) * (size_t)e.n);
    qsort(ids, (size_t)e.n * 2, sizeof(int64_t), cmp_i64);
    int64_t nu = 0;
    for (int64_t i = 0; i < e.n * 2; i++)
        if (i == 0 || ids[i] != ids[i - 1]) ids[nu++] = ids[i];
    if (nu > GS_MAX_NODES) {
        rc = gs_fail(err, GS_EINPUT, "%s: %lld distinct node ids exceed the limit %lld", path, (long long)nu,
                     (long long)GS_MAX_NODES);
        goto done;
    }
    d->n = nu;
    d->npairs = e.n;
    d->pair_src = malloc(sizeof(int32_t) * (size_t)e.n);
    d->pair_dst = malloc(sizeof(int32_t) * (size_t)e.n);
    if (e.ncols == 3) d->pair_type = malloc(sizeof(int32_t) * (size_t)e.n);
    if (!d->pair_src || !d->pair_dst || (e.ncols == 3 && !d->pair_type)) {
        rc = gs_fail(err, GS_EFAIL, "out of memory");
        goto done;
    }
    int32_t maxt = -1;
    for (int64_t i = 0; i < e.n; i++) {
        d->pair_src[i] = (int32_t)find_id(ids, nu, e.src[i]);
        d->pair_dst[i] = (int32_t)find_id(ids, nu, e.dst[i]);
        if (d->pair_type) {
            d->pair_type[i] = (int32_t)e.type[i];
            if (d->pair_type[i] > maxt) maxt = d->pair_type[i];
        }
    }
    d->ntypes = d->pair_type ? maxt + 1 : 0;
    rc = synthesize(d, err);
done:
    free(ids);
    free(e.src), free(e.dst), free(e.type);
    csv_close(r);
    return rc;
}
