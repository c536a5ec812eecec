/* work_items.cu - builds the work items of the sparse pulls for a mirrored
 * graph (cuda_common.h): each row's edges in pieces of at most CU_SPLIT,
 * built on the host from the CSC and CSR offsets and uploaded once. Kept
 * in the mirror's aux, so they live and die with it. */
#include <stdlib.h>
#include <string.h>

#include "cuda_common.h"

const cu_graph_items_t *cu_items_of(cu_errors_t *e, const graph_t *mirror)
{
    static const cu_graph_items_t none = {{NULL, 0, NULL, 0}, {NULL, 0, NULL, 0}};
    if (mirror->aux) return (const cu_graph_items_t *)mirror->aux;
    cu_note(e, cudaErrorInvalidValue, "sparse kernel on a graph that was not mirrored");
    return &none;
}

static void items_free(cu_items_t *it)
{
    if (it->items) cudaFree(it->items);
    if (it->split_rows) cudaFree(it->split_rows);
    memset(it, 0, sizeof *it);
}

static int items_build(const int64_t *ptr, int64_t n, cu_items_t *out, gs_err_t *err)
{
    int64_t count = 0, nsplit = 0;
    for (int64_t r = 0; r < n; r++) {
        int64_t deg = ptr[r + 1] - ptr[r], pieces = deg == 0 ? 0 : (deg + CU_SPLIT - 1) / CU_SPLIT;
        count += pieces;
        nsplit += pieces > 1;
    }
    cu_item_t *h = (cu_item_t *)malloc(sizeof(cu_item_t) * (size_t)(count ? count : 1));
    int32_t *rows = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nsplit ? nsplit : 1));
    if (!h || !rows) {
        free(h), free(rows);
        return gs_fail(err, GS_EFAIL, "out of memory building GPU work items");
    }
    int64_t k = 0, s = 0;
    for (int64_t r = 0; r < n; r++) {
        int64_t b = ptr[r], e = ptr[r + 1];
        int split = e - b > CU_SPLIT;
        if (split) rows[s++] = (int32_t)r;
        for (int64_t q = b; q < e; q += CU_SPLIT) h[k++] = (cu_item_t){q, q + CU_SPLIT < e ? q + CU_SPLIT : e, (int32_t)r, split};
    }
    /* rows with no edges still need zeros on an overwrite: they are items with an empty range */
    int64_t empty = 0;
    for (int64_t r = 0; r < n; r++) empty += ptr[r + 1] == ptr[r];
    if (empty) {
        cu_item_t *g = (cu_item_t *)realloc(h, sizeof(cu_item_t) * (size_t)(count + empty));
        if (!g) {
            free(h), free(rows);
            return gs_fail(err, GS_EFAIL, "out of memory building GPU work items");
        }
        h = g;
        for (int64_t r = 0; r < n; r++)
            if (ptr[r + 1] == ptr[r]) h[k++] = (cu_item_t){ptr[r], ptr[r], (int32_t)r, 0};
        count += empty;
    }
    int rc = GS_OK;
    if (cudaMalloc(&out->items, sizeof(cu_item_t) * (size_t)(count ? count : 1)) != cudaSuccess ||
        cudaMalloc(&out->split_rows, sizeof(int32_t) * (size_t)(nsplit ? nsplit : 1)) != cudaSuccess) {
        cudaGetLastError();
        rc = gs_fail(err, GS_EINPUT, "the graph's work items do not fit in GPU memory");
    } else {
        cudaMemcpy(out->items, h, sizeof(cu_item_t) * (size_t)count, cudaMemcpyHostToDevice);
        cudaMemcpy(out->split_rows, rows, sizeof(int32_t) * (size_t)nsplit, cudaMemcpyHostToDevice);
        out->nitems = count, out->nsplit = nsplit;
    }
    free(h), free(rows);
    return rc;
}

int cu_items_build(const graph_t *host, graph_t *mirror, gs_err_t *err)
{
    cu_graph_items_t *t = (cu_graph_items_t *)calloc(1, sizeof *t);
    if (!t) return gs_fail(err, GS_EFAIL, "out of memory building GPU work items");
    int rc = items_build(host->in_ptr, host->n, &t->csc, err);
    if (!rc) rc = items_build(host->out_ptr, host->nsrc, &t->csr, err);
    if (rc) {
        items_free(&t->csc), items_free(&t->csr);
        free(t);
        return rc;
    }
    mirror->aux = t;
    return GS_OK;
}

void cu_items_free(graph_t *mirror)
{
    cu_graph_items_t *t = (cu_graph_items_t *)mirror->aux;
    if (!t) return;
    items_free(&t->csc), items_free(&t->csr);
    free(t);
    mirror->aux = NULL;
}
