/* blocks.h - nested vertex sets and the blocks between them
 * (docs/ARCHITECTURE.md, "Vertex sets"), cut out of a graph. Level k's
 * set D_k lists the vertices whose level-k values are computed here, in
 * local row order; each is a prefix of the one below it (D_H first, then
 * what D_{H-1} adds, ...). Block h reads level h-1's rows, D_{h-1}, plus
 * extra rows appended after them (a rank's mirrors, whose values arrive
 * from elsewhere), and writes D_h, keeping every in-edge of D_h. Edges
 * keep the graph's CSC order and weights (by the graph's degrees), so a
 * value computed on blocks equals the full-graph one bitwise. */
#ifndef GS_BLOCKS_H
#define GS_BLOCKS_H

#include "base/error.h"
#include "graph.h"

#define BLOCKS_MAX_HOPS 66

typedef struct {
    int nhops;
    graph_t block[BLOCKS_MAX_HOPS + 1]; /* block[h], h = 1..nhops */
    const graph_t *ptr[BLOCKS_MAX_HOPS + 1]; /* &block[h], for exec_bind */
} blockset_t;

/* Builds the blocks of the sets: set[k] (nset[k] global vertex ids, in the
 * graph's numbering) is D_k for k = 0..nhops, extra[k] (nextra[k] ids, or
 * none) the rows appended to level k for block k+1's sources. GS_EINPUT
 * when a destination has an in-neighbour outside its block's sources or
 * the sets are not nested prefixes. */
int blocks_build(const graph_t *g, int nhops, const int32_t *const *set, const int64_t *nset,
                 const int32_t *const *extra, const int64_t *nextra, blockset_t *out, gs_err_t *err);
/* The nhops-hop in-neighbourhood of targets: D_nhops = targets, and each
 * level below adds the in-neighbours the one above needs. */
int blocks_khop(const graph_t *g, int nhops, const int32_t *targets, int64_t ntargets, blockset_t *out, gs_err_t *err);
void blocks_free(blockset_t *b);
/* Fills block b's CSR (out_*) from its CSC: each source's entries in the
 * order of their destinations' original ids, as the full graph has them. */
int blocks_build_csr(graph_t *b, gs_err_t *err);

#endif
