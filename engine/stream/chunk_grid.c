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

int grid_build(chunk_grid_t *cg, const graph_t *g, int p, const int64_t *bounds, gs_err_t *err)
{
    memset(cg, 0, sizeof *cg);
    cg->p = p;
    cg->bounds = malloc(sizeof(int64_t) * (size_t)(p + 1));
    cg->chunk = calloc((size_t)p * (size_t)p, sizeof(chunk_t));
    int32_t *iv = malloc(sizeof(int32_t) * (size_t)g->n);
    if (!cg->bounds || !cg->chunk || !iv) goto oom;
    memcpy(cg->bounds, bounds, sizeof(int64_t) * (size_t)(p + 1));
    for (int64_t v = 0; v < g->n; v++) iv[v] = interval_of(bounds, p, v);
    for (int64_t e = 0; e < g->m; e++) cg->chunk[iv[g->in_src[e]] * p + iv[g->in_dst[e]]].nnz++;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            chunk_t *ch = &cg->chunk[i * p + j];
            int64_t nd = bounds[j + 1] - bounds[j], ns = bounds[i + 1] - bounds[i], z = ch->nnz ? ch->nnz : 1;
            ch->csc_ptr = calloc((size_t)nd + 1, sizeof(int64_t));
            ch->csr_ptr = calloc((size_t)ns + 1, sizeof(int64_t));
            ch->csc_src = malloc(sizeof(int32_t) * (size_t)z), ch->csc_eid = malloc(sizeof(int64_t) * (size_t)z);
            ch->csr_dst = malloc(sizeof(int32_t) * (size_t)z), ch->csr_eid = malloc(sizeof(int64_t) * (size_t)z);
            if (!ch->csc_ptr || !ch->csr_ptr || !ch->csc_src || !ch->csc_eid || !ch->csr_dst || !ch->csr_eid) goto oom;
            ch->nnz = 0;
        }
    /* CSC: walk destinations in order; edges of v are already sorted by source */
    for (int64_t v = 0; v < g->n; v++) {
        int j = iv[v];
        for (int64_t e = g->in_ptr[v]; e < g->in_ptr[v + 1]; e++) {
            chunk_t *ch = &cg->chunk[iv[g->in_src[e]] * p + j];
            ch->csc_src[ch->nnz] = g->in_src[e];
            ch->csc_eid[ch->nnz] = e;
            ch->nnz++;
            ch->csc_ptr[v - bounds[j] + 1] = ch->nnz;
        }
    }
    for (int c = 0; c < p * p; c++) { /* fill offsets of destinations without edges */
        chunk_t *ch = &cg->chunk[c];
        int64_t nd = bounds[c % p + 1] - bounds[c % p];
        for (int64_t k = 1; k <= nd; k++)
            if (ch->csc_ptr[k] < ch->csc_ptr[k - 1]) ch->csc_ptr[k] = ch->csc_ptr[k - 1];
        ch->nnz = 0;
    }
    /* CSR: walk sources in order through the graph's CSR */
    for (int64_t u = 0; u < g->n; u++) {
        int i = iv[u];
        for (int64_t k = g->out_ptr[u]; k < g->out_ptr[u + 1]; k++) {
            chunk_t *ch = &cg->chunk[i * p + iv[g->out_dst[k]]];
            ch->csr_dst[ch->nnz] = g->out_dst[k];
            ch->csr_eid[ch->nnz] = g->out_eid[k];
            ch->nnz++;
            ch->csr_ptr[u - bounds[i] + 1] = ch->nnz;
        }
    }
    for (int c = 0; c < p * p; c++) {
        chunk_t *ch = &cg->chunk[c];
        int64_t ns = bounds[c / p + 1] - bounds[c / p];
        ch->nsrc_used = 0;
        for (int64_t k = 1; k <= ns; k++) {
            if (ch->csr_ptr[k] < ch->csr_ptr[k - 1]) ch->csr_ptr[k] = ch->csr_ptr[k - 1];
            ch->nsrc_used += ch->csr_ptr[k] > ch->csr_ptr[k - 1];
        }
    }
    free(iv);
    return GS_OK;
oom:
    free(iv);
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
