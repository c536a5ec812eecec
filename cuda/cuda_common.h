/* cuda_common.h - state and helpers shared by the CUDA plugin's files:
 * the compute table's context (the stream and cuBLAS handle in-memory
 * training runs on, and its scratch), each context's first error that its
 * `sync` reports, and launch-size helpers. Plugin-internal; nothing here is seen
 * by the main binary. */
#ifndef GS_CUDA_COMMON_H
#define GS_CUDA_COMMON_H

#include <cublas_v2.h>
#include <pthread.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "engine/device/cuda_plugin.h"

/* The first failure of a context (a compute table's, or the streaming
 * backend's), which its sync reports, as an asynchronous device reports
 * errors. Each context has its own: one run's failure is never another's. */
typedef struct {
    pthread_mutex_t lock;
    char first[200];
} cu_errors_t;
void cu_errors_init(cu_errors_t *e);
void cu_errors_free(cu_errors_t *e);
/* Records e's first failure (nothing for success). */
void cu_note(cu_errors_t *e, cudaError_t rc, const char *what);
void cu_note_blas(cu_errors_t *e, cublasStatus_t s, const char *what);
/* GS_EFAIL with err naming the first failure (then cleared), or GS_OK. */
int cu_take_error(cu_errors_t *e, gs_err_t *err);
#define CU_LAUNCHED(errs, what) cu_note(errs, cudaGetLastError(), what)

/* What a chunk gather (chunk_gather_kernel) reaches, from host copies of
 * its offsets (nd + 1), listed rows (NULL: rows 0..nd), edge indices and
 * edge ids (NULL: edge q is q): the bytes of in, out and etype from their
 * starts up to the furthest element touched, and the lowest index seen (a
 * negative one reaches before them). For the CPU double's run-time check
 * and GNNSCOPE_CUDA_CHECK's (check_calls.cu). Host code. */
typedef struct {
    long long in_bytes, out_bytes, etype_bytes;
    int64_t lowest;
} cu_reach_t;

static inline cu_reach_t cu_gather_reach(const kernel_call_t *c, const int64_t *ptr, const int32_t *orow, const int32_t *lidx,
                                         const int64_t *eid)
{
    int64_t top = -1, ytop = -1, etop = -1, low = 0;
    for (int64_t q = ptr[0]; q < ptr[c->nd]; q++) {
        int64_t e = eid ? eid[q] : q;
        top = lidx[q] > top ? lidx[q] : top, low = lidx[q] < low ? lidx[q] : low, etop = e > etop ? e : etop;
    }
    for (int64_t r = 0; r < c->nd; r++) {
        int64_t y = orow ? orow[r] : r;
        ytop = y > ytop ? y : ytop, low = y < low ? y : low;
    }
    return (cu_reach_t){4LL * (top + 1) * c->in_cols, 4LL * (ytop + 1) * c->out_cols, 4LL * (etop + 1), low};
}

/* kernel<<<grid, block, shmem, stream>>>(args) under nvcc; under a host
 * compiler, the CPU test double's launch (cuda/cpu_runtime/cuda_runtime.h),
 * so the same kernels run on the CPU in make test-cuda-cpu. */
#ifdef __CUDACC__
#define CU_LAUNCH(kernel, grid, block, shmem, stream, ...) kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)
#else
#define CU_LAUNCH(kernel, grid, block, shmem, stream, ...) \
    cpurt_launch(#kernel, kernel, (grid), (block), (shmem), (stream), __VA_ARGS__)
/* The pointers each structure's kernels read, checked at launch by the
 * CPU test double (cpurt_arg_ok): a chunk gather's, an elementwise op's
 * (not g, which the kernel points at its by-value graph), that graph's
 * dropout keys. */
static inline int cpurt_arg_ok(const kernel_call_t &c)
{
    return cpurt_arg_ok(c.ptr) && cpurt_arg_ok(c.orow) && cpurt_arg_ok(c.lidx) && cpurt_arg_ok(c.eid) && cpurt_arg_ok(c.w) &&
           (!c.typed || cpurt_arg_ok(c.etype)) && cpurt_arg_ok(c.att) && cpurt_arg_ok(c.in) && cpurt_arg_ok(c.out) &&
           cpurt_arg_ok(c.ids) && cpurt_arg_ok(c.win) && cpurt_arg_ok(c.win_in);
}
/* Every address a chunk gather (chunk_gather_kernel) will touch, checked
 * when it is about to run: its offsets, listed rows, edge arrays, the
 * input rows its indices name and the output rows it adds to
 * (cu_gather_reach, with check_calls.cu). */
static inline int cpurt_reads_ok(const char *kernel, const kernel_call_t &c)
{
    if ((c.id != KERN_CHUNK_GATHER && c.id != KERN_CHUNK_ATTN) || c.nd * c.f == 0) return 1;
    if (!cpurt_range_ok(c.ptr, sizeof(int64_t) * (size_t)(c.nd + 1))) return cpurt_bad_read(kernel, "ptr", c.ptr, 8 * (c.nd + 1)), 0;
    if (c.orow && !cpurt_range_ok(c.orow, sizeof(int32_t) * (size_t)c.nd))
        return cpurt_bad_read(kernel, "orow", c.orow, 4 * (size_t)c.nd), 0;
    int64_t q0 = c.ptr[0], edges = c.ptr[c.nd] - q0;
    if (!cpurt_range_ok(c.lidx + q0, sizeof(int32_t) * (size_t)edges)) return cpurt_bad_read(kernel, "lidx", c.lidx + q0, 4 * edges), 0;
    if (c.w && !cpurt_range_ok(c.w + q0, sizeof(float) * (size_t)edges)) return cpurt_bad_read(kernel, "w", c.w + q0, 4 * edges), 0;
    if (c.eid && !cpurt_range_ok(c.eid + q0, sizeof(int64_t) * (size_t)edges)) return cpurt_bad_read(kernel, "eid", c.eid + q0, 8 * edges), 0;
    if (c.att && !cpurt_range_ok(c.att + q0 * c.att_k, sizeof(float) * (size_t)(edges * c.att_k)))
        return cpurt_bad_read(kernel, "att", c.att + q0 * c.att_k, 4 * edges * c.att_k), 0;
    cu_reach_t r = cu_gather_reach(&c, c.ptr, c.orow, c.lidx, c.eid);
    if (r.lowest < 0) return cpurt_bad_read(kernel, "a negative index of in or out", c.lidx, 0), 0;
    if (c.typed && r.etype_bytes && !cpurt_range_ok(c.etype, (size_t)r.etype_bytes)) return cpurt_bad_read(kernel, "etype", c.etype, r.etype_bytes), 0;
    if (!cpurt_range_ok(c.in, (size_t)r.in_bytes)) return cpurt_bad_read(kernel, "in rows", c.in, r.in_bytes), 0;
    if (!cpurt_range_ok(c.out, (size_t)r.out_bytes)) return cpurt_bad_read(kernel, "out rows", c.out, r.out_bytes), 0;
    return 1;
}
static inline int cpurt_arg_ok(const ew_args_t &c)
{
    return cpurt_arg_ok(c.a) && cpurt_arg_ok(c.b) && cpurt_arg_ok(c.c) && cpurt_arg_ok(c.y) && cpurt_arg_ok(c.dy) &&
           cpurt_arg_ok(c.out) && cpurt_arg_ok(c.da) && cpurt_arg_ok(c.db) && cpurt_arg_ok(c.dc) && cpurt_arg_ok(c.mask);
}
static inline int cpurt_arg_ok(const graph_t &g)
{
    return cpurt_arg_ok(g.orig_id) && cpurt_arg_ok(g.in_src) && cpurt_arg_ok(g.in_dst);
}
#endif

/* kops.h's context: a stream and a cuBLAS handle on it, its errors, and
 * the scratch the loss, accuracy and column sums use. */
struct kops_ctx {
    cu_errors_t errs;
    cudaStream_t stream;
    cublasHandle_t blas;
    float *ones; /* (nones) ones for column sums */
    int64_t nones;
    double *scalar;
    unsigned long long *count;
};

/* Checks for a driver and a GPU and selects GPU 0: 0, or -1 with why. */
int cu_init(char *why, size_t n);
/* Row-major c (m, n) (+)= op(a) op(b) on h's stream, FP32 as the CPU computes it. */
void cu_sgemm(cu_errors_t *e, cublasHandle_t h, int ta, int tb, int64_t m, int64_t n, int64_t k, const float *a, const float *b,
              float *c, int acc);
/* out[i] += in[i], i < n. */
void cu_add(cu_errors_t *e, float *out, const float *in, int64_t n, cudaStream_t st);

/* A grid-stride loop over [0, total). */
#define GRID_STRIDE(i, total) \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (total); i += (int64_t)gridDim.x * blockDim.x)

/* A grid-stride loop over the elements of a matrix f wide that also tracks
 * each element's row r and column j: one division per thread, not one per
 * element (a 64-bit division costs a GPU ~100 instructions: on a 1M x 256
 * tensor that was half an elementwise kernel's time on an H200). */
#define GRID_STRIDE_RC(i, r, j, total, f)                                                                              \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, step_ = (int64_t)gridDim.x * blockDim.x,         \
                 r = i / (f), j = i % (f), step_r_ = step_ / (f), step_j_ = step_ % (f);                              \
         i < (total); i += step_, r += step_r_, j += step_j_, (j >= (f) ? (j -= (f), r++) : 0))
/* Blocks for a grid-stride loop whose threads each take several elements. */
#define CU_STRIDE_BLOCKS 4096

static inline unsigned cu_blocks(int64_t work, int threads)
{
    int64_t b = (work + threads - 1) / threads;
    if (b < 1) b = 1;
    return (unsigned)(b > 1048576 ? 1048576 : b); /* kernels use grid-stride loops */
}

/* Blocks of 256 threads for a GRID_STRIDE_RC loop over work elements: at
 * most CU_STRIDE_BLOCKS, each thread taking several. */
static inline unsigned cu_stride_blocks(int64_t work)
{
    unsigned b = cu_blocks(work, 256);
    return b < CU_STRIDE_BLOCKS ? b : CU_STRIDE_BLOCKS;
}

/* Work items of a sparse pull over a CSC/CSR pointer array: a row's edges
 * in pieces of at most CU_SPLIT, so hubs spread over many warps. */
#define CU_SPLIT 512
typedef struct {
    int64_t begin, end;
    int32_t row;
    int32_t split; /* 1: the row has several items, which add atomically */
} cu_item_t;

typedef struct {
    cu_item_t *items;
    int64_t nitems;
    int32_t *split_rows; /* rows with several items (zeroed before an overwrite) */
    int64_t nsplit;
} cu_items_t;

/* Per mirror graph (kept in its aux): the items for CSC (forward, over its
 * n destinations) and CSR (backward, over its nsrc sources). */
typedef struct {
    cu_items_t csc, csr;
} cu_graph_items_t;

const cu_graph_items_t *cu_items_of(cu_errors_t *e, const graph_t *mirror);
int cu_items_build(const graph_t *host, graph_t *mirror, gs_err_t *err);
void cu_items_free(graph_t *mirror);

extern const kops_t cu_kops;
extern const backend_ops_t cu_backend;

/* sparse kernels (sparse_kernels.cu) */
void cu_gather_sum(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *x, int64_t f, float *y, int acc);
void cu_gather_sum_bwd(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dx, int acc);
void cu_gather_max(kops_ctx_t *cx, const graph_t *g, const float *x, int64_t f, float *y, int32_t *argmax);
void cu_gather_max_bwd(kops_ctx_t *cx, const graph_t *g, const int32_t *argmax, const float *dy, int64_t f, float *dx, int acc);
void cu_scatter_src(kops_ctx_t *cx, const graph_t *g, const float *x, int64_t f, float *y);
void cu_scatter_dst(kops_ctx_t *cx, const graph_t *g, const float *x, int64_t f, float *y);
void cu_scatter_src_bwd(kops_ctx_t *cx, const graph_t *g, const float *dy, int64_t f, float *dx, int acc);
void cu_scatter_dst_bwd(kops_ctx_t *cx, const graph_t *g, const float *dy, int64_t f, float *dx, int acc);
void cu_gather_edge(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *m, int64_t f, float *y, int acc);
void cu_gather_edge_bwd(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dm, int acc);
void cu_edge_uaddv(kops_ctx_t *cx, const graph_t *g, const float *l, const float *r, int64_t k, float *s);
void cu_edge_softmax(kops_ctx_t *cx, const graph_t *g, const float *s, int64_t k, float *a);
void cu_edge_softmax_bwd(kops_ctx_t *cx, const graph_t *g, const float *a, const float *da, int64_t k, float *ds, int acc);
void cu_gather_attn(kops_ctx_t *cx, const graph_t *g, const float *x, const float *a, int64_t k, int64_t h, float *y);
void cu_gather_attn_bwd(kops_ctx_t *cx, const graph_t *g, const float *a, const float *dy, int64_t k, int64_t h, float *dx, int acc);
void cu_sddmm(kops_ctx_t *cx, const graph_t *g, const float *p, const float *q, int64_t k, int64_t h, float *out, int acc);
void cu_gather_typed(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *z, int64_t h, float *y, int acc);
void cu_gather_typed_bwd(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *dy, int64_t h, float *dz, int acc);
/* The streaming backend's chunk gather (same rule as backend_cpu's). */
void cu_chunk_gather(cu_errors_t *e, const kernel_call_t *c, cudaStream_t st);
/* Its max gather's four kernels (chunk_max.cu; kernels_chunk_max.h's rule). */
void cu_chunk_max(cu_errors_t *e, const kernel_call_t *c, cudaStream_t st);

/* profiling (cupti_prof.cu): tags for the work issued next */
/* Work issued next by this thread belongs to (dev, tag); its records go to
 * sink (NULL: the hook given to cu_prof_start). */
void cu_prof_tag(int dev, chunk_tag_t tag, const char *name, gpu_span_hook_t sink, void *user);
void cu_prof_untag(void);
int cu_prof_enable(char *why, size_t n); /* CUPTI on, no app hook yet */
int cu_prof_start(gpu_span_hook_t hook, void *user, char *why, size_t n);
void cu_prof_flush(void);
void cu_prof_stop(void);
void cu_prof_metrics(gpu_metrics_t *out);
/* The same over [t0, t1] in CLOCK_MONOTONIC seconds (an epoch, say). */
void cu_prof_metrics_between(double t0, double t1, gpu_metrics_t *out);
/* stage_fill.cu: a staging buffer's host-side copy, split over a pool of
 * host threads: n bytes of src to dst, or (rows non-NULL) rows[0..nrows) of
 * src, row_bytes each, packed into dst. */
typedef struct {
    void *dst;
    const void *src;
    size_t n;
    const int32_t *rows;
    int64_t nrows;
    size_t row_bytes;
} cu_fill_t;
void cu_fill(const cu_fill_t *f);
/* staging.cu: a copy lane's staged transfers through pinned buffers; the
 * lane's stream runs each piece's first half (H2D fill, D2H DMA), and runs
 * the second (H2D DMA, D2H drain) too for a copy of one piece; a longer
 * copy's second halves go to a side stream, so its pieces overlap. */
#define STAGE_BYTES (16u << 20)
#define NSTAGE 3
typedef struct { /* a piece's host side */
    cu_fill_t fill;
    double *filter_s; /* rows: host time added here, under filter_lock */
    pthread_mutex_t *filter_lock;
} cu_stage_job_t;
typedef struct {
    char *buf[NSTAGE];
    cudaEvent_t free_ev[NSTAGE];  /* buffer i's piece finished */
    cudaEvent_t ready_ev[NSTAGE]; /* buffer i's first half done (lane stream), for the side stream */
    cu_stage_job_t job[NSTAGE];
    cudaStream_t side;
    cudaEvent_t side_done; /* the side stream's last piece finished */
    int next, to_device, side_pending;
} cu_stage_t;
int cu_stage_init(cu_stage_t *s, int to_device); /* 0, or -1 (cu_stage_free cleans up) */
void cu_stage_free(cu_stage_t *s);
/* One piece (n <= STAGE_BYTES) between job's host side and dev_ptr, its
 * second half on the side stream when pipelined; the job's buffer end (dst
 * of an H2D, src of a D2H) is the staging buffer's. */
void cu_stage_piece(cu_stage_t *s, cudaStream_t lane, cu_errors_t *e, const cu_stage_job_t *job, void *dev_ptr, size_t n,
                    int pipelined, const char *what);
/* bytes between job.fill.src (H2D) or job.fill.dst (D2H) and dev_ptr, in pieces
 * (pipelined when more than one). */
void cu_stage_bytes(cu_stage_t *s, cudaStream_t lane, cu_errors_t *e, const cu_stage_job_t *job, void *dev_ptr, size_t bytes,
                    const char *what);
/* Makes the lane's stream wait for the side stream's pieces queued so far
 * (before an event or a span's end on the lane). */
void cu_stage_join(cu_stage_t *s, cudaStream_t lane, cu_errors_t *e);
/* check_calls.cu: GNNSCOPE_CUDA_CHECK=1 reads back each H2D transfer and
 * each chunk gather's indices and aborts naming the first that is wrong. */
int cu_check_on(void);
void cu_check_alloc(void *p, size_t bytes);
void cu_check_free(void *p);
void cu_check_h2d(const void *dev, const void *host, size_t n, chunk_tag_t tag, const char *what);
void cu_check_h2d_rows(const void *dev, const void *src, const int32_t *rows, int64_t n, size_t row_bytes, chunk_tag_t tag);
void cu_check_chunk_call(const kernel_call_t *c, chunk_tag_t tag);
/* 1 when CUPTI collects (cu_prof_enable succeeded), else 0. */
int cu_prof_enabled(void);
/* host_spans.cu: a span of the work queued on st between open and close,
 * stamped by host functions in stream order (the path without CUPTI);
 * close hands it to sink from the stream. NULL: out of memory (no span). */
typedef struct host_span host_span_t;
host_span_t *cu_span_open(cudaStream_t st, int dev, lane_t lane, chunk_tag_t tag, const char *name, double bytes,
                          gpu_span_hook_t sink, void *user);
void cu_span_close(cudaStream_t st, host_span_t *s);
/* NVML (nvml_dl.cu) */
void cu_nvml_metrics(gpu_metrics_t *out);

#endif
