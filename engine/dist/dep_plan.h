/* dep_plan.h - which remote dependencies a rank caches and which it
 * communicates (NeutronStar §3, equations 1-3 and Algorithm 4). Pure code:
 * no MPI, so it is unit-tested on its own.
 *
 * Rank i owns the contiguous vertex range V_i = [bounds[i], bounds[i+1]) of
 * the (possibly reordered) graph. Its layer-l computation (hop l, l = 1..L)
 * needs h^(l-1) of every in-neighbour of its rows; the remote ones,
 * D = in(V_i) \ V_i, are split per layer into
 *   R^l  cached: h^(l-1) computed here, with its whole dependency subtree
 *        (the vertex at level l-1, its in-neighbours at l-2, ... features),
 *   C^l  communicated: h^(l-1) received from the owner every forward pass,
 *        its gradient sent back in the backward pass.
 * Costs (per rank, seconds): t_r^l(u) = sum over the subtree's levels k
 * = 1..l-1 of the vertices not yet computed here, (T_v + indeg T_e) d(k)
 * (eq. 1; level 0 is features, free, so t_r^1 = 0); t_c^l(u) = T_c w(l),
 * w(l) the floats a row moves at hop l (eq. 2). Modes:
 *   cache   every remote dependency cached (DepCache);
 *   comm    every one communicated (DepComm, features included at hop 1);
 *   hybrid  Algorithm 4: layer by layer from 1 to L, a priority queue of
 *           t_r, popped smallest first and re-measured against what is
 *           cached so far, cached while t_r < t_c and the cache fits the
 *           memory limit S; or, with a ratio X, the first ceil(X |D|) in
 *           that order are cached whatever the costs.
 * A dependency whose h^(l-1) ends up computed here anyway (inside another
 * one's subtree) is cached at no cost. The result is a set of nested
 * vertex sets (blocks.h): T_L = V_i and T_k = V_i plus the vertices
 * replicated at level k, and the mirrors C^k appended after T_{k-1} as
 * extra sources of hop k, ordered by owner then id so that each owner's
 * rows are one contiguous range. Subtree searches stop after a budget of
 * visited vertices (deep models on large graphs); past it a dependency
 * counts as too costly to cache. */
#ifndef GS_DEP_PLAN_H
#define GS_DEP_PLAN_H

#include <stdint.h>

#include "../error.h"
#include "../graph.h"

#define DEP_MAX_HOPS 66

typedef enum { DEP_CACHE = 0, DEP_COMM = 1, DEP_HYBRID = 2 } dep_mode_t;

typedef struct {
    int nranks, rank;
    const int64_t *bounds;    /* (nranks + 1) owned ranges */
    int nhops;                /* L */
    int64_t width[DEP_MAX_HOPS + 1]; /* w(l), l = 1..L: floats per row exchanged at hop l */
    int64_t dim[DEP_MAX_HOPS + 1];   /* d(k), k = 0..L: floats per row computed at level k */
    dep_mode_t mode;
    double ratio;             /* hybrid: < 0 for Algorithm 4's own split, else the cached fraction */
    double mem_limit;         /* S in bytes, 0 for none */
    double tv, te, tc;        /* per-dimension costs: vertex, edge, communication (seconds) */
} dep_params_t;

typedef struct {
    int nhops;
    int64_t lo, hi;                   /* V_i */
    int32_t *set[DEP_MAX_HOPS + 1];   /* T_k, k = 0..L, global ids, nested prefixes */
    int64_t nset[DEP_MAX_HOPS + 1];
    int32_t *extra[DEP_MAX_HOPS + 1]; /* extra[k] = C^{k+1}, k = 0..L-1 */
    int64_t nextra[DEP_MAX_HOPS + 1];
    int64_t nremote;                  /* |D| */
    int64_t ncached[DEP_MAX_HOPS + 1], ncomm[DEP_MAX_HOPS + 1]; /* |R^l|, |C^l|, l = 1..L */
    double t_r[DEP_MAX_HOPS + 1];     /* sum of t_r^l over R^l, as measured when each was cached */
    double t_c[DEP_MAX_HOPS + 1];     /* |C^l| t_c^l */
    double cache_bytes;               /* size({R}): replicated rows' values and gradients, features */
    int mem_stopped;                  /* the memory limit ended caching early */
} dep_plan_t;

int dep_plan(const graph_t *g, const dep_params_t *p, dep_plan_t *out, gs_err_t *err);
void dep_plan_free(dep_plan_t *plan);
/* The owner of global vertex v. */
int dep_owner(const int64_t *bounds, int nranks, int64_t v);

#endif
