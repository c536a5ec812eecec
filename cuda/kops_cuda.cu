/* kops_cuda.cu - the plugin's compute-op table (kops.h) for training in
 * GPU memory: cudaMalloc'd tensors, the context's stream, cuBLAS for the
 * matrix products (plain FP32, no TF32), and our kernels for everything else.
 * A context's first failure is kept in it and reported by its sync, as an
 * asynchronous device reports them. The graph mirror copies every CSC/CSR array to the device
 * and builds the work items of the sparse pulls (cuda_common.h). */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/kernels/dropout_mask.h"
#include "engine/kernels/train_math.h"
#include "cuda_common.h"

void cu_errors_init(cu_errors_t *e)
{
    pthread_mutex_init(&e->lock, NULL);
    e->first[0] = '\0';
}

void cu_errors_free(cu_errors_t *e) { pthread_mutex_destroy(&e->lock); }

static void note(cu_errors_t *e, const char *what, const char *why)
{
    pthread_mutex_lock(&e->lock);
    if (!e->first[0]) snprintf(e->first, sizeof e->first, "%s: %s", what, why);
    pthread_mutex_unlock(&e->lock);
}

void cu_note(cu_errors_t *e, cudaError_t rc, const char *what)
{
    if (rc != cudaSuccess) note(e, what, cudaGetErrorString(rc));
}

void cu_note_blas(cu_errors_t *e, cublasStatus_t s, const char *what)
{
    char why[32];
    snprintf(why, sizeof why, "cuBLAS status %d", (int)s);
    if (s != CUBLAS_STATUS_SUCCESS) note(e, what, why);
}

int cu_take_error(cu_errors_t *e, gs_err_t *err)
{
    pthread_mutex_lock(&e->lock);
    int bad = e->first[0] != 0;
    if (bad && err) gs_fail(err, GS_EFAIL, "GPU: %s", e->first);
    e->first[0] = '\0';
    pthread_mutex_unlock(&e->lock);
    return bad ? GS_EFAIL : GS_OK;
}

int cu_init(char *why, size_t n)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) { /* say whether a driver is there at all, the likeliest cause */
        void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
        if (!driver) driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (!driver) snprintf(why, n, "no NVIDIA driver on this machine (libcuda.so.1 not found): %s", cudaGetErrorString(e));
        else snprintf(why, n, "%s", cudaGetErrorString(e));
        if (driver) dlclose(driver);
        return -1;
    }
    if (count == 0) {
        snprintf(why, n, "the CUDA driver sees no GPU");
        return -1;
    }
    if ((e = cudaSetDevice(0)) != cudaSuccess) {
        snprintf(why, n, "%s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* ---------------- the context ---------------- */

static void d_close(kops_ctx_t *cx);

static kops_ctx_t *d_open(gs_err_t *err)
{
    kops_ctx_t *cx = (kops_ctx_t *)calloc(1, sizeof *cx);
    if (!cx) {
        gs_fail(err, GS_EFAIL, "out of memory");
        return NULL;
    }
    cu_errors_init(&cx->errs);
    cudaError_t e = cudaStreamCreateWithFlags(&cx->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        gs_fail(err, GS_EFAIL, "GPU: cannot create a stream: %s", cudaGetErrorString(e));
        free(cx);
        return NULL;
    }
    cublasStatus_t s = cublasCreate(&cx->blas);
    if (s != CUBLAS_STATUS_SUCCESS) {
        gs_fail(err, GS_EFAIL, "GPU: cuBLAS cannot start (status %d)", (int)s);
        cudaStreamDestroy(cx->stream);
        free(cx);
        return NULL;
    }
    cublasSetStream(cx->blas, cx->stream);
    cublasSetMathMode(cx->blas, CUBLAS_PEDANTIC_MATH); /* FP32 as the CPU reference computes it */
    return cx;
}

/* ---------------- memory ---------------- */

static void *d_alloc(kops_ctx_t *cx, size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 256) != cudaSuccess) {
        cudaGetLastError(); /* an out-of-memory here is reported by the caller, not sticky */
        return NULL;
    }
    cu_note(&cx->errs, cudaMemsetAsync(p, 0, bytes, cx->stream), "memset");
    return p;
}

static void d_release(kops_ctx_t *cx, void *p)
{
    cudaStreamSynchronize(cx->stream);
    cu_note(&cx->errs, cudaFree(p), "cudaFree");
}
static void d_zero(kops_ctx_t *cx, void *p, size_t bytes) { cu_note(&cx->errs, cudaMemsetAsync(p, 0, bytes, cx->stream), "memset"); }
static void d_copy(kops_ctx_t *cx, void *dst, const void *src, size_t bytes)
{
    if (dst != src) cu_note(&cx->errs, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cx->stream), "copy");
}
static void d_upload(kops_ctx_t *cx, void *dst, const void *host, size_t bytes)
{
    cu_note(&cx->errs, cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, cx->stream), "upload");
    cu_note(&cx->errs, cudaStreamSynchronize(cx->stream), "upload"); /* the caller may free host right after */
}
static void d_download(kops_ctx_t *cx, void *host, const void *src, size_t bytes)
{
    cu_note(&cx->errs, cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, cx->stream), "download");
    cu_note(&cx->errs, cudaStreamSynchronize(cx->stream), "download");
}
static int d_sync(kops_ctx_t *cx, gs_err_t *err)
{
    cu_note(&cx->errs, cudaStreamSynchronize(cx->stream), "kernel");
    return cu_take_error(&cx->errs, err);
}

static void d_close(kops_ctx_t *cx)
{
    if (!cx) return;
    cudaStreamSynchronize(cx->stream);
    if (cx->ones) cudaFree(cx->ones);
    if (cx->scalar) cudaFree(cx->scalar);
    if (cx->count) cudaFree(cx->count);
    cublasDestroy(cx->blas);
    cudaStreamDestroy(cx->stream);
    cu_errors_free(&cx->errs);
    free(cx);
}

static void d_annotate(kops_ctx_t *cx, int layer, int phase, const char *op)
{
    (void)cx;
    chunk_tag_t tag = {(int16_t)layer, (int8_t)phase, -1, -1, -1};
    cu_prof_tag(0, tag, op, NULL, NULL);
}

/* ---------------- graph mirror ---------------- */

#define MIRROR_ARRAYS(X)                                                                                                  \
    X(in_ptr, int64_t, n + 1) X(in_src, int32_t, m) X(in_dst, int32_t, m) X(etype, int32_t, m) X(w_norm, float, m)      \
    X(w_mean, float, m) X(out_ptr, int64_t, nsrc + 1) X(out_dst, int32_t, m) X(out_eid, int64_t, m) X(out_w_norm, float, m) \
    X(out_w_mean, float, m) X(orig_id, int32_t, nsrc)

static void mirror_release(kops_ctx_t *cx, graph_t *g)
{
    (void)cx;
    cu_items_free(g);
#define FREE_ONE(name, type, count) \
    if (g->name) cudaFree(g->name);
    MIRROR_ARRAYS(FREE_ONE)
#undef FREE_ONE
    memset(g, 0, sizeof *g);
}

static int mirror(kops_ctx_t *cx, const graph_t *h, graph_t *g, gs_err_t *err)
{
    memset(g, 0, sizeof *g);
    g->n = h->n, g->nsrc = h->nsrc, g->nbase = h->nbase, g->m = h->m, g->ntypes = h->ntypes;
    int64_t n = h->n, nsrc = h->nsrc, m = h->m;
    (void)n, (void)nsrc, (void)m;
#define COPY_ONE(name, type, count)                                                                                  \
    if (h->name) {                                                                                                   \
        size_t bytes = sizeof(type) * (size_t)(count);                                                               \
        if (!(g->name = (type *)d_alloc(cx, bytes))) {                                                                \
            mirror_release(cx, g);                                                                                       \
            return gs_fail(err, GS_EINPUT, "the graph does not fit in GPU memory (%s: %zu bytes)", #name, bytes);   \
        }                                                                                                            \
        d_upload(cx, g->name, h->name, bytes);                                                                           \
    }
    MIRROR_ARRAYS(COPY_ONE)
#undef COPY_ONE
    int rc = cu_items_build(h, g, err);
    if (!rc) rc = d_sync(cx, err);
    if (rc) mirror_release(cx, g);
    return rc;
}

/* ---------------- gemm ---------------- */

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T. */
void cu_sgemm(cu_errors_t *e, cublasHandle_t h, int ta, int tb, int64_t m, int64_t n, int64_t k, const float *a,
              const float *b, float *c, int acc)
{
    if (m == 0 || n == 0) return;
    if (k == 0) {
        if (!acc) {
            cudaStream_t st;
            cublasGetStream(h, &st);
            cu_note(e, cudaMemsetAsync(c, 0, sizeof(float) * (size_t)(m * n), st), "memset");
        }
        return;
    }
    const float one = 1.0f, beta = acc ? 1.0f : 0.0f;
    cu_note_blas(e, cublasSgemm(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, (int)n, (int)m,
                             (int)k, &one, b, tb ? (int)k : (int)n, a, ta ? (int)m : (int)k, &beta, c, (int)n),
                 "sgemm");
}

static void d_gemm(kops_ctx_t *cx, int ta, int tb, int64_t m, int64_t n, int64_t k, const float *a, const float *b,
                   float *c, int acc)
{
    cu_sgemm(&cx->errs, cx->blas, ta, tb, m, n, k, a, b, c, acc);
}

/* ---------------- elementwise ---------------- */

__device__ static float drop_scale(const ew_args_t &c, int64_t r, int64_t j)
{
    if (c.fp == 0.0f) return 1.0f;
    uint64_t rk = gs_drop_row_key(c.key, c.g->orig_id, c.g->in_src, c.g->in_dst, c.edge, r);
    return gs_drop_scale(rk, j, c.fp);
}

__global__ void ew_fwd_kernel(ew_args_t c, graph_t gv)
{
    c.g = &gv;
    int64_t f = c.cols;
    GRID_STRIDE_RC(i, r, j, c.rows * f, f)
    {
        float a = c.a[i], y = 0.0f;
        switch (c.op) {
        case OP_BIAS: y = a + c.b[j]; break;
        case OP_ADD: y = a + c.b[i]; break;
        case OP_MUL: y = a * c.b[i]; break;
        case OP_LERP: y = (1.0f - a) * c.b[i] + a * c.c[i]; break;
        case OP_RELU: y = a > 0 ? a : 0.0f; break;
        case OP_LEAKY_RELU: y = a > 0 ? a : c.fp * a; break;
        case OP_ELU: y = a > 0 ? a : expm1f(a); break;
        case OP_SIGMOID: y = 1.0f / (1.0f + expf(-a)); break;
        case OP_TANH: y = tanhf(a); break;
        case OP_DROPOUT: y = a * drop_scale(c, r, j); break;
        default: break;
        }
        c.out[i] = y;
    }
}

__global__ void ew_bwd_kernel(ew_args_t c, graph_t gv)
{
    c.g = &gv;
    int64_t f = c.cols;
    GRID_STRIDE_RC(i, r, j, c.rows * f, f)
    {
        float dy = c.dy[i], a = c.a[i];
        switch (c.op) {
        case OP_BIAS:
        case OP_ADD:
            if (c.da) GS_PUT(c.da[i], c.acc_a, dy);
            if (c.db && c.op == OP_ADD) GS_PUT(c.db[i], c.acc_b, dy);
            break;
        case OP_MUL:
            if (c.da) GS_PUT(c.da[i], c.acc_a, dy * c.b[i]);
            if (c.db) GS_PUT(c.db[i], c.acc_b, dy * a);
            break;
        case OP_LERP:
            if (c.da) GS_PUT(c.da[i], c.acc_a, dy * (c.c[i] - c.b[i]));
            if (c.db) GS_PUT(c.db[i], c.acc_b, dy * (1.0f - a));
            if (c.dc) GS_PUT(c.dc[i], c.acc_c, dy * a);
            break;
        case OP_RELU: GS_PUT(c.da[i], c.acc_a, c.y[i] > 0 ? dy : 0.0f); break;
        case OP_LEAKY_RELU: GS_PUT(c.da[i], c.acc_a, a > 0 ? dy : c.fp * dy); break;
        case OP_ELU: GS_PUT(c.da[i], c.acc_a, a > 0 ? dy : dy * (c.y[i] + 1.0f)); break;
        case OP_SIGMOID: GS_PUT(c.da[i], c.acc_a, dy * c.y[i] * (1.0f - c.y[i])); break;
        case OP_TANH: GS_PUT(c.da[i], c.acc_a, dy * (1.0f - c.y[i] * c.y[i])); break;
        case OP_DROPOUT: GS_PUT(c.da[i], c.acc_a, dy * drop_scale(c, r, j)); break;
        default: break;
        }
    }
}

static graph_t drop_graph(const ew_args_t *a)
{
    graph_t g;
    memset(&g, 0, sizeof g);
    if (a->op == OP_DROPOUT && a->g) g = *a->g;
    return g;
}

static void d_ew_forward(kops_ctx_t *cx, const ew_args_t *a)
{
    if (a->rows * a->cols == 0) return;
    CU_LAUNCH(ew_fwd_kernel, cu_stride_blocks(a->rows * a->cols), 256, 0, cx->stream, *a, drop_graph(a));
    CU_LAUNCHED(&cx->errs, "elementwise");
}

static void d_ew_backward(kops_ctx_t *cx, const ew_args_t *a)
{
    if ((!a->da && !a->db && !a->dc) || a->rows * a->cols == 0) return;
    CU_LAUNCH(ew_bwd_kernel, cu_stride_blocks(a->rows * a->cols), 256, 0, cx->stream, *a, drop_graph(a));
    CU_LAUNCHED(&cx->errs, "elementwise");
}

/* ---------------- column sums (bias gradients) through gemv ---------------- */

static void d_colsum(kops_ctx_t *cx, const float *x, int64_t rows, int64_t cols, float *out, int acc)
{
    if (rows > cx->nones) {
        float *h = (float *)malloc(sizeof(float) * (size_t)rows);
        if (!h) return cu_note(&cx->errs, cudaErrorMemoryAllocation, "colsum");
        for (int64_t i = 0; i < rows; i++) h[i] = 1.0f;
        if (cx->ones) d_release(cx, cx->ones);
        cx->ones = (float *)d_alloc(cx, sizeof(float) * (size_t)rows);
        if (!cx->ones) {
            free(h);
            cx->nones = 0;
            return cu_note(&cx->errs, cudaErrorMemoryAllocation, "colsum");
        }
        d_upload(cx, cx->ones, h, sizeof(float) * (size_t)rows);
        free(h);
        cx->nones = rows;
    }
    const float one = 1.0f, beta = acc ? 1.0f : 0.0f;
    /* x (rows, cols) row-major is (cols, rows) column-major: out = x^T 1 */
    cu_note_blas(&cx->errs, cublasSgemv(cx->blas, CUBLAS_OP_N, (int)cols, (int)rows, &one, x, (int)cols, cx->ones, 1, &beta, out, 1),
                 "colsum");
}

/* ---------------- head dot ---------------- */

__global__ void head_dot_kernel(const float *a, const float *w, int64_t rows, int64_t k, int64_t h, float *y)
{
    GRID_STRIDE(i, rows * k)
    {
        int64_t j = i % k;
        float s = 0.0f;
        for (int64_t t = 0; t < h; t++) s += a[i * h + t] * w[j * h + t];
        y[i] = s;
    }
}

__global__ void head_dot_da_kernel(const float *w, const float *dy, int64_t rows, int64_t k, int64_t h, float *da, int acc)
{
    GRID_STRIDE(i, rows * k * h)
    {
        int64_t rk = i / h, jt = i % (k * h);
        GS_PUT(da[i], acc, dy[rk] * w[jt]);
    }
}

/* dw[j, t] += sum over a block of rows of dy[r, j] a[r, j, t] */
__global__ void head_dot_dw_kernel(const float *a, const float *dy, int64_t rows, int64_t k, int64_t h, float *dw)
{
    int64_t kh = k * h, per = (rows + gridDim.x - 1) / gridDim.x;
    int64_t r0 = blockIdx.x * per, r1 = r0 + per < rows ? r0 + per : rows;
    for (int64_t c = threadIdx.x; c < kh; c += blockDim.x) {
        float s = 0.0f;
        for (int64_t r = r0; r < r1; r++) s += dy[r * k + c / h] * a[r * kh + c];
        atomicAdd(dw + c, s);
    }
}

static void d_head_dot(kops_ctx_t *cx, const float *a, const float *w, int64_t rows, int64_t k, int64_t h, float *y)
{
    CU_LAUNCH(head_dot_kernel, cu_blocks(rows * k, 256), 256, 0, cx->stream, a, w, rows, k, h, y);
    CU_LAUNCHED(&cx->errs, "head_dot");
}

static void d_head_dot_bwd(kops_ctx_t *cx, const float *a, const float *w, const float *dy, int64_t rows, int64_t k,
                           int64_t h, float *da, int acc_a, float *dw, int acc_w)
{
    if (da) CU_LAUNCH(head_dot_da_kernel, cu_blocks(rows * k * h, 256), 256, 0, cx->stream, w, dy, rows, k, h, da, acc_a);
    if (dw) {
        if (!acc_w) d_zero(cx, dw, sizeof(float) * (size_t)(k * h));
        CU_LAUNCH(head_dot_dw_kernel, 256, 128, 0, cx->stream, a, dy, rows, k, h, dw);
    }
    CU_LAUNCHED(&cx->errs, "head_dot_bwd");
}

/* ---------------- loss, accuracy, optimiser ---------------- */

__global__ void xent_kernel(const float *z, int64_t c, const int32_t *label, const int32_t *idx, int64_t n, int64_t counted,
                            float *dz, double *loss)
{
    GRID_STRIDE(i, n)
    {
        int64_t v = idx[i];
        if (label[v] < 0) continue;
        atomicAdd(loss, gs_xent_row(z + v * c, c, label[v], counted, dz ? dz + v * c : NULL));
    }
}

static double d_xent(kops_ctx_t *cx, const float *logits, int64_t nrows, int64_t c, const int32_t *label,
                     const int32_t *idx, int64_t n, int64_t counted, float *dlogits, int unlisted_zero)
{
    (void)unlisted_zero; /* every row zeroed first: the kernel writes only the labelled rows */
    if (dlogits) d_zero(cx, dlogits, sizeof(float) * (size_t)(nrows * c));
    if (counted == 0) return 0;
    if (!cx->scalar && !(cx->scalar = (double *)d_alloc(cx, sizeof(double)))) return NAN;
    d_zero(cx, cx->scalar, sizeof(double));
    CU_LAUNCH(xent_kernel, cu_blocks(n, 128), 128, 0, cx->stream, logits, c, label, idx, n, counted, dlogits, cx->scalar);
    CU_LAUNCHED(&cx->errs, "xent");
    double total = 0;
    d_download(cx, &total, cx->scalar, sizeof total);
    return total / (double)counted;
}

__global__ void correct_kernel(const float *z, int64_t c, const int32_t *label, const int32_t *idx, int64_t n,
                               unsigned long long *ok)
{
    GRID_STRIDE(i, n)
    {
        int64_t v = idx[i];
        if (label[v] < 0) continue;
        const float *zr = z + v * c;
        int64_t best = 0;
        for (int64_t j = 1; j < c; j++)
            if (zr[j] > zr[best]) best = j;
        if (best == label[v]) atomicAdd(ok, 1ull);
    }
}

static int64_t d_correct(kops_ctx_t *cx, const float *logits, int64_t c, const int32_t *label, const int32_t *idx,
                         int64_t n)
{
    if (n == 0) return 0;
    if (!cx->count && !(cx->count = (unsigned long long *)d_alloc(cx, sizeof *cx->count))) return 0;
    d_zero(cx, cx->count, sizeof *cx->count);
    CU_LAUNCH(correct_kernel, cu_blocks(n, 128), 128, 0, cx->stream, logits, c, label, idx, n, cx->count);
    CU_LAUNCHED(&cx->errs, "accuracy");
    unsigned long long ok = 0;
    d_download(cx, &ok, cx->count, sizeof ok);
    return (int64_t)ok;
}

__global__ void adam_kernel(float *w, const float *g, float *m, float *v, int64_t n, float wd, gs_adam_step_t a)
{
    GRID_STRIDE(j, n) gs_adam_elem(w, g, m, v, j, wd, a);
}

static void d_adam(kops_ctx_t *cx, float *w, const float *g, float *m, float *v, int64_t n, float lr, float wd, float c1,
                   float c2)
{
    if (n == 0) return;
    CU_LAUNCH(adam_kernel, cu_blocks(n, 256), 256, 0, cx->stream, w, g, m, v, n, wd, gs_adam_factors(lr, c1, c2));
    CU_LAUNCHED(&cx->errs, "adam");
}

const kops_t cu_kops = {
    "cuda",
    1,
    d_open,
    d_close,
    d_alloc,
    d_release,
    d_zero,
    d_copy,
    d_upload,
    d_download,
    d_sync,
    d_annotate,
    mirror,
    mirror_release,
    d_gemm,
    cu_gather_sum,
    cu_gather_sum_bwd,
    cu_gather_max,
    cu_gather_max_bwd,
    cu_scatter_src,
    cu_scatter_dst,
    cu_scatter_src_bwd,
    cu_scatter_dst_bwd,
    cu_gather_edge,
    cu_gather_edge_bwd,
    cu_edge_uaddv,
    cu_edge_softmax,
    cu_edge_softmax_bwd,
    cu_gather_attn,
    cu_gather_attn_bwd,
    cu_sddmm,
    cu_gather_typed,
    cu_gather_typed_bwd,
    d_ew_forward,
    d_ew_backward,
    d_colsum,
    d_head_dot,
    d_head_dot_bwd,
    d_xent,
    d_correct,
    d_adam,
    NULL, /* gather_fused: no device kernel yet; the fusion pass only hoists on this place */
    NULL, /* gather_fused_bwd */
    NULL, /* scatter_typed: GG-NN's plain program (--fuse off) is refused on this place */
    NULL, /* scatter_typed_bwd */
    NULL, /* edge_matmul_typed */
    NULL, /* edge_matmul_typed_bwd */
    NULL, /* gather_edge_max: MP-GCN's plain program (--fuse off) is refused on this place */
    NULL, /* gather_edge_max_bwd */
    0,    /* relu_masks: ReLU's rule reads its output (no sign-bit kernel yet) */
};
