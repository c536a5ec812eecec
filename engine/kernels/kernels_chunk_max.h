/* kernels_chunk_max.h - the max gather (MP-GCN, kernels.h's
 * k_gather_max) over one sub-chunk of a streamed pass, on device-local
 * buffers: the cpu backend's device kernels (engine/device/backend_cpu.c).
 * A column's accumulator holds the running max and its winning source
 * row; sub-chunks may come in any order (the swap, the ring), so a tie
 * goes to the smaller source row, which is the first in CSC order, the
 * in-memory kernel's winner: a streamed max equals the in-memory one bit
 * for bit. The backward routes each output gradient element to its winner
 * over the CSR sub-chunks, adding in out-edge order as k_gather_max_bwd
 * does. Each output row has one writer (the thread pool splits rows). */
#ifndef GS_KERNELS_CHUNK_MAX_H
#define GS_KERNELS_CHUNK_MAX_H

#include <stdint.h>

/* One sub-chunk: listed row r (output row orow[r], or r) has edges
 * [ptr[r], ptr[r+1]); edge q reads input row lidx[q] (rows x_stride apart). */
typedef struct {
    const int64_t *ptr;
    const int32_t *orow;
    const int32_t *lidx;
    int64_t f, x_stride, y_stride;
} k_chunk_t;

/* Running max: y = -FLT_MAX and win = -1 over rows (nd, f). */
void k_chunk_max_init(float *y, int32_t *win, int64_t nd, int64_t f);
/* Rows nothing won get 0 (k_gather_max's vertices without in-edges). */
void k_chunk_max_finish(float *y, const int32_t *win, int64_t nd, int64_t f);
/* Forward over nd listed rows: x's edge q comes from global source row
 * in_base + ids[q]; a greater value, or an equal one from a smaller
 * source row, takes the element. */
void k_chunk_max(const k_chunk_t *c, int64_t nd, const float *x, const int32_t *ids, int64_t in_base, float *y, int32_t *win);
/* Backward over nd listed rows of output interval starting at global row
 * out_base: y[orow r] += dy[lidx q] wherever win_in[lidx q] names it. */
void k_chunk_max_bwd(const k_chunk_t *c, int64_t nd, const float *dy, const int32_t *win_in, int64_t out_base, float *y);

#endif
