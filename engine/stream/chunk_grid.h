/* chunk_grid.h - the 2D chunk grid (NeuGraph §3.1): the numbered vertices
 * cut into P intervals and the edges tiled into P x P chunks. Chunk (i, j)
 * holds the edges from source interval i to destination interval j, in
 * CSC form (grouped by destination, for the forward pass) and CSR form
 * (grouped by source, for the backward pass). Edge ids stay the graph's
 * CSC ids, so edge tensors need no reshuffling. */
#ifndef GS_CHUNK_GRID_H
#define GS_CHUNK_GRID_H

#include <stdint.h>

#include "base/error.h"
#include "engine/graph/graph.h"

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

/* The whole grid at once (tests; the streamer builds a column at a time). */
int grid_build(chunk_grid_t *cg, const graph_t *g, int p, const int64_t *bounds, gs_err_t *err);
void grid_free(chunk_grid_t *cg);
/* Each vertex's interval (n entries; NULL when out of memory). */
int32_t *grid_intervals(const graph_t *g, int p, const int64_t *bounds);
/* One column of the grid for interval o: forward, the p chunks (a, o) in
 * CSC form (col[a], by destination in I_o); backward, the p chunks (o, a)
 * in CSR form (col[a], by source in I_o, with nsrc_used). Only that form's
 * arrays are set; -1 when out of memory (nothing left allocated). At a
 * paper's size the whole grid would be 24 bytes an edge at once; a column
 * is 1/P of it. */
int grid_column(chunk_t *col, const graph_t *g, int p, const int64_t *bounds, const int32_t *iv, int o, int forward);
void grid_column_free(chunk_t *col, int p, int forward);
/* The most edges any sub-chunk of P intervals (bounds, in the new
 * numbering) cut into k blocks holds, forward or backward, for g in its
 * current numbering (perm[new] = old; NULL: the same): exact while the
 * P x Pk table is at most 4M entries, an upper bound beyond. */
int64_t grid_max_sub_nnz(const graph_t *g, const int32_t *perm, const int64_t *bounds, int p, int k);

#endif
