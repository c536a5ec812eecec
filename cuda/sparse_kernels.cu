/* sparse_kernels.cu - the plugin's graph kernels (kernels.h semantics).
 * Destination-centric and feature-parallel (NeuGraph §3.4, GraphTensor's
 * NAPA): a group of lanes owns one work item (a destination row, or a
 * piece of a hub's edges) and its lanes run along the feature dimension
 * with 16-byte loads where the shapes allow. Pieces of one row add with
 * atomics, so hub rows spread over many blocks; other rows are written
 * once. Results match the CPU reference up to summation order. */
#include <float.h>

#include "cuda_common.h"

/* ---------------- the generic pull ---------------- */

/* kernels.h's k_pull on the GPU: the same arrays, over work items. */
typedef struct {
    const cu_item_t *items;
    int64_t nitems;
    const int32_t *nbr;   /* neighbour at each edge position */
    const int64_t *eid;   /* edge id at each position, NULL: the position */
    const float *w;       /* weight at each position, NULL: 1 */
    const float *x;       /* source rows */
    int64_t x_stride;
    int src_edge;         /* 1: x rows are edge ids, else neighbours */
    const float *att;     /* attention (E, att_k) by edge id; scale of feature j is att[e, j / att_h] */
    int64_t att_k, att_h;
    const int32_t *etype; /* typed: x column offset etype[e] * f */
    float *y;
    int64_t f;
    int acc;
    int group;            /* lanes per item (power of two <= 32) */
} cu_pull_t;

#ifndef __CUDACC__
static inline int cpurt_arg_ok(const cu_pull_t &p) /* the pointers pull_kernel reads (CU_LAUNCH's check on the CPU) */
{
    return cpurt_arg_ok(p.items) && cpurt_arg_ok(p.nbr) && cpurt_arg_ok(p.eid) && cpurt_arg_ok(p.w) && cpurt_arg_ok(p.x) &&
           cpurt_arg_ok(p.att) && cpurt_arg_ok(p.etype) && cpurt_arg_ok(p.y);
}
#endif

template <int VEC>
__global__ void pull_kernel(cu_pull_t p)
{
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = (int)(tid & (p.group - 1));
    int64_t stride = (int64_t)gridDim.x * blockDim.x / p.group;
    for (int64_t it = tid / p.group; it < p.nitems; it += stride) {
        cu_item_t item = p.items[it];
        float *yr = p.y + (int64_t)item.row * p.f;
        for (int64_t j0 = (int64_t)lane * VEC; j0 < p.f; j0 += (int64_t)p.group * VEC) {
            float acc[VEC];
#pragma unroll
            for (int v = 0; v < VEC; v++) acc[v] = 0.0f;
            for (int64_t q = item.begin; q < item.end; q++) {
                int64_t e = p.eid ? p.eid[q] : q;
                int64_t src = p.src_edge ? e : (int64_t)p.nbr[q];
                float s = p.w ? p.w[q] : 1.0f;
                const float *xr = p.x + src * p.x_stride + (p.etype ? (int64_t)p.etype[e] * p.f : 0) + j0;
                if (VEC == 4) {
                    float4 v4 = *(const float4 *)xr;
                    float sc0 = s, sc1 = s, sc2 = s, sc3 = s;
                    if (p.att) {
                        const float *ar = p.att + e * p.att_k;
                        sc0 = s * ar[(j0 + 0) / p.att_h], sc1 = s * ar[(j0 + 1) / p.att_h];
                        sc2 = s * ar[(j0 + 2) / p.att_h], sc3 = s * ar[(j0 + 3) / p.att_h];
                    }
                    acc[0] += sc0 * v4.x, acc[1 % VEC] += sc1 * v4.y, acc[2 % VEC] += sc2 * v4.z, acc[3 % VEC] += sc3 * v4.w;
                } else {
#pragma unroll
                    for (int v = 0; v < VEC; v++)
                        if (j0 + v < p.f) acc[v] += (p.att ? s * p.att[e * p.att_k + (j0 + v) / p.att_h] : s) * xr[v];
                }
            }
#pragma unroll
            for (int v = 0; v < VEC; v++) {
                if (j0 + v >= p.f) break;
                if (item.split) atomicAdd(yr + j0 + v, acc[v]);
                else yr[j0 + v] = p.acc ? yr[j0 + v] + acc[v] : acc[v];
            }
        }
    }
}

__global__ void zero_rows_kernel(const int32_t *rows, int64_t n, float *y, int64_t f)
{
    int64_t total = n * f;
    GRID_STRIDE(i, total)
        y[(int64_t)rows[i / f] * f + i % f] = 0.0f;
}

static int group_for(int64_t f, int vec)
{
    int64_t lanes = (f + vec - 1) / vec;
    int g = 1;
    while (g < 32 && g < lanes) g <<= 1;
    return g;
}

static int aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

static void pull(kops_ctx_t *cx, cu_pull_t p, const cu_items_t *it)
{
    if (it->nitems == 0) return;
    p.items = it->items, p.nitems = it->nitems;
    if (!p.acc && it->nsplit) {
        CU_LAUNCH(zero_rows_kernel, cu_blocks(it->nsplit * p.f, 256), 256, 0, cx->stream, it->split_rows, it->nsplit, p.y, p.f);
        CU_LAUNCHED(&cx->errs, "zero rows");
    }
    int vec4 = p.f % 4 == 0 && p.x_stride % 4 == 0 && aligned16(p.x);
    p.group = group_for(p.f, vec4 ? 4 : 1);
    int64_t threads = p.nitems * p.group;
    if (vec4) CU_LAUNCH(pull_kernel<4>, cu_blocks(threads, 256), 256, 0, cx->stream, p);
    else CU_LAUNCH(pull_kernel<1>, cu_blocks(threads, 256), 256, 0, cx->stream, p);
    CU_LAUNCHED(&cx->errs, "gather");
}


void cu_gather_sum(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *x, int64_t f, float *y, int acc)
{
    cu_pull_t p = {};
    p.nbr = g->in_src, p.w = k_weights_csc(g, w), p.x = x, p.x_stride = f, p.y = y, p.f = f, p.acc = acc;
    pull(cx, p, &cu_items_of(&cx->errs, g)->csc);
}

void cu_gather_sum_bwd(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dx, int acc)
{
    cu_pull_t p = {};
    p.nbr = g->out_dst, p.eid = g->out_eid, p.w = k_weights_csr(g, w), p.x = dy, p.x_stride = f, p.y = dx, p.f = f, p.acc = acc;
    pull(cx, p, &cu_items_of(&cx->errs, g)->csr);
}

void cu_scatter_src_bwd(kops_ctx_t *cx, const graph_t *g, const float *dy, int64_t f, float *dx, int acc)
{
    cu_pull_t p = {};
    p.nbr = g->out_dst, p.eid = g->out_eid, p.src_edge = 1, p.x = dy, p.x_stride = f, p.y = dx, p.f = f, p.acc = acc;
    pull(cx, p, &cu_items_of(&cx->errs, g)->csr);
}

void cu_gather_edge(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *m, int64_t f, float *y, int acc)
{
    cu_pull_t p = {};
    p.nbr = g->in_src, p.src_edge = 1, p.w = k_weights_csc(g, w), p.x = m, p.x_stride = f, p.y = y, p.f = f, p.acc = acc;
    pull(cx, p, &cu_items_of(&cx->errs, g)->csc);
}

void cu_scatter_dst_bwd(kops_ctx_t *cx, const graph_t *g, const float *dy, int64_t f, float *dx, int acc)
{
    cu_gather_edge(cx, g, AGG_ONE, dy, f, dx, acc);
}

void cu_gather_attn(kops_ctx_t *cx, const graph_t *g, const float *x, const float *a, int64_t k, int64_t h, float *y)
{
    cu_pull_t p = {};
    p.nbr = g->in_src, p.x = x, p.x_stride = k * h, p.att = a, p.att_k = k, p.att_h = h, p.y = y, p.f = k * h;
    pull(cx, p, &cu_items_of(&cx->errs, g)->csc);
}

void cu_gather_attn_bwd(kops_ctx_t *cx, const graph_t *g, const float *a, const float *dy, int64_t k, int64_t h, float *dx, int acc)
{
    cu_pull_t p = {};
    p.nbr = g->out_dst, p.eid = g->out_eid, p.x = dy, p.x_stride = k * h, p.att = a, p.att_k = k, p.att_h = h, p.y = dx,
    p.f = k * h, p.acc = acc;
    pull(cx, p, &cu_items_of(&cx->errs, g)->csr);
}

void cu_gather_typed(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *z, int64_t h, float *y, int acc)
{
    cu_pull_t p = {};
    p.nbr = g->in_src, p.w = k_weights_csc(g, w), p.x = z, p.x_stride = (int64_t)g->ntypes * h, p.etype = g->etype, p.y = y,
    p.f = h, p.acc = acc;
    pull(cx, p, &cu_items_of(&cx->errs, g)->csc);
}

/* dZ[u, type(e)*h + j] (+)= w dY[v, j] over u's out-edges: the output block
 * moves with each edge, so every edge adds atomically. */
__global__ void typed_bwd_kernel(const int64_t *ptr, const int32_t *dst, const int64_t *eid, const int32_t *etype,
                                 const float *w, const float *dy, int64_t n, int64_t h, int64_t zf, float *dz)
{
    int64_t total = n * h;
    GRID_STRIDE(i, total) {
        int64_t u = i / h, j = i % h;
        for (int64_t q = ptr[u]; q < ptr[u + 1]; q++) {
            float s = w ? w[q] : 1.0f;
            dz[u * zf + (int64_t)etype[eid[q]] * h + j] += s * dy[(int64_t)dst[q] * h + j];
        }
    }
}

void cu_gather_typed_bwd(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *dy, int64_t h, float *dz, int acc)
{
    int64_t zf = (int64_t)g->ntypes * h;
    if (!acc) cu_note(&cx->errs, cudaMemsetAsync(dz, 0, sizeof(float) * (size_t)(g->nsrc * zf), cx->stream), "memset");
    CU_LAUNCH(typed_bwd_kernel, cu_blocks(g->nsrc * h, 256), 256, 0, cx->stream, g->out_ptr, g->out_dst, g->out_eid, g->etype,
                                                                          k_weights_csr(g, w), dy, g->nsrc, h, zf, dz);
    CU_LAUNCHED(&cx->errs, "gather_typed_bwd");
}

/* ---------------- max ---------------- */

__global__ void gather_max_kernel(const int64_t *ptr, const int32_t *src, const float *x, int64_t n, int64_t f, float *y,
                                  int32_t *am)
{
    int64_t total = n * f;
    GRID_STRIDE(i, total) {
        int64_t v = i / f, j = i % f;
        float best = -FLT_MAX;
        int32_t arg = -1;
        for (int64_t q = ptr[v]; q < ptr[v + 1]; q++) {
            float val = x[(int64_t)src[q] * f + j];
            if (val > best) best = val, arg = src[q];
        }
        y[i] = arg < 0 ? 0.0f : best;
        am[i] = arg;
    }
}

void cu_gather_max(kops_ctx_t *cx, const graph_t *g, const float *x, int64_t f, float *y, int32_t *argmax)
{
    CU_LAUNCH(gather_max_kernel, cu_blocks(g->n * f, 256), 256, 0, cx->stream, g->in_ptr, g->in_src, x, g->n, f, y, argmax);
    CU_LAUNCHED(&cx->errs, "gather_max");
}

__global__ void gather_max_bwd_kernel(const int64_t *ptr, const int32_t *dst, const int32_t *am, const float *dy, int64_t n,
                                      int64_t f, float *dx, int acc)
{
    int64_t total = n * f;
    GRID_STRIDE(i, total) {
        int64_t u = i / f, j = i % f;
        float s = 0.0f;
        for (int64_t q = ptr[u]; q < ptr[u + 1]; q++) {
            int64_t v = dst[q];
            if (am[v * f + j] == (int32_t)u) s += dy[v * f + j];
        }
        dx[i] = acc ? dx[i] + s : s;
    }
}

void cu_gather_max_bwd(kops_ctx_t *cx, const graph_t *g, const int32_t *argmax, const float *dy, int64_t f, float *dx, int acc)
{
    CU_LAUNCH(gather_max_bwd_kernel, cu_blocks(g->nsrc * f, 256), 256, 0, cx->stream, g->out_ptr, g->out_dst, argmax, dy, g->nsrc, f,
                                                                             dx, acc);
    CU_LAUNCHED(&cx->errs, "gather_max_bwd");
}

/* ---------------- per-edge ops ---------------- */

__global__ void rows_by_index_kernel(const int32_t *idx, const float *x, int64_t m, int64_t f, float *y)
{
    int64_t total = m * f;
    GRID_STRIDE(i, total)
        y[i] = x[(int64_t)idx[i / f] * f + i % f];
}

void cu_scatter_src(kops_ctx_t *cx, const graph_t *g, const float *x, int64_t f, float *y)
{
    CU_LAUNCH(rows_by_index_kernel, cu_blocks(g->m * f, 256), 256, 0, cx->stream, g->in_src, x, g->m, f, y);
    CU_LAUNCHED(&cx->errs, "scatter_src");
}

void cu_scatter_dst(kops_ctx_t *cx, const graph_t *g, const float *x, int64_t f, float *y)
{
    CU_LAUNCH(rows_by_index_kernel, cu_blocks(g->m * f, 256), 256, 0, cx->stream, g->in_dst, x, g->m, f, y);
    CU_LAUNCHED(&cx->errs, "scatter_dst");
}

__global__ void edge_bwd_kernel(const int32_t *dst, const float *w, const float *dy, int64_t m, int64_t f, float *dm, int acc)
{
    int64_t total = m * f;
    GRID_STRIDE(i, total) {
        int64_t q = i / f;
        float v = (w ? w[q] : 1.0f) * dy[(int64_t)dst[q] * f + i % f];
        dm[i] = acc ? dm[i] + v : v;
    }
}

void cu_gather_edge_bwd(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dm, int acc)
{
    CU_LAUNCH(edge_bwd_kernel, cu_blocks(g->m * f, 256), 256, 0, cx->stream, g->in_dst, k_weights_csc(g, w), dy, g->m, f, dm, acc);
    CU_LAUNCHED(&cx->errs, "gather_edge_bwd");
}

__global__ void uaddv_kernel(const int32_t *src, const int32_t *dst, const float *l, const float *r, int64_t m, int64_t k,
                             float *s)
{
    int64_t total = m * k;
    GRID_STRIDE(i, total) {
        int64_t q = i / k, j = i % k;
        s[i] = l[(int64_t)src[q] * k + j] + r[(int64_t)dst[q] * k + j];
    }
}

void cu_edge_uaddv(kops_ctx_t *cx, const graph_t *g, const float *l, const float *r, int64_t k, float *s)
{
    CU_LAUNCH(uaddv_kernel, cu_blocks(g->m * k, 256), 256, 0, cx->stream, g->in_src, g->in_dst, l, r, g->m, k, s);
    CU_LAUNCHED(&cx->errs, "edge_uaddv");
}

__global__ void softmax_kernel(const int64_t *ptr, const float *s, int64_t n, int64_t k, float *a)
{
    int64_t total = n * k;
    GRID_STRIDE(i, total) {
        int64_t v = i / k, j = i % k;
        float mx = -FLT_MAX;
        for (int64_t q = ptr[v]; q < ptr[v + 1]; q++) mx = fmaxf(mx, s[q * k + j]);
        float sum = 0.0f;
        for (int64_t q = ptr[v]; q < ptr[v + 1]; q++) sum += expf(s[q * k + j] - mx);
        for (int64_t q = ptr[v]; q < ptr[v + 1]; q++) a[q * k + j] = expf(s[q * k + j] - mx) / sum;
    }
}

void cu_edge_softmax(kops_ctx_t *cx, const graph_t *g, const float *s, int64_t k, float *a)
{
    CU_LAUNCH(softmax_kernel, cu_blocks(g->n * k, 256), 256, 0, cx->stream, g->in_ptr, s, g->n, k, a);
    CU_LAUNCHED(&cx->errs, "edge_softmax");
}

__global__ void softmax_bwd_kernel(const int64_t *ptr, const float *a, const float *da, int64_t n, int64_t k, float *ds, int acc)
{
    int64_t total = n * k;
    GRID_STRIDE(i, total) {
        int64_t v = i / k, j = i % k;
        float dot = 0.0f;
        for (int64_t q = ptr[v]; q < ptr[v + 1]; q++) dot += a[q * k + j] * da[q * k + j];
        for (int64_t q = ptr[v]; q < ptr[v + 1]; q++) {
            float d = a[q * k + j] * (da[q * k + j] - dot);
            ds[q * k + j] = acc ? ds[q * k + j] + d : d;
        }
    }
}

void cu_edge_softmax_bwd(kops_ctx_t *cx, const graph_t *g, const float *a, const float *da, int64_t k, float *ds, int acc)
{
    CU_LAUNCH(softmax_bwd_kernel, cu_blocks(g->n * k, 256), 256, 0, cx->stream, g->in_ptr, a, da, g->n, k, ds, acc);
    CU_LAUNCHED(&cx->errs, "edge_softmax_bwd");
}

/* SDDMM: out[e, j] (+)= <P[dst, j*h : +h], Q[src, j*h : +h]>, one thread per (edge, head). */
__global__ void sddmm_kernel(const int32_t *src, const int32_t *dst, const float *p, const float *q, int64_t m, int64_t k,
                             int64_t h, float *out, int acc)
{
    int64_t total = m * k;
    GRID_STRIDE(i, total) {
        int64_t e = i / k, j = i % k;
        const float *pr = p + (int64_t)dst[e] * k * h + j * h, *qr = q + (int64_t)src[e] * k * h + j * h;
        float s = 0.0f;
        for (int64_t t = 0; t < h; t++) s += pr[t] * qr[t];
        out[i] = acc ? out[i] + s : s;
    }
}

void cu_sddmm(kops_ctx_t *cx, const graph_t *g, const float *p, const float *q, int64_t k, int64_t h, float *out, int acc)
{
    CU_LAUNCH(sddmm_kernel, cu_blocks(g->m * k, 256), 256, 0, cx->stream, g->in_src, g->in_dst, p, q, g->m, k, h, out, acc);
    CU_LAUNCHED(&cx->errs, "sddmm");
}

/* ---------------- the streaming backend's chunk gather ---------------- */

/* out[orow[r]] += sum over the chunk's edges of listed row r: w[k] * in[lidx[k]],
 * with the typed variants of backend.h, and KERN_CHUNK_ATTN's (each head's
 * att_h values of an edge scaled by its attention, att[k * att_k + head],
 * times w[k]). Edge-balanced, as the in-memory
 * pull is: the chunk's edge positions are cut into pieces of CHUNK_PIECE,
 * a group of lanes takes a piece and runs along the features (16-byte
 * loads where the shapes allow). A row of at most CHUNK_LONG edges belongs
 * to the piece its first edge is in, which sums it whole, in edge order,
 * and adds the sum with a plain store; a longer row (a hub) is summed by
 * every piece it overlaps, each adding its part atomically, so hubs spread
 * over many groups. Rows with no edges are skipped. On an H200 (2M
 * vertices out of core) layer 0's forward gathers took 255 ms an epoch
 * with a thread per row and feature (a hub's edges serial in its
 * threads), 26.5 ms so. Limits: a hub's sum is in no fixed order
 * (atomics), as in the pull. */
#define CHUNK_PIECE 128
#define CHUNK_LONG 256

/* Adds the edges [q0, q1) of listed row r into out (atomically when split). */
template <int VEC>
__device__ void chunk_row(const kernel_call_t &c, int64_t r, int64_t q0, int64_t q1, int split, int lane, int group)
{
    int64_t y = c.orow ? c.orow[r] : r;
    for (int64_t j0 = (int64_t)lane * VEC; j0 < c.f; j0 += (int64_t)group * VEC) {
        float acc[VEC];
#pragma unroll
        for (int v = 0; v < VEC; v++) acc[v] = 0.0f;
        for (int64_t q = q0; q < q1; q++) {
            int64_t e = c.eid ? c.eid[q] : q, col = j0;
            if (c.typed == TYPED_IN) col += (int64_t)c.etype[e] * c.f;
            float w = c.w ? c.w[q] : 1.0f;
            if (c.att) w *= c.att[q * c.att_k + j0 / c.att_h]; /* VEC lanes lie in one head (cu_chunk_gather) */
            const float *xr = c.in + (int64_t)c.lidx[q] * c.in_cols + col;
            if (c.typed == TYPED_OUT) {
                float *yr = c.out + y * c.out_cols + (int64_t)c.etype[e] * c.f + j0;
                for (int v = 0; v < VEC && j0 + v < c.f; v++) atomicAdd(yr + v, xr[v] * w);
            } else if (VEC == 4) {
                float4 x4 = *(const float4 *)xr;
                acc[0] += x4.x * w, acc[1 % VEC] += x4.y * w, acc[2 % VEC] += x4.z * w, acc[3 % VEC] += x4.w * w;
            } else {
                for (int v = 0; v < VEC && j0 + v < c.f; v++) acc[v] += xr[v] * w;
            }
        }
        if (c.typed == TYPED_OUT) continue;
        float *yr = c.out + y * c.out_cols + j0;
        for (int v = 0; v < VEC && j0 + v < c.f; v++) {
            if (split) atomicAdd(yr + v, acc[v]);
            else yr[v] += acc[v];
        }
    }
}

template <int VEC>
__global__ void chunk_gather_kernel(kernel_call_t c, int group)
{
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = (int)(tid & (group - 1));
    int64_t stride = (int64_t)gridDim.x * blockDim.x / group;
    int64_t base = c.ptr[0], end = c.ptr[c.nd], npieces = (end - base + CHUNK_PIECE - 1) / CHUNK_PIECE;
    for (int64_t p = tid / group; p < npieces; p += stride) {
        int64_t ps = base + p * CHUNK_PIECE, pe = ps + CHUNK_PIECE < end ? ps + CHUNK_PIECE : end;
        int64_t lo = 0, hi = c.nd - 1; /* the last row starting at or before ps: the one holding edge ps */
        while (lo < hi) {
            int64_t mid = (lo + hi + 1) / 2;
            if (c.ptr[mid] <= ps) lo = mid;
            else hi = mid - 1;
        }
        for (int64_t r = lo; r < c.nd && c.ptr[r] < pe; r++) {
            int64_t rb = c.ptr[r], re = c.ptr[r + 1];
            if (re - rb > CHUNK_LONG) chunk_row<VEC>(c, r, rb > ps ? rb : ps, re < pe ? re : pe, 1, lane, group);
            else if (rb >= ps && re > rb) chunk_row<VEC>(c, r, rb, re, 0, lane, group);
        }
    }
}

__global__ void zero_kernel(float *out, int64_t n)
{
    GRID_STRIDE(i, n) out[i] = 0.0f;
}

__global__ void add_kernel(float *out, const float *in, int64_t n)
{
    GRID_STRIDE(i, n) out[i] += in[i];
}

void cu_add(cu_errors_t *e, float *out, const float *in, int64_t n, cudaStream_t st)
{
    if (n > 0) CU_LAUNCH(add_kernel, cu_blocks(n, 256), 256, 0, st, out, in, n);
    CU_LAUNCHED(e, "add");
}

void cu_chunk_gather(cu_errors_t *e, const kernel_call_t *c, cudaStream_t st)
{
    if (c->id == KERN_ZERO) {
        CU_LAUNCH(zero_kernel, cu_blocks(c->nd * c->out_cols, 256), 256, 0, st, c->out, c->nd * c->out_cols);
    } else {
        if (c->nd * c->f == 0 || c->nnz == 0) return;
        int vec4 = c->f % 4 == 0 && c->in_cols % 4 == 0 && aligned16(c->in) && (!c->att || c->att_h % 4 == 0);
        int group = group_for(c->f, vec4 ? 4 : 1);
        int64_t threads = (c->nnz + CHUNK_PIECE - 1) / CHUNK_PIECE * group;
        if (vec4) CU_LAUNCH(chunk_gather_kernel<4>, cu_blocks(threads, 256), 256, 0, st, *c, group);
        else CU_LAUNCH(chunk_gather_kernel<1>, cu_blocks(threads, 256), 256, 0, st, *c, group);
    }
    CU_LAUNCHED(e, "chunk_gather");
}
