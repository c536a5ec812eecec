/* chunk_max.cu - the max gather's chunk kernels (MP-GCN) of the streaming
 * backend: engine/kernels/kernels_chunk_max.h's rule on the GPU, so a
 * streamed max equals the cpu backend's and the in-memory one bit for bit.
 * A column's accumulator holds each element's running max and its winning
 * source row (-FLT_MAX and -1 after KERN_MAX_INIT); an edge's value wins
 * when greater, or equal from a smaller source row; KERN_MAX_FINISH zeroes
 * what nothing won. The backward adds each listed row's output gradient
 * wherever the forward's winners name that row, in edge order. A thread
 * per (listed row, feature) walks its row's edges in order.
 * Limits: a hub row's edges run serially in its threads (splitting a max
 * over threads would need an atomic update of a (value, row) pair). */
#include <float.h>

#include "cuda_common.h"

__global__ void max_init_kernel(float *y, int32_t *win, int64_t n)
{
    GRID_STRIDE(i, n) y[i] = -FLT_MAX, win[i] = -1;
}

__global__ void max_finish_kernel(float *y, const int32_t *win, int64_t n)
{
    GRID_STRIDE(i, n) if (win[i] < 0) y[i] = 0.0f;
}

__global__ void chunk_max_kernel(kernel_call_t c)
{
    GRID_STRIDE_RC(i, r, j, c.nd * c.f, c.f)
    {
        int64_t at = (c.orow ? c.orow[r] : r) * c.out_cols + j;
        float best = c.out[at];
        int32_t who = c.win[at];
        for (int64_t q = c.ptr[r]; q < c.ptr[r + 1]; q++) {
            float x = c.in[(int64_t)c.lidx[q] * c.in_cols + j];
            int32_t id = (int32_t)(c.in_base + c.ids[q]);
            if (x > best || (x == best && who >= 0 && id < who)) best = x, who = id;
        }
        c.out[at] = best, c.win[at] = who;
    }
}

__global__ void chunk_max_bwd_kernel(kernel_call_t c)
{
    GRID_STRIDE_RC(i, r, j, c.nd * c.f, c.f)
    {
        int64_t o = c.orow ? c.orow[r] : r;
        int32_t u = (int32_t)(c.out_base + o);
        float s = c.out[o * c.out_cols + j];
        for (int64_t q = c.ptr[r]; q < c.ptr[r + 1]; q++) {
            int64_t src = (int64_t)c.lidx[q] * c.in_cols + j;
            if (c.win_in[src] == u) s += c.in[src];
        }
        c.out[o * c.out_cols + j] = s;
    }
}

void cu_chunk_max(cu_errors_t *e, const kernel_call_t *c, cudaStream_t st)
{
    int64_t n = c->nd * c->out_cols, work = c->nd * c->f;
    if (c->id == KERN_MAX_INIT && n) CU_LAUNCH(max_init_kernel, cu_blocks(n, 256), 256, 0, st, c->out, c->win, n);
    if (c->id == KERN_MAX_FINISH && n) CU_LAUNCH(max_finish_kernel, cu_blocks(n, 256), 256, 0, st, c->out, c->win, n);
    if (c->id == KERN_CHUNK_MAX && work) CU_LAUNCH(chunk_max_kernel, cu_stride_blocks(work), 256, 0, st, *c);
    if (c->id == KERN_CHUNK_MAX_BWD && work) CU_LAUNCH(chunk_max_bwd_kernel, cu_stride_blocks(work), 256, 0, st, *c);
    CU_LAUNCHED(e, "chunk_max");
}
