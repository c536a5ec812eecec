/* order.h - vertex orders (NeuGraph §3.1): an order renumbers the vertices
 * (none, a seeded random permutation, or METIS k-way parts laid out
 * contiguously) before the streaming engine cuts them into intervals
 * (engine/stream/chunk_grid.h) or a distributed job into ranks' ranges. */
#ifndef GS_ORDER_H
#define GS_ORDER_H

#include <stdint.h>

#include "base/error.h"
#include "graph.h"

typedef enum { ORDER_NONE = 0, ORDER_RANDOM = 1, ORDER_METIS = 2 } order_kind_t;

/* Computes a vertex order: perm[new] = old (relative to g's numbering; the
 * random order hashes original ids, so it does not depend on it). For METIS, bounds (P+1) gets
 * the part boundaries in the new numbering; otherwise bounds is filled with
 * P near-equal intervals. METIS is not called for P = 1 (it crashes). */
int order_vertices(const graph_t *g, order_kind_t kind, int p, uint64_t seed, int32_t *perm, int64_t *bounds,
                    gs_err_t *err);

/* Equal-size interval bounds (P + 1) for P parts of n vertices. */
void order_even_bounds(int64_t n, int p, int64_t *bounds);

#endif
