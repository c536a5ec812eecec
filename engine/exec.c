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

/* ---------------- parameters ---------------- */

static int alloc_in(const kops_t *K, tensor_t *t, int64_t rows, int64_t cols, gs_err_t *err)
{
    t->rows = rows, t->cols = cols;
    t->data = K->alloc(sizeof(float) * (size_t)(rows * cols));
    if (!t->data) return gs_fail(err, GS_EFAIL, "out of %s memory for a (%lld, %lld) tensor", K->name, (long long)rows, (long long)cols);
    return GS_OK;
}

static void free_in(const kops_t *K, tensor_t *t)
{
    if (t->data) K->release(t->data);
    t->data = NULL;
}

int params_init(params_t *ps, const program_t *prog, uint64_t seed, const kops_t *K, gs_err_t *err)
{
    memset(ps, 0, sizeof *ps);
    ps->K = K;
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
        if ((rc = alloc_in(K, &ps->w[k], v->rows, v->cols, err)) || (rc = alloc_in(K, &ps->g[k], v->rows, v->cols, err)) ||
            (rc = alloc_in(K, &ps->m[k], v->rows, v->cols, err)) || (rc = alloc_in(K, &ps->v[k], v->rows, v->cols, err)))
            return rc;
        memcpy(ps->names[k], v->name, sizeof ps->names[k]);
        if (v->init == INIT_GLOROT) {
            tensor_t init;
            if ((rc = tensor_alloc(&init, v->rows, v->cols, err))) return rc;
            float lim = sqrtf(6.0f / (float)(v->rows + v->cols));
            for (int64_t j = 0; j < v->rows * v->cols; j++)
                init.data[j] = lim * (2.0f * gs_uniform(gs_hash3(seed, 0x1417 + (uint64_t)k, (uint64_t)j)) - 1.0f);
            K->upload(ps->w[k].data, init.data, tensor_bytes(&init));
            tensor_free(&init);
        }
    }
    return GS_OK;
}

void params_free(params_t *ps)
{
    for (int i = 0; i < ps->n && ps->w; i++) {
        free_in(ps->K, &ps->w[i]), free_in(ps->K, &ps->g[i]), free_in(ps->K, &ps->m[i]), free_in(ps->K, &ps->v[i]);
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
    ex->prog = prog, ex->g = g, ex->params = params, ex->seed = seed, ex->K = params->K;
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
        if ((rc = alloc_in(ex->K, &ex->val[i], rows_of(ex, v), v->cols, err))) return rc;
        if (v->requires_grad && (rc = alloc_in(ex->K, &ex->grad[i], rows_of(ex, v), v->cols, err))) return rc;
    }
    for (int i = 0; i < prog->ncode; i++)
        if (prog->code[i].op == OP_GATHER_MAX) {
            size_t cnt = (size_t)(g->n * prog->vals[prog->code[i].out].cols);
            ex->argmax[i] = ex->K->alloc(sizeof(int32_t) * (cnt ? cnt : 1));
            if (!ex->argmax[i]) return gs_fail(err, GS_EFAIL, "out of %s memory for gather-max winners", ex->K->name);
        }
    return GS_OK;
}

void exec_free(exec_t *ex)
{
    if (!ex->prog) return;
    for (int i = 0; i < ex->prog->nvals; i++) {
        val_domain_t d = ex->prog->vals[i].dom;
        if (d == DOM_VERTEX || d == DOM_EDGE) free_in(ex->K, &ex->val[i]), free_in(ex->K, &ex->grad[i]);
    }
    for (int i = 0; i < ex->prog->ncode; i++)
        if (ex->argmax[i]) ex->K->release(ex->argmax[i]);
    free(ex->val), free(ex->grad), free(ex->grad_set), free(ex->argmax);
    memset(ex, 0, sizeof *ex);
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

/* Seconds since t0 of the op just issued (waiting for a device to finish it). */
static double op_seconds(exec_t *ex, double t0)
{
    if (ex->K->device) ex->K->sync(&ex->err);
    return mono_s() - t0;
}

/* Files a timing sample for the DKP cost model (two features, seconds). */
static void sample(double (*rows)[3], int *n, double x1, double x2, double t)
{
    if (*n >= 64) return;
    rows[*n][0] = x1, rows[*n][1] = x2, rows[*n][2] = t;
    (*n)++;
}

static const float *D(exec_t *ex, int v) { return ex->val[v].data; }

/* With a streamer, a vertex-by-weight matmul (ApplyVertex) runs on the
 * devices; edge-domain matmuls stay on the host. */
int exec_streams_matmul(const program_t *P, const instr_t *in)
{
    if (in->op != OP_MATMUL) return 0;
    val_domain_t a = P->vals[in->in[0]].dom;
    return (a == DOM_VERTEX || a == DOM_INPUT) && P->vals[in->in[1]].dom == DOM_PARAM;
}

static int streamed_matmul(const exec_t *ex, const instr_t *in) { return ex->stream && exec_streams_matmul(ex->prog, in); }

/* Whether the op runs on the devices (its writes are the streamer's to track). */
static int streamed_op(const exec_t *ex, const instr_t *in)
{
    return streamed_matmul(ex, in) || (ex->stream && (in->op == OP_GATHER || in->op == OP_GATHER_TYPED));
}

/* Tells the memory plan that a host op wrote value v (data): the devices'
 * copies of it are stale. Only vertex tensors are ever kept. */
static void host_wrote(exec_t *ex, int v, const float *data)
{
    if (ex->stream && v >= 0 && data && ex->prog->vals[v].dom == DOM_VERTEX)
        streamer_host_wrote(ex->stream, data, ex->prog->vals[v].cols);
}

/* The drop probability in force: dropout is the identity outside training. */
static float dropout_p(const exec_t *ex, const instr_t *in)
{
    return in->op == OP_DROPOUT && !ex->training ? 0.0f : in->fparam;
}

/* Books an op's FLOPs to its layer's aggregation count when it belongs to
 * the Gather stage (after a DKP rewrite the stage moves with the gather). */
static void count_aggregation(exec_t *ex, const instr_t *in, int phase, double flops)
{
    if (in->stage == STAGE_GATHER && in->layer >= 0 && in->layer < PROG_MAX_LAYERS)
        ex->agg_flops[in->layer][phase] += flops;
}

const tensor_t *exec_forward(exec_t *ex, const tensor_t *x, int training, int64_t epoch)
{
    const program_t *P = ex->prog;
    const graph_t *g = ex->g;
    const kops_t *K = ex->K;
    ex->val[P->input] = *x;
    ex->training = training;
    ex->epoch = epoch;
    ex->flops = 0;
    if (training) memset(ex->agg_flops, 0, sizeof ex->agg_flops);
    for (int i = 0; i < P->ncode; i++) {
        const instr_t *in = &P->code[i];
        tensor_t *out = &ex->val[in->out];
        const tensor_t *A = &ex->val[in->in[0]];
        int64_t f = out->cols, rows = out->rows;
        if (K->annotate) K->annotate(in->layer, 0, op_name(in->op));
        if (ex->samples && K->device) K->sync(&ex->err); /* kernel timings need an idle device */
        double t0 = ex->samples || ex->on_op ? mono_s() : 0, flops0 = ex->flops;
        switch (in->op) {
        case OP_MATMUL:
            if (streamed_matmul(ex, in))
                stream_or_fail(ex, streamer_matmul(ex->stream, A->data, A->cols, D(ex, in->in[1]), f, out->data,
                                                   in->layer, &ex->err));
            else K->gemm(0, 0, A->rows, f, A->cols, A->data, D(ex, in->in[1]), out->data, 0);
            ex->flops += 2.0 * (double)A->rows * (double)A->cols * (double)f;
            if (ex->samples)
                sample(ex->samples->gemm, &ex->samples->ngemm, (double)A->rows * A->cols * f, (double)A->rows * f, op_seconds(ex, t0));
            break;
        case OP_DROPOUT: case OP_BIAS: case OP_ADD: case OP_MUL: case OP_LERP: case OP_RELU:
        case OP_LEAKY_RELU: case OP_ELU: case OP_SIGMOID: case OP_TANH: {
            ew_args_t c = {.op = in->op, .a = A->data, .b = in->nin > 1 ? D(ex, in->in[1]) : NULL,
                           .c = in->nin > 2 ? D(ex, in->in[2]) : NULL, .out = out->data, .rows = rows, .cols = f,
                           .fp = dropout_p(ex, in), .g = g, .edge = P->vals[in->out].dom == DOM_EDGE,
                           .key = gs_hash3(ex->seed, (uint64_t)epoch, (uint64_t)in->iparam)};
            K->ew_forward(&c);
            ex->flops += (double)rows * (double)f;
            break;
        }
        case OP_HEAD_DOT:
            K->head_dot(A->data, D(ex, in->in[1]), rows, in->iparam, A->cols / in->iparam, out->data);
            ex->flops += 2.0 * (double)rows * (double)A->cols;
            break;
        case OP_GATHER:
            if (ex->stream) stream_or_fail(ex, streamer_gather(ex->stream, (agg_weight_t)in->iparam, TYPED_NONE,
                                                               A->data, f, out->data, f, f, 0, in->layer, &ex->err));
            else K->gather_sum(g, (agg_weight_t)in->iparam, A->data, f, out->data, 0);
            ex->flops += 2.0 * (double)g->m * (double)f;
            if (ex->samples)
                sample(ex->samples->gather, &ex->samples->ngather, (double)g->m * f, (double)g->n * f, op_seconds(ex, t0));
            break;
        case OP_GATHER_MAX:
            K->gather_max(g, A->data, f, out->data, ex->argmax[i]);
            ex->flops += (double)g->m * (double)f;
            break;
        case OP_SCATTER_SRC: K->scatter_src(g, A->data, f, out->data); break;
        case OP_SCATTER_DST: K->scatter_dst(g, A->data, f, out->data); break;
        case OP_GATHER_EDGE:
            K->gather_edge(g, (agg_weight_t)in->iparam, A->data, f, out->data, 0);
            ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        case OP_EDGE_UADDV: K->edge_uaddv(g, A->data, D(ex, in->in[1]), f, out->data); break;
        case OP_EDGE_SOFTMAX:
            K->edge_softmax(g, A->data, f, out->data);
            ex->flops += 4.0 * (double)g->m * (double)f;
            break;
        case OP_GATHER_ATTN:
            K->gather_attn(g, A->data, D(ex, in->in[1]), in->iparam, f / in->iparam, out->data);
            ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        case OP_GATHER_TYPED:
            if (ex->stream) stream_or_fail(ex, streamer_gather(ex->stream, (agg_weight_t)in->iparam, TYPED_IN,
                                                               A->data, A->cols, out->data, f, f, 0, in->layer, &ex->err));
            else K->gather_typed(g, (agg_weight_t)in->iparam, A->data, f, out->data, 0);
            ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        default: break;
        }
        if (!streamed_op(ex, in)) host_wrote(ex, in->out, out->data);
        if (training) count_aggregation(ex, in, 0, ex->flops - flops0);
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
    const kops_t *K = ex->K;
    memset(ex->grad_set, 0, (size_t)P->nvals);
    int oacc;
    float *go = gtarget(ex, P->output, &oacc);
    if (!go) return;
    K->copy(go, dout->data, tensor_bytes(dout));
    host_wrote(ex, P->output, go);
    for (int i = P->ncode - 1; i >= 0; i--) {
        const instr_t *in = &P->code[i];
        if (!ex->grad_set[in->out]) continue; /* no gradient flows here */
        const float *dy = ex->grad[in->out].data;
        const tensor_t *A = &ex->val[in->in[0]], *Y = &ex->val[in->out];
        int64_t f = Y->cols, rows = Y->rows;
        int acc_a = 0, acc_b = 0, acc_c = 0;
        if (K->annotate) K->annotate(in->layer, 1, op_name(in->op));
        double t0 = ex->on_op ? mono_s() : 0, flops0 = ex->flops;
        float *da = gtarget(ex, in->in[0], &acc_a);
        float *db = in->nin > 1 ? gtarget(ex, in->in[1], &acc_b) : NULL;
        float *dc = in->nin > 2 ? gtarget(ex, in->in[2], &acc_c) : NULL;
        switch (in->op) {
        case OP_MATMUL:
            if (streamed_matmul(ex, in) && (da || db))
                stream_or_fail(ex, streamer_matmul_bwd(ex->stream, A->data, A->cols, D(ex, in->in[1]), f, dy, da, acc_a,
                                                       db, acc_b, in->layer, &ex->err));
            else {
                if (da) K->gemm(0, 1, A->rows, A->cols, f, dy, D(ex, in->in[1]), da, acc_a);
                if (db) K->gemm(1, 0, A->cols, f, A->rows, A->data, dy, db, acc_b);
            }
            ex->flops += 2.0 * (double)A->rows * (double)A->cols * (double)f * ((da != NULL) + (db != NULL));
            break;
        case OP_BIAS:
            if (db) K->colsum(dy, rows, f, db, acc_b);
            db = NULL;
            /* fall through */
        case OP_DROPOUT: case OP_ADD: case OP_MUL: case OP_LERP: case OP_RELU: case OP_LEAKY_RELU:
        case OP_ELU: case OP_SIGMOID: case OP_TANH: {
            ew_args_t c = {.op = in->op, .a = A->data, .b = in->nin > 1 ? D(ex, in->in[1]) : NULL,
                           .c = in->nin > 2 ? D(ex, in->in[2]) : NULL, .y = Y->data, .dy = dy, .da = da, .db = db,
                           .dc = dc, .acc_a = acc_a, .acc_b = acc_b, .acc_c = acc_c, .rows = rows, .cols = f,
                           .fp = dropout_p(ex, in), .g = g, .edge = P->vals[in->out].dom == DOM_EDGE,
                           .key = gs_hash3(ex->seed, (uint64_t)ex->epoch, (uint64_t)in->iparam)};
            if (!da && !db && !dc) break;
            K->ew_backward(&c);
            ex->flops += 2.0 * (double)rows * (double)f;
            break;
        }
        case OP_HEAD_DOT:
            K->head_dot_bwd(A->data, D(ex, in->in[1]), dy, rows, in->iparam, A->cols / in->iparam, da, acc_a, db, acc_b);
            ex->flops += 4.0 * (double)rows * (double)A->cols;
            break;
        case OP_GATHER:
            if (da && ex->stream)
                stream_or_fail(ex, streamer_gather_bwd(ex->stream, (agg_weight_t)in->iparam, TYPED_NONE,
                                                       dy, f, da, f, f, acc_a, in->layer, &ex->err));
            else if (da) K->gather_sum_bwd(g, (agg_weight_t)in->iparam, dy, f, da, acc_a);
            if (da) ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        case OP_GATHER_MAX:
            if (da) K->gather_max_bwd(g, ex->argmax[i], dy, f, da, acc_a);
            break;
        case OP_SCATTER_SRC: if (da) K->scatter_src_bwd(g, dy, f, da, acc_a); break;
        case OP_SCATTER_DST: if (da) K->scatter_dst_bwd(g, dy, f, da, acc_a); break;
        case OP_GATHER_EDGE:
            if (da) K->gather_edge_bwd(g, (agg_weight_t)in->iparam, dy, f, da, acc_a);
            break;
        case OP_EDGE_UADDV:
            if (da) K->scatter_src_bwd(g, dy, f, da, acc_a);
            if (db) K->scatter_dst_bwd(g, dy, f, db, acc_b);
            break;
        case OP_EDGE_SOFTMAX:
            if (da) K->edge_softmax_bwd(g, Y->data, dy, f, da, acc_a);
            break;
        case OP_GATHER_ATTN: {
            int64_t k = in->iparam, h = f / k;
            if (da) K->gather_attn_bwd(g, D(ex, in->in[1]), dy, k, h, da, acc_a);
            if (db) K->sddmm(g, dy, A->data, k, h, db, acc_b);
            ex->flops += 4.0 * (double)g->m * (double)f;
            break;
        }
        case OP_GATHER_TYPED:
            if (da && ex->stream)
                stream_or_fail(ex, streamer_gather_bwd(ex->stream, (agg_weight_t)in->iparam, TYPED_OUT,
                                                       dy, f, da, A->cols, f, acc_a, in->layer, &ex->err));
            else if (da) K->gather_typed_bwd(g, (agg_weight_t)in->iparam, dy, f, da, acc_a);
            if (da) ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        default: break;
        }
        if (!streamed_op(ex, in)) {
            host_wrote(ex, in->in[0], da);
            if (in->nin > 1) host_wrote(ex, in->in[1], db);
            if (in->nin > 2) host_wrote(ex, in->in[2], dc);
        }
        count_aggregation(ex, in, 1, ex->flops - flops0);
        if (ex->on_op) ex->on_op(ex->op_user, in, 1, t0, mono_s(), ex->flops - flops0);
    }
    /* parameters that received no gradient this pass get zero */
    for (int v = 0; v < P->nvals; v++)
        if (P->vals[v].dom == DOM_PARAM && !ex->grad_set[v]) K->zero(ex->grad[v].data, tensor_bytes(&ex->grad[v]));
}
