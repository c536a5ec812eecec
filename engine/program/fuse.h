/* fuse.h - NeuGraph §3.4 as a program transform (docs/ARCHITECTURE.md,
 * "Hoisting and fusion"). Models are written in plain SAGA-NN form: the
 * Scatter stage copies vertex rows onto the edges and ApplyEdge computes on
 * edge tensors (E, *). The pass rewrites that program, in order:
 *   hoist  an ApplyEdge op with a parameter (a product, a bias, a head
 *          dot) whose every tensor operand is a scatter of the same side
 *          (a typed product of source rows becomes the product of every
 *          type on the vertices and a typed scatter) (all sources or all destinations) commutes with
 *          the scatter: it moves into ApplyVertex and runs on N rows instead
 *          of E, and its result is scattered instead;
 *   fuse   a Gather of edge data whose message is an elementwise expression
 *          of scattered vertex rows becomes one fused gather that evaluates
 *          the expression per edge in registers (OP_GATHER_FUSED), or the
 *          plain gather when the message is a source row (ApplyEdge passes
 *          it through), or the typed gather when it is a typed scatter;
 *   max    a max Gather of unary elementwise ops over a source scatter
 *          (MP-GCN's pooled messages) becomes those ops on the vertices
 *          and the vertex max gather;
 *   sum    what stays on the edges and adds a source row to a destination
 *          row becomes one edge_uaddv (GAT's attention scores);
 * then drops the instructions and values nothing reads. Every rewrite is
 * exact up to floating-point reassociation. Without a fused-gather kernel
 * in the place (fused_kernel 0), only expressions of zero steps fuse. */
#ifndef GS_FUSE_H
#define GS_FUSE_H

#include "program.h"

typedef struct {
    int hoisted; /* ApplyEdge ops moved into ApplyVertex */
    int fused;   /* Scatter-ApplyEdge-Gather chains now one gather */
    int summed;  /* source + destination sums now one edge_uaddv */
} fuse_report_t;

void fuse_rewrite(program_t *p, int fused_kernel, fuse_report_t *r);

#endif
