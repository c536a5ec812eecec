/* chunk_grid.c - see chunk_grid.h. */
#include "chunk_grid.h"

#include <stdlib.h>
#include <string.h>

void grid_free(chunk_grid_t *cg)
{
    if (cg->chunk)
        for (int c = 0; c < cg->p * cg->p; c++) {
            chunk_t *ch = &cg->chunk[c];
            free(ch->csc_ptr), free(ch->csc_src), free(ch->csc_eid);
            free(ch->csr_ptr), free(ch->csr_dst), free(ch->csr_eid);
        }
    free(cg->chunk), free(cg->bounds);
    memset(cg, 0, sizeof *cg);
}

static int interval_of(const int64_t *bounds, int p, int64_t v)
{
    int lo = 0, hi = p - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (bounds[mid] <= v) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

int32_t *grid_intervals(const graph_t *g, int p, const int64_t *bounds)
{
    int32_t *iv = malloc(sizeof(int32_t) * (size_t)(g->n ? g->n : 1));
    for (int64_t v = 0; iv && v < g->n; v++) iv[v] = interval_of(bounds, p, v);
    return iv;
}

void grid_column_free(chunk_t *col, int p, int forward)
{
    for (int a = 0; a < p; a++) {
        chunk_t *ch = &col[a];
        if (forward) {
            free(ch->csc_ptr), free(ch->csc_src), free(ch->csc_eid);
            ch->csc_ptr = NULL, ch->csc_src = NULL, ch->csc_eid = NULL;
        } else {
            free(ch->csr_ptr), free(ch->csr_dst), free(ch->csr_eid);
            ch->csr_ptr = NULL, ch->csr_dst = NULL, ch->csr_eid = NULL;
        }
    }
}

/* The graph's adjacency of one orientation: forward, each destination's
 * in-edges (CSC ids); backward, each source's out-edges (their CSC ids). */
typedef struct {
    const int64_t *ptr;
    const int32_t *nbr;
    const int64_t *eid; /* NULL: the position is the id */
} adjacency_t;

static adjacency_t adjacency_of(const graph_t *g, int forward)
{
    return forward ? (adjacency_t){g->in_ptr, g->in_src, NULL} : (adjacency_t){g->out_ptr, g->out_dst, g->out_eid};
}

int grid_column(chunk_t *col, const graph_t *g, int p, const int64_t *bounds, const int32_t *iv, int o, int forward)
{
    adjacency_t adj = adjacency_of(g, forward);
    int64_t lo = bounds[o], len = bounds[o + 1] - bounds[o];
    int64_t *cnt = calloc((size_t)p, sizeof(int64_t));
    if (!cnt) return -1;
    for (int64_t e = adj.ptr[lo]; e < adj.ptr[lo + len]; e++) cnt[iv[adj.nbr[e]]]++;
    int rc = 0;
    for (int a = 0; a < p && !rc; a++) {
        chunk_t *ch = &col[a];
        size_t z = (size_t)(cnt[a] ? cnt[a] : 1);
        int64_t *ptr = calloc((size_t)len + 1, sizeof(int64_t));
        int32_t *nbr = malloc(sizeof(int32_t) * z);
        int64_t *eid = malloc(sizeof(int64_t) * z);
        if (forward) ch->csc_ptr = ptr, ch->csc_src = nbr, ch->csc_eid = eid;
        else ch->csr_ptr = ptr, ch->csr_dst = nbr, ch->csr_eid = eid;
        ch->nnz = 0;
        rc = !ptr || !nbr || !eid;
    }
    for (int64_t r = 0; r < len && !rc; r++) { /* rows in order; each row's edges keep the graph's order */
        for (int64_t e = adj.ptr[lo + r]; e < adj.ptr[lo + r + 1]; e++) {
            chunk_t *ch = &col[iv[adj.nbr[e]]];
            (forward ? ch->csc_src : ch->csr_dst)[ch->nnz] = adj.nbr[e];
            (forward ? ch->csc_eid : ch->csr_eid)[ch->nnz] = adj.eid ? adj.eid[e] : e;
            ch->nnz++;
        }
        for (int a = 0; a < p; a++) (forward ? col[a].csc_ptr : col[a].csr_ptr)[r + 1] = col[a].nnz;
    }
    for (int a = 0; a < p && !rc && !forward; a++) {
        col[a].nsrc_used = 0;
        for (int64_t r = 0; r < len; r++) col[a].nsrc_used += col[a].csr_ptr[r + 1] > col[a].csr_ptr[r];
    }
    free(cnt);
    if (rc) grid_column_free(col, p, forward);
    return rc ? -1 : 0;
}

int grid_build(chunk_grid_t *cg, const graph_t *g, int p, const int64_t *bounds, gs_err_t *err)
{
    memset(cg, 0, sizeof *cg);
    cg->p = p;
    cg->bounds = malloc(sizeof(int64_t) * (size_t)(p + 1));
    cg->chunk = calloc((size_t)p * (size_t)p, sizeof(chunk_t));
    chunk_t *col = calloc((size_t)p, sizeof(chunk_t));
    int32_t *iv = grid_intervals(g, p, bounds);
    int rc = !cg->bounds || !cg->chunk || !col || !iv;
    if (!rc) memcpy(cg->bounds, bounds, sizeof(int64_t) * (size_t)(p + 1));
    for (int o = 0; o < p && !rc; o++) { /* chunk (i, j): sources in I_i, destinations in I_j */
        memset(col, 0, sizeof(chunk_t) * (size_t)p);
        if ((rc = grid_column(col, g, p, bounds, iv, o, 1))) break;
        for (int a = 0; a < p; a++) {
            chunk_t *ch = &cg->chunk[a * p + o];
            ch->csc_ptr = col[a].csc_ptr, ch->csc_src = col[a].csc_src, ch->csc_eid = col[a].csc_eid, ch->nnz = col[a].nnz;
        }
        memset(col, 0, sizeof(chunk_t) * (size_t)p);
        if ((rc = grid_column(col, g, p, bounds, iv, o, 0))) break;
        for (int a = 0; a < p; a++) {
            chunk_t *ch = &cg->chunk[o * p + a];
            ch->csr_ptr = col[a].csr_ptr, ch->csr_dst = col[a].csr_dst, ch->csr_eid = col[a].csr_eid;
            ch->nsrc_used = col[a].nsrc_used;
        }
    }
    free(col), free(iv);
    if (!rc) return GS_OK;
    grid_free(cg);
    return gs_fail(err, GS_EFAIL, "out of memory building a %d x %d chunk grid", p, p);
}

/* The largest count in a[0..n). */
static int64_t max_of(const int64_t *a, size_t n)
{
    int64_t m = 0;
    for (size_t i = 0; i < n; i++) m = a[i] > m ? a[i] : m;
    return m;
}

/* Without the P x Pk table: an interval's in-edges and a block's
 * out-edges (forward), an interval's out-edges and a block's in-edges
 * (backward) bound every sub-chunk's. iv and blk by new id. */
static int64_t sub_nnz_bound(const graph_t *g, const int32_t *inv, const int32_t *iv, const int32_t *blk, int p, int nb)
{
    int64_t *c = calloc(2 * ((size_t)p + (size_t)nb), sizeof(int64_t)), best = g->m;
    if (!c) return best;
    int64_t *iv_in = c, *iv_out = c + p, *blk_in = c + 2 * p, *blk_out = c + 2 * p + nb;
    for (int64_t e = 0; e < g->m; e++) {
        int64_t u = inv ? inv[g->in_src[e]] : g->in_src[e], v = inv ? inv[g->in_dst[e]] : g->in_dst[e];
        iv_in[iv[v]]++, iv_out[iv[u]]++, blk_in[blk[v]]++, blk_out[blk[u]]++;
    }
    int64_t fwd = max_of(iv_in, (size_t)p), blk_o = max_of(blk_out, (size_t)nb); /* forward: by destination interval */
    int64_t bwd = max_of(iv_out, (size_t)p), blk_i = max_of(blk_in, (size_t)nb);  /* backward: by source interval */
    fwd = fwd < blk_o ? fwd : blk_o, bwd = bwd < blk_i ? bwd : blk_i;
    best = fwd > bwd ? fwd : bwd;
    free(c);
    return best;
}

/* The exact count over both orientations' P x Pk sub-chunks. */
static int64_t sub_nnz_exact(const graph_t *g, const int32_t *inv, const int32_t *iv, const int32_t *blk, int p, int nb)
{
    int64_t *c = calloc(2 * (size_t)p * (size_t)nb, sizeof(int64_t)), best;
    if (!c) return sub_nnz_bound(g, inv, iv, blk, p, nb);
    for (int64_t e = 0; e < g->m; e++) {
        int64_t u = inv ? inv[g->in_src[e]] : g->in_src[e], v = inv ? inv[g->in_dst[e]] : g->in_dst[e];
        c[(size_t)iv[v] * (size_t)nb + (size_t)blk[u]]++;
        c[((size_t)p + (size_t)iv[u]) * (size_t)nb + (size_t)blk[v]]++;
    }
    best = max_of(c, 2 * (size_t)p * (size_t)nb);
    free(c);
    return best;
}

int64_t grid_max_sub_nnz(const graph_t *g, const int32_t *perm, const int64_t *bounds, int p, int k)
{
    int64_t n = g->n, nb = (int64_t)p * k, best = g->m;
    int32_t *iv = malloc(sizeof(int32_t) * (size_t)n), *blk = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *inv = perm ? malloc(sizeof(int32_t) * (size_t)n) : NULL;
    if (!iv || !blk || (perm && !inv)) goto done;
    for (int64_t v = 0; perm && v < n; v++) inv[perm[v]] = (int32_t)v;
    for (int i = 0; i < p; i++)
        for (int q = 0; q < k; q++) {
            int64_t len = bounds[i + 1] - bounds[i], lo = bounds[i] + len * q / k, hi = bounds[i] + len * (q + 1) / k;
            for (int64_t v = lo; v < hi; v++) iv[v] = i, blk[v] = i * k + q;
        }
    best = (double)p * (double)nb <= (double)(1 << 22) ? sub_nnz_exact(g, inv, iv, blk, p, (int)nb)
                                                      : sub_nnz_bound(g, inv, iv, blk, p, (int)nb);
done:
    free(iv), free(blk), free(inv);
    return best;
}
