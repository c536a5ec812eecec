/* kernels.h - the fixed kernel set (docs/ARCHITECTURE.md, "Backends"), CPU reference versions.
 * These are the cpu backend's kernels and the reference every other
 * backend is tested against. Dense tensors are row-major; vertex tensors
 * are (N, F), edge tensors are (E, F) in CSC edge order.
 * `acc` = 0 overwrites the output, 1 adds to it. All sparse kernels run on
 * the thread pool (threadpool.h) and are deterministic: each output row is
 * reduced by one thread in a fixed order. */
#ifndef GS_KERNELS_H
#define GS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/graph/graph.h"

/* One sparse pull, the loop every sum-gather shares: for each listed row
 * r, y[row r] (+)= sum over entries q in [ptr[r], ptr[r+1]) of
 * scale(q) * x[src(q)], where src(q) is nbr[q] (a neighbour's vertex row)
 * or, with src_edge, the entry's edge id (an edge tensor's row); the
 * edge id is eid[q], or q itself when eid is NULL (CSC order); scale(q)
 * is w[q] (1 when w is NULL) times, with att, att[e * att_k + j / att_h]
 * for feature j. Typed pulls pick an f-wide block by the edge's type:
 * TYPED_IN in x's row, TYPED_OUT in y's row. Output row r is orow[r]
 * (NULL: r); rows are x_stride and y_stride floats apart. */
typedef enum { TYPED_NONE, TYPED_IN, TYPED_OUT } typed_mode_t;

typedef struct {
    const int64_t *ptr;   /* (rows + 1) entry offsets */
    const int32_t *orow;  /* (rows) output row of each listed row, or NULL */
    const int32_t *nbr;   /* (nnz) source row of each entry */
    const int64_t *eid;   /* (nnz) edge id of each entry, or NULL: the entry index */
    const float *w;       /* (nnz) weight of each entry, or NULL */
    const float *att;     /* (E, att_k) per-head scale, or NULL */
    int64_t att_k, att_h;
    const int32_t *etype; /* (E) edge types (typed pulls) */
    typed_mode_t typed;
    int src_edge;         /* 1: x rows are edge ids */
    const float *x;
    int64_t x_stride;
    float *y;
    int64_t y_stride, f;  /* f: values added per entry */
    int acc;              /* 0: a listed row's y is zeroed first */
} k_pull_t;

/* Runs rows [0, rows) of a pull on the thread pool (one writer per output row). */
void k_pull(const k_pull_t *p, int64_t rows);

/* C (+)= op(A) * op(B): (M, K) x (K, N), through OpenBLAS sgemm. */
void k_gemm(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c,
            int acc);

/* Y[v] (+)= sum over in-edges e=(u->v) of w_e X[u].   X: (nsrc, F), Y: (N, F) */
void k_gather_sum(const graph_t *g, agg_weight_t w, const float *x, int64_t f, float *y, int acc);
/* dX[u] (+)= sum over out-edges e=(u->v) of w_e dY[v], over the nsrc source rows. */
void k_gather_sum_bwd(const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dx, int acc);
/* Y[v,j] = max over in-edges of X[u,j]; argmax (N, F) keeps the winning u. */
void k_gather_max(const graph_t *g, const float *x, int64_t f, float *y, int32_t *argmax);
void k_gather_max_bwd(const graph_t *g, const int32_t *argmax, const float *dy, int64_t f, float *dx, int acc);
/* Y[v,j] = max over v's in-edges q (CSC positions) of M[q,j], the first
 * such q in CSC order on a tie (so k_gather_max over a scattered source
 * tensor picks the same winner); argmax (N, F) keeps q; a vertex without
 * in-edges gets 0. Backward: dM[q,j] (+)= dY[v,j] where q won, else 0. */
void k_gather_edge_max(const graph_t *g, const float *m, int64_t f, float *y, int32_t *argmax);
void k_gather_edge_max_bwd(const graph_t *g, const int32_t *argmax, const float *dy, int64_t f, float *dm, int acc);
/* Scatter: Y[e] = X[src(e)] or X[dst(e)].                       Y: (E, F) */
void k_scatter_src(const graph_t *g, const float *x, int64_t f, float *y);
void k_scatter_dst(const graph_t *g, const float *x, int64_t f, float *y);
/* Their backward passes: dX[u] (+)= sum of dY[e] over u's out-edges / in-edges. */
void k_scatter_src_bwd(const graph_t *g, const float *dy, int64_t f, float *dx, int acc);
void k_scatter_dst_bwd(const graph_t *g, const float *dy, int64_t f, float *dx, int acc);
/* Gather of edge data: Y[v] (+)= sum over in-edges of w_e M[e]. M: (E, F) */
void k_gather_edge(const graph_t *g, agg_weight_t w, const float *m, int64_t f, float *y, int acc);
/* dM[e] (+)= w_e dY[dst(e)]. */
void k_gather_edge_bwd(const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dm, int acc);
/* S[e,k] = L[src,k] + R[dst,k].                     L, R: (N, K), S: (E, K) */
void k_edge_uaddv(const graph_t *g, const float *l, const float *r, int64_t k, float *s);
/* Softmax over each destination's in-edges, per head. S, A: (E, K) */
void k_edge_softmax(const graph_t *g, const float *s, int64_t k, float *a);
/* dS = A * (dA - sum_in(A * dA)). */
void k_edge_softmax_bwd(const graph_t *g, const float *a, const float *da, int64_t k, float *ds, int acc);
/* Attention gather: Y[v,h,:] = sum over in-edges of A[e,h] X[u,h,:].
 * X, Y: (N, K*H) as K heads of H; A: (E, K). */
void k_gather_attn(const graph_t *g, const float *x, const float *a, int64_t k, int64_t h, float *y);
/* dX[u,h,:] (+)= sum over out-edges of A[e,h] dY[v,h,:]. */
void k_gather_attn_bwd(const graph_t *g, const float *a, const float *dy, int64_t k, int64_t h, float *dx, int acc);
/* SDDMM: out[e,h] (+)= <P[dst,h,:], Q[src,h,:]>.    P, Q: (N, K*H), out: (E, K) */
void k_sddmm(const graph_t *g, const float *p, const float *q, int64_t k, int64_t h, float *out, int acc);
/* Typed gather: Y[v] (+)= sum over in-edges of w_e Z[u, type(e)*H : +H].  Z: (N, T*H) */
void k_gather_typed(const graph_t *g, agg_weight_t w, const float *z, int64_t h, float *y, int acc);
/* dZ[u, type*H : +H] (+)= w_e dY[v] over out-edges. */
void k_gather_typed_bwd(const graph_t *g, agg_weight_t w, const float *dy, int64_t h, float *dz, int acc);

/* Typed scatter: Y[e] = Z[src(e), type(e)*H : +H].   Z: (nsrc, T*H), Y: (E, H) */
void k_scatter_typed(const graph_t *g, const float *z, int64_t h, float *y);
/* dZ[u, type*H : +H] (+)= sum of dY[e] over u's out-edges. */
void k_scatter_typed_bwd(const graph_t *g, const float *dy, int64_t h, float *dz, int acc);
/* Typed edge product: Y[e] = X[e] A[:, type(e)*M : +M].   X: (E, K), A: (K, T*M), Y: (E, M) */
void k_edge_matmul_typed(const graph_t *g, const float *x, const float *a, int64_t k, int64_t m, float *y);
/* dX[e] (+)= dY[e] A_t^T (when dx); dA[r, t*M + j] (+)= sum over the edges of
 * type t, in edge order, of X[e, r] dY[e, j] (when da; one writer per row r). */
void k_edge_matmul_typed_bwd(const graph_t *g, const float *x, const float *a, const float *dy, int64_t k, int64_t m, float *dx,
                             int acc_x, float *da, int acc_a);

/* Edge weights in CSC / CSR order for a weight mode (NULL for AGG_ONE);
 * inline so the CUDA plugin picks its mirror's arrays the same way. */
static inline const float *k_weights_csc(const graph_t *g, agg_weight_t w)
{
    return w == AGG_NORM ? g->w_norm : w == AGG_MEAN ? g->w_mean : NULL;
}
static inline const float *k_weights_csr(const graph_t *g, agg_weight_t w)
{
    return w == AGG_NORM ? g->out_w_norm : w == AGG_MEAN ? g->out_w_mean : NULL;
}

#endif
