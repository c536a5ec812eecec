/* partition.h - vertex ordering and the 2D chunk grid (NeuGraph §3.1).
 * An order renumbers vertices (none, a seeded random permutation, or METIS
 * k-way parts laid out contiguously); the grid cuts the numbered vertices
 * into P intervals and tiles the edges into P x P chunks. Chunk (i, j) holds
 * the edges from source interval i to destination interval j, in CSC form
 * (grouped by destination, for the forward pass) and CSR form (grouped by
 * source, for the backward pass). Edge ids stay the graph's CSC ids, so
 * edge tensors need no reshuffling. */
#ifndef GS_PARTITION_H
#define GS_PARTITION_H

#include <stdint.h>

#include "base/error.h"
#include "graph.h"

typedef enum { ORDER_NONE = 0, ORDER_RANDOM = 1, ORDER_METIS = 2 } order_kind_t;

/* Computes a vertex order: perm[new] = old (relative to g's numbering; the
 * random order hashes original ids, so it does not depend on it). For METIS, bounds (P+1) gets
 * the part boundaries in the new numbering; otherwise bounds is filled with
 * P near-equal intervals. METIS is not called for P = 1 (it crashes). */
int partition_order(const graph_t *g, order_kind_t kind, int p, uint64_t seed, int32_t *perm, int64_t *bounds,
                    gs_err_t *err);

typedef struct {
    int64_t nnz;
    int64_t *csc_ptr;  /* (len(I_j) + 1) offsets per local destination */
    int32_t *csc_src;  /* (nnz) source vertex (global id) */
    int64_t *csc_eid;  /* (nnz) graph edge id */
    int64_t *csr_ptr;  /* (len(I_i) + 1) offsets per local source */
    int32_t *csr_dst;  /* (nnz) destination vertex (global id) */
    int64_t *csr_eid;  /* (nnz) graph edge id */
    int64_t nsrc_used; /* distinct sources with an edge here (selective scheduling) */
} chunk_t;

typedef struct {
    int p;
    int64_t *bounds; /* (P+1) interval boundaries */
    chunk_t *chunk;  /* (P*P), chunk[i*P + j] = sources in I_i, destinations in I_j */
} chunk_grid_t;

int grid_build(chunk_grid_t *cg, const graph_t *g, int p, const int64_t *bounds, gs_err_t *err);
void grid_free(chunk_grid_t *cg);
/* Equal-size interval bounds for P parts of n vertices. */
void grid_even_bounds(int64_t n, int p, int64_t *bounds);

#endif
