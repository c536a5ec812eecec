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
 * Costs (per rank, seconds; eq. 1-2 with the dimensions made concrete),
 * per pass:
 * t_r^l(u) = the sum over the subtree's vertices w not yet computed here,
 * at levels k = 0..l-1, of c(k) + indeg(w) T_e w(k): c(k) the time per
 * row of level k's vertex ops (T_v times their FLOPs, or their roofline
 * on the virtual clock), w(k) the floats per edge of the hop-k gather
 * (level 0 has none). Raw features cost nothing (c(0) = 0, so t_r^1 = 0
 * as in the paper) unless level 0 computes, as after DKP puts layer 1's
 * product first, or drops features out. t_c^l(u) = T_c w(l), w(l) the floats a row
 * moves at hop l. Algorithm 4 decides, and dep_plan_cost sums, by what
 * these cost over a training step and an evaluation, the passes the engine
 * runs: every forward twice, a backward only where one runs (a level's
 * vertex ops' backward, vback; a gather's and a message's gradient only
 * for the values that carry one, wgrad: nothing flows back into the raw
 * features). The paper probes T_v, T_e and T_c on a test training, which
 * counts the same passes; a per-pass rule would price a cached row's
 * first-hop gather at 3 passes where it runs 2. Modes:
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

#include "base/error.h"
#include "engine/graph/graph.h"

#define DEP_MAX_HOPS 66

typedef enum { DEP_CACHE = 0, DEP_COMM = 1, DEP_HYBRID = 2 } dep_mode_t;

typedef struct {
    int nranks, rank;
    const int64_t *bounds;    /* (nranks + 1) owned ranges */
    int nhops;                /* L */
    int64_t width[DEP_MAX_HOPS + 1]; /* w(l), l = 1..L: floats per row read by source at hop l (moved, and per edge) */
    double vcost[DEP_MAX_HOPS + 1];  /* c(k), k = 0..L: seconds per row of level k's vertex ops */
    int64_t dim[DEP_MAX_HOPS + 1];   /* floats per row a cached level-k row holds (value; gradient too for k > 0) */
    double vback[DEP_MAX_HOPS + 1];  /* seconds per row of level k's vertex ops' backward (0: none runs) */
    int64_t wgrad[DEP_MAX_HOPS + 1]; /* of w(l), the floats whose values carry a gradient back (hop l's backward) */
    dep_mode_t mode;
    double ratio;             /* hybrid: < 0 for Algorithm 4's own split, else the cached fraction */
    double mem_limit;         /* S in bytes, 0 for none */
    double te, tc;            /* seconds per edge float gathered, per float sent */
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
    double t_r[DEP_MAX_HOPS + 1];     /* sum of t_r^l over R^l, as measured when each was cached (a step and an evaluation) */
    double t_c[DEP_MAX_HOPS + 1];     /* |C^l| t_c^l */
    double own_cost, rep_cost;        /* the forward compute of owned rows and of replicated rows (the model's seconds) */
    double rep_level[DEP_MAX_HOPS + 1]; /* rep_cost by level k = 0..L: what the overlap can hide an exchange behind */
    double epoch_cost;                /* the model's training step and evaluation: dep_plan_cost */
    double cache_bytes;               /* size({R}): replicated rows' values and gradients, features */
    int mem_stopped;                  /* the memory limit ended caching early */
    const char *choice;               /* hybrid's own split: which plan won (NULL otherwise) */
} dep_plan_t;

int dep_plan(const graph_t *g, const dep_params_t *p, dep_plan_t *out, gs_err_t *err);
/* The plan's modeled epoch (seconds): owned and replicated compute and the
 * messages over a training step and an evaluation (each forward twice, the
 * backward where one runs). */
double dep_plan_cost(const dep_plan_t *plan);
void dep_plan_free(dep_plan_t *plan);
/* The owner of global vertex v. */
int dep_owner(const int64_t *bounds, int nranks, int64_t v);

#endif
