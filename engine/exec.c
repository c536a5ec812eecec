/* exec.c - forward execution of op programs and the derived backward pass.
 * Each op has a forward rule and a vector-Jacobian rule; backward walks the
 * program in reverse and accumulates into input gradients. The first write
 * to a gradient overwrites it, later ones add, so nothing is zeroed. */
#include "exec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"
#include "threadpool.h"

/* ---------------- parameters ---------------- */

int params_init(params_t *ps, const program_t *prog, uint64_t seed, gs_err_t *err)
{
    memset(ps, 0, sizeof *ps);
    ps->n = prog->nparams;
    ps->w = calloc((size_t)ps->n + 1, sizeof(tensor_t));
    ps->g = calloc((size_t)ps->n + 1, sizeof(tensor_t));
    ps->m = calloc((size_t)ps->n + 1, sizeof(tensor_t));
    ps->v = calloc((size_t)ps->n + 1, sizeof(tensor_t));
    ps->names = calloc((size_t)ps->n + 1, sizeof *ps->names);
    if (!ps->w || !ps->g || !ps->m || !ps->v || !ps->names) return gs_fail(err, GS_EFAIL, "out of memory");
    for (int i = 0; i < prog->nvals; i++) {
        const value_t *v = &prog->vals[i];
        if (v->dom != DOM_PARAM) continue;
        int k = v->param, rc;
        if ((rc = tensor_alloc(&ps->w[k], v->rows, v->cols, err)) || (rc = tensor_alloc(&ps->g[k], v->rows, v->cols, err)) ||
            (rc = tensor_alloc(&ps->m[k], v->rows, v->cols, err)) || (rc = tensor_alloc(&ps->v[k], v->rows, v->cols, err)))
            return rc;
        memcpy(ps->names[k], v->name, sizeof ps->names[k]);
        if (v->init == INIT_GLOROT) {
            float lim = sqrtf(6.0f / (float)(v->rows + v->cols));
            for (int64_t j = 0; j < v->rows * v->cols; j++)
                ps->w[k].data[j] = lim * (2.0f * gs_uniform(gs_hash3(seed, 0x1417 + (uint64_t)k, (uint64_t)j)) - 1.0f);
        }
    }
    return GS_OK;
}

void params_free(params_t *ps)
{
    for (int i = 0; i < ps->n; i++) {
        tensor_free(&ps->w[i]), tensor_free(&ps->g[i]), tensor_free(&ps->m[i]), tensor_free(&ps->v[i]);
    }
    free(ps->w), free(ps->g), free(ps->m), free(ps->v), free(ps->names);
    memset(ps, 0, sizeof *ps);
}

int64_t params_count(const params_t *ps)
{
    int64_t n = 0;
    for (int i = 0; i < ps->n; i++) n += tensor_numel(&ps->w[i]);
    return n;
}

/* ---------------- setup ---------------- */

static int64_t rows_of(const exec_t *ex, const value_t *v)
{
    return v->dom == DOM_EDGE ? ex->g->m : v->dom == DOM_PARAM ? v->rows : ex->g->n;
}

int exec_init(exec_t *ex, const program_t *prog, const graph_t *g, params_t *params, uint64_t seed, gs_err_t *err)
{
    memset(ex, 0, sizeof *ex);
    ex->prog = prog, ex->g = g, ex->params = params, ex->seed = seed;
    ex->val = calloc((size_t)prog->nvals, sizeof(tensor_t));
    ex->grad = calloc((size_t)prog->nvals, sizeof(tensor_t));
    ex->grad_set = calloc((size_t)prog->nvals, 1);
    ex->argmax = calloc((size_t)prog->ncode + 1, sizeof(int32_t *));
    if (!ex->val || !ex->grad || !ex->grad_set || !ex->argmax) return gs_fail(err, GS_EFAIL, "out of memory");
    for (int i = 0; i < prog->nvals; i++) {
        const value_t *v = &prog->vals[i];
        int rc;
        if (v->dom == DOM_PARAM) {
            ex->val[i] = params->w[v->param];
            ex->grad[i] = params->g[v->param];
            continue;
        }
        if (v->dom == DOM_INPUT) continue;
        if ((rc = tensor_alloc(&ex->val[i], rows_of(ex, v), v->cols, err))) return rc;
        if (v->requires_grad && (rc = tensor_alloc(&ex->grad[i], rows_of(ex, v), v->cols, err))) return rc;
    }
    for (int i = 0; i < prog->ncode; i++)
        if (prog->code[i].op == OP_GATHER_MAX) {
            size_t cnt = (size_t)(g->n * prog->vals[prog->code[i].out].cols);
            ex->argmax[i] = malloc(sizeof(int32_t) * (cnt ? cnt : 1));
            if (!ex->argmax[i]) return gs_fail(err, GS_EFAIL, "out of memory");
        }
    return GS_OK;
}

void exec_free(exec_t *ex)
{
    if (!ex->prog) return;
    for (int i = 0; i < ex->prog->nvals; i++) {
        val_domain_t d = ex->prog->vals[i].dom;
        if (d == DOM_VERTEX || d == DOM_EDGE) tensor_free(&ex->val[i]), tensor_free(&ex->grad[i]);
    }
    for (int i = 0; i < ex->prog->ncode; i++) free(ex->argmax[i]);
    free(ex->val), free(ex->grad), free(ex->grad_set), free(ex->argmax);
    memset(ex, 0, sizeof *ex);
}

/* ---------------- elementwise ops ---------------- */

typedef struct {
    op_kind_t op;
    const float *a, *b, *c, *y, *dy;
    float *out, *da, *db, *dc;
    int acc_a, acc_b, acc_c;
    int64_t cols;
    float fp;
    /* dropout */
    const graph_t *g;
    int edge;
    uint64_t key;
} ew_ctx_t;

#define PUT(dst, accflag, v) ((accflag) ? ((dst) += (v)) : ((dst) = (v)))

/* Dropout mask row hash: the row's original vertex id (or its edge's
 * original endpoints), so masks do not depend on order or chunking. */
static inline uint64_t drop_row_key(const ew_ctx_t *c, int64_t r)
{
    const graph_t *g = c->g;
    uint64_t rid = c->edge ? ((uint64_t)(uint32_t)g->orig_id[g->in_src[r]] << 32 | (uint32_t)g->orig_id[g->in_dst[r]])
                           : (uint64_t)(uint32_t)g->orig_id[r];
    return gs_hash2(c->key, rid);
}

/* 1/(1-p) if element (r, j) is kept, else 0. 16-bit threshold resolution. */
static inline float drop_scale(uint64_t rowkey, int64_t j, float p)
{
    uint64_t h = gs_mix64(rowkey + (uint64_t)(j >> 2));
    uint32_t bits = (uint32_t)(h >> (16 * (j & 3))) & 0xffffu;
    return (float)bits < p * 65536.0f ? 0.0f : 1.0f / (1.0f - p);
}

static void ew_forward_range(void *p, int64_t rb, int64_t re)
{
    const ew_ctx_t *c = p;
    int64_t f = c->cols;
    for (int64_t r = rb; r < re; r++) {
        const float *a = c->a + r * f, *b = c->b ? c->b + r * f : NULL;
        float *y = c->out + r * f;
        switch (c->op) {
        case OP_BIAS: for (int64_t j = 0; j < f; j++) y[j] = a[j] + c->b[j]; break;
        case OP_ADD: for (int64_t j = 0; j < f; j++) y[j] = a[j] + b[j]; break;
        case OP_MUL: for (int64_t j = 0; j < f; j++) y[j] = a[j] * b[j]; break;
        case OP_LERP: {
            const float *z = a, *x0 = b, *x1 = c->c + r * f;
            for (int64_t j = 0; j < f; j++) y[j] = (1.0f - z[j]) * x0[j] + z[j] * x1[j];
            break;
        }
        case OP_RELU: for (int64_t j = 0; j < f; j++) y[j] = a[j] > 0 ? a[j] : 0.0f; break;
        case OP_LEAKY_RELU: for (int64_t j = 0; j < f; j++) y[j] = a[j] > 0 ? a[j] : c->fp * a[j]; break;
        case OP_ELU: for (int64_t j = 0; j < f; j++) y[j] = a[j] > 0 ? a[j] : expm1f(a[j]); break;
        case OP_SIGMOID: for (int64_t j = 0; j < f; j++) y[j] = 1.0f / (1.0f + expf(-a[j])); break;
        case OP_TANH: for (int64_t j = 0; j < f; j++) y[j] = tanhf(a[j]); break;
        case OP_DROPOUT: {
            uint64_t rk = drop_row_key(c, r);
            for (int64_t j = 0; j < f; j++) y[j] = a[j] * drop_scale(rk, j, c->fp);
            break;
        }
        default: break;
        }
    }
}

static void ew_backward_range(void *p, int64_t rb, int64_t re)
{
    const ew_ctx_t *c = p;
    int64_t f = c->cols;
    for (int64_t r = rb; r < re; r++) {
        const float *dy = c->dy + r * f, *a = c->a + r * f, *y = c->y + r * f;
        float *da = c->da ? c->da + r * f : NULL, *db = c->db ? c->db + r * f : NULL;
        switch (c->op) {
        case OP_BIAS:
        case OP_ADD:
            if (da) for (int64_t j = 0; j < f; j++) PUT(da[j], c->acc_a, dy[j]);
            if (db && c->op == OP_ADD) for (int64_t j = 0; j < f; j++) PUT(db[j], c->acc_b, dy[j]);
            break;
        case OP_MUL: {
            const float *b = c->b + r * f;
            if (da) for (int64_t j = 0; j < f; j++) PUT(da[j], c->acc_a, dy[j] * b[j]);
            if (db) for (int64_t j = 0; j < f; j++) PUT(db[j], c->acc_b, dy[j] * a[j]);
            break;
        }
        case OP_LERP: {
            const float *x0 = c->b + r * f, *x1 = c->c + r * f;
            float *dc = c->dc ? c->dc + r * f : NULL;
            if (da) for (int64_t j = 0; j < f; j++) PUT(da[j], c->acc_a, dy[j] * (x1[j] - x0[j]));
            if (db) for (int64_t j = 0; j < f; j++) PUT(db[j], c->acc_b, dy[j] * (1.0f - a[j]));
            if (dc) for (int64_t j = 0; j < f; j++) PUT(dc[j], c->acc_c, dy[j] * a[j]);
            break;
        }
        case OP_RELU: for (int64_t j = 0; j < f; j++) PUT(da[j], c->acc_a, y[j] > 0 ? dy[j] : 0.0f); break;
        case OP_LEAKY_RELU: for (int64_t j = 0; j < f; j++) PUT(da[j], c->acc_a, a[j] > 0 ? dy[j] : c->fp * dy[j]); break;
        case OP_ELU: for (int64_t j = 0; j < f; j++) PUT(da[j], c->acc_a, a[j] > 0 ? dy[j] : dy[j] * (y[j] + 1.0f)); break;
        case OP_SIGMOID: for (int64_t j = 0; j < f; j++) PUT(da[j], c->acc_a, dy[j] * y[j] * (1.0f - y[j])); break;
        case OP_TANH: for (int64_t j = 0; j < f; j++) PUT(da[j], c->acc_a, dy[j] * (1.0f - y[j] * y[j])); break;
        case OP_DROPOUT: {
            uint64_t rk = drop_row_key(c, r);
            for (int64_t j = 0; j < f; j++) PUT(da[j], c->acc_a, dy[j] * drop_scale(rk, j, c->fp));
            break;
        }
        default: break;
        }
    }
}

static int64_t ew_grain(int64_t cols) { return cols >= 4096 ? 1 : 4096 / (cols ? cols : 1); }

/* Column sums of (R, M) into out (1, M) with fixed-order partials. */
#define COLSUM_BLOCKS 64
typedef struct {
    const float *x;
    int64_t rows, cols;
    float *partial; /* (COLSUM_BLOCKS, cols) */
} colsum_ctx_t;

static void colsum_range(void *p, int64_t b, int64_t e)
{
    const colsum_ctx_t *c = p;
    for (int64_t blk = b; blk < e; blk++) {
        float *acc = c->partial + blk * c->cols;
        memset(acc, 0, sizeof(float) * (size_t)c->cols);
        int64_t r0 = c->rows * blk / COLSUM_BLOCKS, r1 = c->rows * (blk + 1) / COLSUM_BLOCKS;
        for (int64_t r = r0; r < r1; r++)
            for (int64_t j = 0; j < c->cols; j++) acc[j] += c->x[r * c->cols + j];
    }
}

static void colsum(const float *x, int64_t rows, int64_t cols, float *out, int acc)
{
    float *partial = malloc(sizeof(float) * (size_t)(COLSUM_BLOCKS * cols));
    colsum_ctx_t c = {x, rows, cols, partial};
    gs_parallel_for(COLSUM_BLOCKS, 1, colsum_range, &c);
    for (int64_t j = 0; j < cols; j++) {
        float s = 0;
        for (int b = 0; b < COLSUM_BLOCKS; b++) s += partial[b * cols + j];
        out[j] = acc ? out[j] + s : s;
    }
    free(partial);
}

/* ---------------- head dot (GAT attention projections) ---------------- */

static void head_dot_fwd(const float *a, const float *w, int64_t rows, int64_t k, int64_t h, float *y)
{
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < k; j++) {
            float s = 0;
            for (int64_t t = 0; t < h; t++) s += a[r * k * h + j * h + t] * w[j * h + t];
            y[r * k + j] = s;
        }
}

static void head_dot_bwd(const float *a, const float *w, const float *dy, int64_t rows, int64_t k, int64_t h, float *da,
                         int acc_a, float *dw, int acc_w)
{
    if (dw && !acc_w) memset(dw, 0, sizeof(float) * (size_t)(k * h));
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < k; j++) {
            float g = dy[r * k + j];
            for (int64_t t = 0; t < h; t++) {
                int64_t idx = r * k * h + j * h + t;
                if (da) PUT(da[idx], acc_a, g * w[j * h + t]);
                if (dw) dw[j * h + t] += g * a[idx];
            }
        }
}

/* ---------------- forward ---------------- */

static void stream_or_fail(exec_t *ex, int rc)
{
    if (rc) ex->failed = 1;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Files a timing sample for the DKP cost model (two features, seconds). */
static void sample(double (*rows)[3], int *n, double x1, double x2, double t)
{
    if (*n >= 64) return;
    rows[*n][0] = x1, rows[*n][1] = x2, rows[*n][2] = t;
    (*n)++;
}

static const float *D(exec_t *ex, int v) { return ex->val[v].data; }

const tensor_t *exec_forward(exec_t *ex, const tensor_t *x, int training, int64_t epoch)
{
    const program_t *P = ex->prog;
    const graph_t *g = ex->g;
    ex->val[P->input] = *x;
    ex->training = training;
    ex->epoch = epoch;
    ex->flops = 0;
    for (int i = 0; i < P->ncode; i++) {
        const instr_t *in = &P->code[i];
        tensor_t *out = &ex->val[in->out];
        const tensor_t *A = &ex->val[in->in[0]];
        int64_t f = out->cols, rows = out->rows;
        double t0 = ex->samples || ex->on_op ? mono_s() : 0, flops0 = ex->flops;
        switch (in->op) {
        case OP_MATMUL:
            k_gemm(0, 0, A->rows, f, A->cols, A->data, D(ex, in->in[1]), out->data, 0);
            ex->flops += 2.0 * (double)A->rows * (double)A->cols * (double)f;
            if (ex->samples)
                sample(ex->samples->gemm, &ex->samples->ngemm, (double)A->rows * A->cols * f, (double)A->rows * f, mono_s() - t0);
            break;
        case OP_DROPOUT:
            if (!training || in->fparam == 0.0f) {
                tensor_copy(out, A);
                break;
            }
            /* fall through */
        case OP_BIAS: case OP_ADD: case OP_MUL: case OP_LERP: case OP_RELU: case OP_LEAKY_RELU:
        case OP_ELU: case OP_SIGMOID: case OP_TANH: {
            ew_ctx_t c = {.op = in->op, .a = A->data, .b = in->nin > 1 ? D(ex, in->in[1]) : NULL,
                          .c = in->nin > 2 ? D(ex, in->in[2]) : NULL, .out = out->data, .cols = f, .fp = in->fparam,
                          .g = g, .edge = P->vals[in->out].dom == DOM_EDGE,
                          .key = gs_hash3(ex->seed, (uint64_t)epoch, (uint64_t)in->iparam)};
            gs_parallel_for(rows, ew_grain(f), ew_forward_range, &c);
            ex->flops += (double)rows * (double)f;
            break;
        }
        case OP_HEAD_DOT:
            head_dot_fwd(A->data, D(ex, in->in[1]), rows, in->iparam, A->cols / in->iparam, out->data);
            ex->flops += 2.0 * (double)rows * (double)A->cols;
            break;
        case OP_GATHER:
            if (ex->stream) stream_or_fail(ex, streamer_gather(ex->stream, (agg_weight_t)in->iparam, TYPED_NONE,
                                                               A->data, f, out->data, f, f, 0, in->layer, &ex->err));
            else k_gather_sum(g, (agg_weight_t)in->iparam, A->data, f, out->data, 0);
            ex->flops += 2.0 * (double)g->m * (double)f;
            if (ex->samples)
                sample(ex->samples->gather, &ex->samples->ngather, (double)g->m * f, (double)g->n * f, mono_s() - t0);
            break;
        case OP_GATHER_MAX:
            k_gather_max(g, A->data, f, out->data, ex->argmax[i]);
            ex->flops += (double)g->m * (double)f;
            break;
        case OP_SCATTER_SRC: k_scatter_src(g, A->data, f, out->data); break;
        case OP_SCATTER_DST: k_scatter_dst(g, A->data, f, out->data); break;
        case OP_GATHER_EDGE:
            k_gather_edge(g, (agg_weight_t)in->iparam, A->data, f, out->data, 0);
            ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        case OP_EDGE_UADDV: k_edge_uaddv(g, A->data, D(ex, in->in[1]), f, out->data); break;
        case OP_EDGE_SOFTMAX:
            k_edge_softmax(g, A->data, f, out->data);
            ex->flops += 4.0 * (double)g->m * (double)f;
            break;
        case OP_GATHER_ATTN:
            k_gather_attn(g, A->data, D(ex, in->in[1]), in->iparam, f / in->iparam, out->data);
            ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        case OP_GATHER_TYPED:
            if (ex->stream) stream_or_fail(ex, streamer_gather(ex->stream, (agg_weight_t)in->iparam, TYPED_IN,
                                                               A->data, A->cols, out->data, f, f, 0, in->layer, &ex->err));
            else k_gather_typed(g, (agg_weight_t)in->iparam, A->data, f, out->data, 0);
            ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        default: break;
        }
        if (ex->on_op) ex->on_op(ex->op_user, in, 0, t0, mono_s(), ex->flops - flops0);
    }
    return &ex->val[P->output];
}

/* ---------------- backward ---------------- */

/* The gradient buffer of value v, or NULL when v needs none. *acc tells
 * whether to add (an earlier op already wrote it) or overwrite. */
static float *gtarget(exec_t *ex, int v, int *acc)
{
    if (v < 0 || !ex->prog->vals[v].requires_grad) return NULL;
    *acc = ex->grad_set[v];
    ex->grad_set[v] = 1;
    return ex->grad[v].data;
}

void exec_backward(exec_t *ex, const tensor_t *dout)
{
    const program_t *P = ex->prog;
    const graph_t *g = ex->g;
    memset(ex->grad_set, 0, (size_t)P->nvals);
    int oacc;
    float *go = gtarget(ex, P->output, &oacc);
    if (!go) return;
    memcpy(go, dout->data, tensor_bytes(dout));
    for (int i = P->ncode - 1; i >= 0; i--) {
        const instr_t *in = &P->code[i];
        if (!ex->grad_set[in->out]) continue; /* no gradient flows here */
        const float *dy = ex->grad[in->out].data;
        const tensor_t *A = &ex->val[in->in[0]], *Y = &ex->val[in->out];
        int64_t f = Y->cols, rows = Y->rows;
        int acc_a = 0, acc_b = 0, acc_c = 0;
        double t0 = ex->on_op ? mono_s() : 0, flops0 = ex->flops;
        float *da = gtarget(ex, in->in[0], &acc_a);
        float *db = in->nin > 1 ? gtarget(ex, in->in[1], &acc_b) : NULL;
        float *dc = in->nin > 2 ? gtarget(ex, in->in[2], &acc_c) : NULL;
        switch (in->op) {
        case OP_MATMUL:
            if (da) k_gemm(0, 1, A->rows, A->cols, f, dy, D(ex, in->in[1]), da, acc_a);
            if (db) k_gemm(1, 0, A->cols, f, A->rows, A->data, dy, db, acc_b);
            ex->flops += 2.0 * (double)A->rows * (double)A->cols * (double)f * ((da != NULL) + (db != NULL));
            break;
        case OP_BIAS:
            if (db) colsum(dy, rows, f, db, acc_b);
            db = NULL;
            /* fall through */
        case OP_DROPOUT:
            if (in->op == OP_DROPOUT && (!ex->training || in->fparam == 0.0f)) {
                if (da)
                    for (int64_t j = 0; j < rows * f; j++) PUT(da[j], acc_a, dy[j]);
                break;
            }
            /* fall through */
        case OP_ADD: case OP_MUL: case OP_LERP: case OP_RELU: case OP_LEAKY_RELU: case OP_ELU:
        case OP_SIGMOID: case OP_TANH: {
            ew_ctx_t c = {.op = in->op, .a = A->data, .b = in->nin > 1 ? D(ex, in->in[1]) : NULL,
                          .c = in->nin > 2 ? D(ex, in->in[2]) : NULL, .y = Y->data, .dy = dy, .da = da, .db = db,
                          .dc = dc, .acc_a = acc_a, .acc_b = acc_b, .acc_c = acc_c, .cols = f, .fp = in->fparam,
                          .g = g, .edge = P->vals[in->out].dom == DOM_EDGE,
                          .key = gs_hash3(ex->seed, (uint64_t)ex->epoch, (uint64_t)in->iparam)};
            if (!da && !db && !dc) break;
            gs_parallel_for(rows, ew_grain(f), ew_backward_range, &c);
            ex->flops += 2.0 * (double)rows * (double)f;
            break;
        }
        case OP_HEAD_DOT:
            head_dot_bwd(A->data, D(ex, in->in[1]), dy, rows, in->iparam, A->cols / in->iparam, da, acc_a, db, acc_b);
            ex->flops += 4.0 * (double)rows * (double)A->cols;
            break;
        case OP_GATHER:
            if (da && ex->stream)
                stream_or_fail(ex, streamer_gather_bwd(ex->stream, (agg_weight_t)in->iparam, TYPED_NONE,
                                                       dy, f, da, f, f, acc_a, in->layer, &ex->err));
            else if (da) k_gather_sum_bwd(g, (agg_weight_t)in->iparam, dy, f, da, acc_a);
            ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        case OP_GATHER_MAX:
            if (da) k_gather_max_bwd(g, ex->argmax[i], dy, f, da, acc_a);
            break;
        case OP_SCATTER_SRC: if (da) k_scatter_src_bwd(g, dy, f, da, acc_a); break;
        case OP_SCATTER_DST: if (da) k_scatter_dst_bwd(g, dy, f, da, acc_a); break;
        case OP_GATHER_EDGE:
            if (da) k_gather_edge_bwd(g, (agg_weight_t)in->iparam, dy, f, da, acc_a);
            break;
        case OP_EDGE_UADDV:
            if (da) k_scatter_src_bwd(g, dy, f, da, acc_a);
            if (db) k_scatter_dst_bwd(g, dy, f, db, acc_b);
            break;
        case OP_EDGE_SOFTMAX:
            if (da) k_edge_softmax_bwd(g, Y->data, dy, f, da, acc_a);
            break;
        case OP_GATHER_ATTN: {
            int64_t k = in->iparam, h = f / k;
            if (da) k_gather_attn_bwd(g, D(ex, in->in[1]), dy, k, h, da, acc_a);
            if (db) k_sddmm(g, dy, A->data, k, h, db, acc_b);
            ex->flops += 4.0 * (double)g->m * (double)f;
            break;
        }
        case OP_GATHER_TYPED:
            if (da && ex->stream)
                stream_or_fail(ex, streamer_gather_bwd(ex->stream, (agg_weight_t)in->iparam, TYPED_OUT,
                                                       dy, f, da, A->cols, f, acc_a, in->layer, &ex->err));
            else if (da) k_gather_typed_bwd(g, (agg_weight_t)in->iparam, dy, f, da, acc_a);
            ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        default: break;
        }
        if (ex->on_op) ex->on_op(ex->op_user, in, 1, t0, mono_s(), ex->flops - flops0);
    }
    /* parameters that received no gradient this pass get zero */
    for (int v = 0; v < P->nvals; v++)
        if (P->vals[v].dom == DOM_PARAM && !ex->grad_set[v]) tensor_zero(&ex->grad[v]);
}
