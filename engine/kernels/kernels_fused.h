/* kernels_fused.h - the fused gather (NeuGraph §3.4), CPU reference: a
 * Scatter-ApplyEdge-Gather whose ApplyEdge is elementwise, evaluated per
 * edge in registers so that no edge tensor is ever written. The expression
 * is a fused_expr_t (program.h). Leaves are vertex tensors (rows, F): a
 * source leaf has g->nsrc rows, a destination leaf g->n. Deterministic like
 * every kernel of kernels.h: one writer per output row, a fixed order. */
#ifndef GS_KERNELS_FUSED_H
#define GS_KERNELS_FUSED_H

#include "engine/graph/graph.h"
#include "fused_args.h"
#include "kernels.h"
#include "engine/program/program.h"

/* Y[v] = sum over in-edges e = (u -> v) of w_e expr(leaves at u or v).  Y: (N, F) */
void k_gather_fused(const graph_t *g, const fused_expr_t *e, const float *const *leaf, int64_t f, float *y);
/* The gradient of each leaf k with dleaf[k] not NULL, written (acc[k] = 0)
 * or added (1): destination leaves over the CSC, source leaves over the
 * CSR, recomputing the expression per edge. Leaves must be distinct
 * tensors. */
void k_gather_fused_bwd(const graph_t *g, const fused_expr_t *e, const float *const *leaf, const float *dy, int64_t f,
                        float *const *dleaf, const int *acc);
/* The kernel both of those run, over the listed rows of x (fused_args.h):
 * forward (each own row's sum) or backward (the own-side leaves'
 * gradients); one writer per own row. The streamed passes call it per
 * sub-chunk on device-local rows (the cpu backend's KERN_CHUNK_FUSED). */
void k_fused_rows(const fused_args_t *a, const fused_edges_t *x, int backward);
/* FLOPs per edge and feature of the forward (the expression and the weighted add). */
double k_fused_flops(const fused_expr_t *e);

#endif
