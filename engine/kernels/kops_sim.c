/* kops_sim.c - the host's compute-op table for --simulate (kops.h): the
 * same ops as kops_cpu, each doing nothing. A simulated run keeps every
 * decision that depends on the graph's structure and every time the
 * virtual clock charges (the executor and the backend charge ops by their
 * FLOPs and bytes, not by running them), while no vertex tensor is read
 * or written: memory comes from calloc, whose large blocks stay unmapped
 * zero pages until touched, so a paper-size graph's tensors cost address
 * space, not RAM. Uploads and downloads still copy (labels, splits and
 * parameters: small, and the host reads some). Losses and accuracies do not exist (xent is NaN,
 * correct 0); the trainer reports them as absent. */
#include "kops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"

static kops_ctx_t *s_open(gs_err_t *err) { return NULL; }
static void s_close(kops_ctx_t *cx) {}
static void *s_alloc(kops_ctx_t *cx, size_t bytes) { return calloc(1, bytes ? bytes : 64); }
static void s_release(kops_ctx_t *cx, void *p) { free(p); }
static void s_zero(kops_ctx_t *cx, void *p, size_t bytes) {}
static void s_copy(kops_ctx_t *cx, void *dst, const void *src, size_t bytes) {}
/* Crossings are real: the labels, splits and parameters are small and the host reads them (the sampler its targets). */
static void s_cross(kops_ctx_t *cx, void *dst, const void *src, size_t bytes)
{
    if (dst != src) memmove(dst, src, bytes);
}
static int s_sync(kops_ctx_t *cx, gs_err_t *err) { return GS_OK; }
static int s_mirror(kops_ctx_t *cx, const graph_t *host, graph_t *out, gs_err_t *err)
{
    *out = *host;
    return GS_OK;
}
static void s_mirror_release(kops_ctx_t *cx, graph_t *mirror) {}
static void s_gemm(kops_ctx_t *cx, int ta, int tb, int64_t m, int64_t n, int64_t k, const float *a, const float *b,
                   float *c, int acc)
{
}
static void s_gsum(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *x, int64_t f, float *y, int acc) {}
static void s_gmax(kops_ctx_t *cx, const graph_t *g, const float *x, int64_t f, float *y, int32_t *am) {}
static void s_gmax_bwd(kops_ctx_t *cx, const graph_t *g, const int32_t *am, const float *dy, int64_t f, float *dx,
                       int acc)
{
}
static void s_scatter(kops_ctx_t *cx, const graph_t *g, const float *x, int64_t f, float *y) {}
static void s_scatter_bwd(kops_ctx_t *cx, const graph_t *g, const float *dy, int64_t f, float *dx, int acc) {}
static void s_uaddv(kops_ctx_t *cx, const graph_t *g, const float *l, const float *r, int64_t k, float *s) {}
static void s_softmax(kops_ctx_t *cx, const graph_t *g, const float *s, int64_t k, float *a) {}
static void s_softmax_bwd(kops_ctx_t *cx, const graph_t *g, const float *a, const float *da, int64_t k, float *ds,
                          int acc)
{
}
static void s_attn(kops_ctx_t *cx, const graph_t *g, const float *x, const float *a, int64_t k, int64_t h, float *y) {}
static void s_attn_bwd(kops_ctx_t *cx, const graph_t *g, const float *a, const float *dy, int64_t k, int64_t h,
                       float *dx, int acc)
{
}
static void s_sddmm(kops_ctx_t *cx, const graph_t *g, const float *p, const float *q, int64_t k, int64_t h, float *o,
                    int acc)
{
}
static void s_typed(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *z, int64_t h, float *y, int acc) {}
static void s_ew(kops_ctx_t *cx, const ew_args_t *a) {}
static void s_colsum(kops_ctx_t *cx, const float *x, int64_t rows, int64_t cols, float *out, int acc) {}
static void s_head_dot(kops_ctx_t *cx, const float *a, const float *w, int64_t rows, int64_t k, int64_t h, float *y) {}
static void s_head_dot_bwd(kops_ctx_t *cx, const float *a, const float *w, const float *dy, int64_t rows, int64_t k,
                           int64_t h, float *da, int acc_a, float *dw, int acc_w)
{
}
static double s_xent(kops_ctx_t *cx, const float *logits, int64_t nrows, int64_t c, const int32_t *label,
                     const int32_t *idx, int64_t n, int64_t counted, float *dlogits, int unlisted_zero)
{
    return NAN;
}
static int64_t s_correct(kops_ctx_t *cx, const float *logits, int64_t c, const int32_t *label, const int32_t *idx,
                         int64_t n)
{
    return 0;
}
static void s_adam(kops_ctx_t *cx, float *w, const float *g, float *m, float *v, int64_t n, float lr, float wd,
                   float c1, float c2)
{
}
static void s_fused(kops_ctx_t *cx, const graph_t *g, const fused_expr_t *e, const float *const *leaf, int64_t f,
                    float *y)
{
}
static void s_fused_bwd(kops_ctx_t *cx, const graph_t *g, const fused_expr_t *e, const float *const *leaf,
                        const float *dy, int64_t f, float *const *dleaf, const int *acc)
{
}
static void s_scatter_typed(kops_ctx_t *cx, const graph_t *g, const float *z, int64_t h, float *y) {}
static void s_scatter_typed_bwd(kops_ctx_t *cx, const graph_t *g, const float *dy, int64_t h, float *dz, int acc) {}
static void s_edge_mm(kops_ctx_t *cx, const graph_t *g, const float *x, const float *a, int64_t k, int64_t m, float *y)
{
}
static void s_edge_mm_bwd(kops_ctx_t *cx, const graph_t *g, const float *x, const float *a, const float *dy, int64_t k,
                          int64_t m, float *dx, int acc_x, float *da, int acc_a)
{
}

const kops_t kops_sim = {
    .name = "cpu (simulated)",
    .device = 0,
    .open = s_open,
    .close = s_close,
    .alloc = s_alloc,
    .release = s_release,
    .zero = s_zero,
    .copy = s_copy,
    .upload = s_cross,
    .download = s_cross,
    .sync = s_sync,
    .graph_mirror = s_mirror,
    .graph_release = s_mirror_release,
    .gemm = s_gemm,
    .gather_sum = s_gsum,
    .gather_sum_bwd = s_gsum,
    .gather_max = s_gmax,
    .gather_max_bwd = s_gmax_bwd,
    .scatter_src = s_scatter,
    .scatter_dst = s_scatter,
    .scatter_src_bwd = s_scatter_bwd,
    .scatter_dst_bwd = s_scatter_bwd,
    .gather_edge = s_gsum,
    .gather_edge_bwd = s_gsum,
    .edge_uaddv = s_uaddv,
    .edge_softmax = s_softmax,
    .edge_softmax_bwd = s_softmax_bwd,
    .gather_attn = s_attn,
    .gather_attn_bwd = s_attn_bwd,
    .sddmm = s_sddmm,
    .gather_typed = s_typed,
    .gather_typed_bwd = s_typed,
    .ew_forward = s_ew,
    .ew_backward = s_ew,
    .colsum = s_colsum,
    .head_dot = s_head_dot,
    .head_dot_bwd = s_head_dot_bwd,
    .xent = s_xent,
    .correct = s_correct,
    .adam = s_adam,
    .gather_fused = s_fused,
    .gather_fused_bwd = s_fused_bwd,
    .scatter_typed = s_scatter_typed,
    .scatter_typed_bwd = s_scatter_typed_bwd,
    .edge_matmul_typed = s_edge_mm,
    .edge_matmul_typed_bwd = s_edge_mm_bwd,
    .gather_edge_max = s_gmax,
    .gather_edge_max_bwd = s_gmax_bwd,
};

kplace_t kplace_sim(void) { return (kplace_t){&kops_sim, NULL}; }
