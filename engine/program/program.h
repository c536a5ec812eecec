/* program.h - SAGA-NN layers as op programs (docs/ARCHITECTURE.md, "Data flow").
 * A model is one straight-line program over values: the input features,
 * parameters, vertex tensors (N, *) and edge tensors (E, *). Each
 * instruction is a primitive op with a known derivative, tagged with its
 * layer and SAGA stage. The backward pass is derived by walking the program
 * in reverse (exec.c); no model writes a backward pass by hand. Because the
 * program is data, passes such as DKP reordering rewrite it (dkp.c). */
#ifndef GS_PROGRAM_H
#define GS_PROGRAM_H

#include <stdint.h>

#include "program_types.h"

void prog_init(program_t *p, int ntypes);
void prog_free(program_t *p);
int prog_input(program_t *p, int64_t cols);
int prog_param(program_t *p, const char *name, int64_t rows, int64_t cols, init_kind_t init);
/* Appends an instruction; returns the new value, or -1 (p->failed set). */
int prog_op(program_t *p, op_kind_t op, int a, int b, int c, float fparam, int iparam);
static inline void prog_at(program_t *p, int layer, saga_stage_t stage)
{
    p->cur_layer = layer;
    p->cur_stage = stage;
}
/* Removes instructions whose results are never used (after rewrites), and
 * the values nothing reads or writes any more, renumbering the rest in
 * order (parameters keep their order and indices). */
void prog_prune(program_t *p);
/* Inserts instruction `in` before position pos, its output a new value of
 * domain dom and width cols; returns the value, or -1 (p->failed set). */
int prog_insert(program_t *p, int pos, instr_t in, val_domain_t dom, int64_t cols);
/* Files a fused expression; returns its index, or -1 (p->failed set). */
int prog_add_fused(program_t *p, const fused_expr_t *e);
/* Bytes of every edge value and its gradient on a graph of m edges. */
double prog_edge_bytes(const program_t *p, int64_t m);
/* Whether the program has attention heads (--heads shapes it). */
int prog_uses_heads(const program_t *p);

#endif
