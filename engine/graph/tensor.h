/* tensor.h - dense row-major float32 matrices.
 * A tensor owns its data unless `view` is set. Shapes are (rows, cols);
 * vectors are (1, n). No broadcasting rules live here: ops handle shapes. */
#ifndef GS_TENSOR_H
#define GS_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct {
    int64_t rows, cols;
    float *data; /* (rows, cols), 64-byte aligned */
} tensor_t;

/* Allocates a zeroed (rows, cols) tensor. GS_EFAIL on overflow or OOM. */
int tensor_alloc(tensor_t *t, int64_t rows, int64_t cols, gs_err_t *err);
void tensor_free(tensor_t *t);
static inline int64_t tensor_numel(const tensor_t *t) { return t->rows * t->cols; }
static inline size_t tensor_bytes(const tensor_t *t) { return (size_t)tensor_numel(t) * sizeof(float); }
void tensor_zero(tensor_t *t);
void tensor_copy(tensor_t *dst, const tensor_t *src); /* same shape */

/* Aligned allocation helpers shared by tensors and graph arrays. */
void *gs_aligned_alloc(size_t bytes);

#endif
