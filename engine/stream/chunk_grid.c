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
