/* buffer_plan.h - which of a program's tensors may share memory in one
 * training step (forward, loss, backward), and how many bytes they then
 * need: the in-memory executor's buffers and the memory rule's estimate.
 *
 * Tensor 2v is value v's forward result, 2v+1 its gradient; only vertex
 * and edge values are planned (inputs are views, parameters belong to the
 * optimiser). A value lives from the op that writes it to its last reader:
 * forward readers, the vector-Jacobian rules that read it (op_desc_t's
 * bwd_reads), and the loss for the program's output, which lives to the
 * end of the step. A gradient lives from the first rule that writes it
 * (its last consumer's, or the loss) to the rule of the op that produced
 * its value. An elementwise op's output may take the buffer of an operand
 * it reads for the last time (its kernels read each element before
 * writing it), so ReLU, bias and dropout run in place, and their rules
 * write their operand's gradient over their output's (a bias's backward
 * then copies nothing); nothing else aliases. Tensors whose lives do not overlap share a buffer (a slab),
 * largest first, each into the smallest slab it fits beside.
 *
 * Limits: a plan is for one step of the in-memory engine; engines that
 * keep copies of host tensors between ops (streaming, distributed) must
 * not share. Backward rules are assumed to run whenever their output needs
 * a gradient (an upper bound on lifetimes). */
#ifndef GS_BUFFER_PLAN_H
#define GS_BUFFER_PLAN_H

#include "program.h"

typedef struct {
    int ntensors; /* 2 * the program's values */
    int nslab;
    int *slab_of; /* per tensor: its slab, -1 when it is not planned (no memory of its own) */
} buffer_plan_t;

/* Whether instruction in keeps sign bits for its rule where the place's
 * kernels keep them (relu_masks): a RELU whose output needs a gradient. */
int plan_keeps_sign_bits(const program_t *p, const instr_t *in, int relu_masks);
/* Plans p's tensors; bytes[v] is value v's size (its gradient's too);
 * relu_masks: RELU's rules read sign bits kept apart (kops.h), not its
 * output. GS_EFAIL on out of memory. */
int buffer_plan_build(const program_t *p, const double *bytes, int relu_masks, buffer_plan_t *bp, gs_err_t *err);
/* Bytes the plan's slabs need at sizes bytes[] (each slab: its largest member). */
double buffer_plan_bytes(const buffer_plan_t *bp, const double *bytes);
void buffer_plan_free(buffer_plan_t *bp);
/* Host bytes training p on a graph of n vertices and m edges allocates:
 * every vertex and edge value and its gradient (shared: in the slabs of
 * its buffer plan, as the in-memory engine holds them, with RELU's sign
 * bits when relu_masks), the parameters with their gradients and Adam's
 * two moments, gather-max winners and the loss's gradient (n x the output
 * width). For the memory rule (membudget.h) and the peak estimate. */
double prog_memory_bytes(const program_t *p, int64_t n, int64_t m, int shared, int relu_masks);

#endif
