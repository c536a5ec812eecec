/* fused_args.h - what a fused gather's kernel (kernels_fused.h) works on,
 * in-memory or over one sub-chunk of a streamed pass: the listed rows of
 * one side (destinations over the CSC, or sources over the CSR: the
 * "own" side, whose rows the kernel writes), each with its edges to rows
 * of the other side, and the leaves' rows on either side. Kept apart from
 * kernels_fused.h so the device layer's kernel call (backend.h) can carry
 * it by value. */
#ifndef GS_FUSED_ARGS_H
#define GS_FUSED_ARGS_H

#include <stdint.h>

#include "engine/program/program_types.h"

/* Rows r in [0, nd): own row orow[r] (or r when orow is NULL); its edges
 * q in [ptr[r], ptr[r + 1]) reach the other side's row nbr[q], weight
 * w[q] (1 when w is NULL). */
typedef struct {
    const int64_t *ptr;
    const int32_t *orow, *nbr;
    const float *w;
    int64_t nd;
} fused_edges_t;

/* The expression and its operands: leaf k's rows start at leaf[k] and are
 * numbered by own row (bit k of own_mask) or by the other side's row.
 * Forward: out[0] (own rows) gets each row's weighted sum. Backward: dy
 * is the output's gradient (numbered by own row when dy_own), and out[k]
 * of each own-side leaf that wants a gradient gets it (NULL: not
 * wanted). A sum starts from out's row when `add` (a streamed column's
 * running sum) or from 0; then the row is written, or added to with
 * acc[k] (the in-memory kernel's gradient that is not the first). All
 * rows are f values wide. */
typedef struct {
    const fused_expr_t *e;
    const float *leaf[FUSE_MAX_LEAVES];
    unsigned own_mask;
    const float *dy;
    int dy_own;
    float *out[FUSE_MAX_LEAVES];
    int acc[FUSE_MAX_LEAVES];
    int add;
    int64_t f;
} fused_args_t;

#endif
