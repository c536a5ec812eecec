/* exec.c - forward execution of op programs and the derived backward pass.
 * Each op has a forward rule and a vector-Jacobian rule; backward walks the
 * program in reverse and accumulates into input gradients. The first write
 * to a gradient overwrites it, later ones add, so nothing is zeroed.
 * Levels, hops and row counts follow exec.h. */
#include "exec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/rng.h"
#include "engine/machine/vclock.h"
#include "base/mono_clock.h"
#include "engine/program/op_table.h"

/* ---------------- levels and hops ---------------- */

/* Whether operand k of op is read by source index (its rows past the
 * destination set are needed). */
static int reads_by_source(const program_t *P, const instr_t *in, int k)
{
    switch (in->op) {
    case OP_GATHER: case OP_GATHER_MAX: case OP_GATHER_TYPED: case OP_GATHER_ATTN: case OP_SCATTER_SRC: case OP_EDGE_UADDV:
    case OP_SCATTER_TYPED:
        return k == 0;
    case OP_GATHER_FUSED: return !(P->fused[in->iparam].leaf_dst >> k & 1);
    default: return 0;
    }
}

/* Graph ops and the hop they use: vertex -> vertex or vertex -> edge steps
 * up a level; edge -> vertex and edge -> edge stay on the edges' hop. */
static int op_hop(const program_t *P, const instr_t *in, const int8_t *level)
{
    switch (in->op) {
    case OP_GATHER: case OP_GATHER_MAX: case OP_GATHER_TYPED: case OP_GATHER_ATTN: case OP_SCATTER_SRC: case OP_SCATTER_DST:
    case OP_EDGE_UADDV: case OP_SCATTER_TYPED:
        return level[in->in[0]] + 1;
    case OP_GATHER_EDGE: case OP_EDGE_SOFTMAX: case OP_EDGE_MATMUL_TYPED: return level[in->in[0]];
    case OP_GATHER_FUSED: { /* the leaves' latest level, as a scatter of each would be */
        int lv = 0;
        for (int k = 0; k < in->nin; k++)
            if (level[in->in[k]] > lv) lv = level[in->in[k]];
        return lv + 1;
    }
    default: (void)P; return 0;
    }
}

static int layout(exec_t *ex, gs_err_t *err)
{
    const program_t *P = ex->prog;
    uint8_t *seen = calloc((size_t)P->nvals + 1, 1);
    if (!seen) return gs_fail(err, GS_EFAIL, "out of memory");
    ex->level[P->input] = 0;
    for (int i = 0; i < P->ncode; i++) {
        const instr_t *in = &P->code[i];
        int h = op_hop(P, in, ex->level), lv = 0;
        if (h > EXEC_MAX_HOPS) {
            free(seen);
            return gs_fail(err, GS_EINPUT, "the model has more than %d gathers in a chain", EXEC_MAX_HOPS);
        }
        ex->hop[i] = (int8_t)h;
        if (h > ex->nhops) ex->nhops = h;
        if (in->op == OP_GATHER_EDGE || in->op == OP_EDGE_SOFTMAX || h == 0)
            for (int k = 0; k < in->nin; k++) /* the latest level among the operands */
                if (P->vals[in->in[k]].dom != DOM_PARAM && ex->level[in->in[k]] > lv) lv = ex->level[in->in[k]];
        ex->level[in->out] = (int8_t)(h && in->op != OP_GATHER_EDGE && in->op != OP_EDGE_SOFTMAX ? h : lv);
        for (int k = 0; k < in->nin; k++)
            if (reads_by_source(P, in, k) && !seen[in->in[k]]) seen[in->in[k]] = 1, ex->first_src[i] |= (uint8_t)(1u << k);
    }
    free(seen);
    return GS_OK;
}

int64_t exec_level_rows(const exec_t *ex, int k)
{
    return k == 0 ? ex->block[1]->nbase : ex->block[k]->n;
}

/* Rows a value has, and has room for, under the current binding. */
static int64_t rows_of(const exec_t *ex, int v)
{
    const value_t *val = &ex->prog->vals[v];
    if (val->dom == DOM_PARAM) return val->rows;
    if (val->dom == DOM_EDGE) return ex->block[ex->level[v]]->m;
    return exec_level_rows(ex, ex->level[v]);
}

static int64_t room_of(const exec_t *ex, int v)
{
    const value_t *val = &ex->prog->vals[v];
    int k = ex->level[v];
    if (val->dom != DOM_VERTEX && val->dom != DOM_INPUT) return rows_of(ex, v);
    return k < ex->nhops ? ex->block[k + 1]->nsrc : exec_level_rows(ex, k);
}

/* The block whose orig_id keys value v's rows (dropout masks): the one
 * reading the level, else (the last level, or a program without gathers)
 * the one writing it. */
static const graph_t *keys_of(const exec_t *ex, int v)
{
    int k = ex->level[v];
    if (ex->prog->vals[v].dom == DOM_EDGE) return ex->block[k];
    return ex->block[k < ex->nhops || k == 0 ? k + 1 : k];
}

/* ---------------- setup ---------------- */

/* Whether the place has a kernel for every op of the program (some are optional, kops.h). */
static int place_runs(const program_t *P, const kops_t *K, gs_err_t *err)
{
    for (int i = 0; i < P->ncode; i++) {
        op_kind_t op = P->code[i].op;
        int missing = (op == OP_GATHER_FUSED && !K->gather_fused) || (op == OP_SCATTER_TYPED && !K->scatter_typed) ||
                      (op == OP_EDGE_MATMUL_TYPED && !K->edge_matmul_typed);
        if (missing)
            return gs_fail(err, GS_EINPUT, "the %s backend has no %s kernel, which this program needs (run it with --fuse on)", K->name,
                           op_name(op));
    }
    return GS_OK;
}

int exec_init(exec_t *ex, const program_t *prog, kplace_t kp, params_t *params, uint64_t seed, gs_err_t *err)
{
    memset(ex, 0, sizeof *ex);
    if (place_runs(prog, kp.K, err)) return err->code;
    ex->prog = prog, ex->params = params, ex->seed = seed, ex->kp = kp;
    ex->engine = (exec_engine_t){&exec_memory_ops, &ex->kp};
    ex->val = calloc((size_t)prog->nvals, sizeof(tensor_t));
    ex->grad = calloc((size_t)prog->nvals, sizeof(tensor_t));
    ex->grad_set = calloc((size_t)prog->nvals, 1);
    ex->level = calloc((size_t)prog->nvals, 1);
    ex->cap = calloc((size_t)prog->nvals, sizeof(int64_t));
    ex->hop = calloc((size_t)prog->ncode + 1, 1);
    ex->first_src = calloc((size_t)prog->ncode + 1, 1);
    ex->argmax = calloc((size_t)prog->ncode + 1, sizeof(int32_t *));
    ex->argmax_cap = calloc((size_t)prog->ncode + 1, sizeof(int64_t));
    ex->owned = calloc((size_t)prog->nvals + 1, 1);
    ex->nvals = prog->nvals, ex->ncode = prog->ncode;
    if (!ex->val || !ex->grad || !ex->grad_set || !ex->level || !ex->cap || !ex->hop || !ex->first_src || !ex->argmax ||
        !ex->argmax_cap || !ex->owned)
        return gs_fail(err, GS_EFAIL, "out of memory");
    for (int i = 0; i < prog->nvals; i++) ex->owned[i] = prog->vals[i].dom == DOM_VERTEX || prog->vals[i].dom == DOM_EDGE;
    for (int i = 0; i < prog->nvals; i++)
        if (prog->vals[i].dom == DOM_PARAM) ex->val[i] = params->w[prog->vals[i].param], ex->grad[i] = params->g[prog->vals[i].param];
    return layout(ex, err);
}

void exec_free(exec_t *ex)
{
    if (!ex->prog) return;
    /* by what exec_init saw: the program may already have been replaced (a rebuild) */
    for (int i = 0; ex->val && ex->owned && i < ex->nvals; i++)
        if (ex->owned[i]) place_free(ex->kp, &ex->val[i]), place_free(ex->kp, &ex->grad[i]);
    for (int i = 0; ex->argmax && i < ex->ncode; i++)
        if (ex->argmax[i]) ex->kp.K->release(ex->kp.cx, ex->argmax[i]);
    free(ex->val), free(ex->grad), free(ex->grad_set), free(ex->argmax), free(ex->argmax_cap);
    free(ex->level), free(ex->cap), free(ex->hop), free(ex->first_src), free(ex->owned);
    memset(ex, 0, sizeof *ex);
}

/* Gives t room for rows x cols (reallocating only to grow) and sets its rows. */
static int fit(exec_t *ex, tensor_t *t, int64_t *cap, int64_t room, int64_t rows, int64_t cols, gs_err_t *err)
{
    if (!t->data || room > *cap) {
        place_free(ex->kp, t);
        int rc = place_alloc(ex->kp, t, room, cols, err);
        if (rc) return rc;
        *cap = room;
    }
    t->rows = rows, t->cols = cols;
    return GS_OK;
}

int exec_bind(exec_t *ex, const graph_t *const *block, gs_err_t *err)
{
    const program_t *P = ex->prog;
    for (int h = 1; h <= ex->nhops || h == 1; h++) { /* block[1] sizes the input even without a gather */
        if (block[h]->nsrc < block[h]->n || (h > 1 && block[h]->nsrc < block[h - 1]->n))
            return gs_fail(err, GS_EFAIL, "hop %d: its block's sets are not nested", h);
        ex->block[h] = block[h];
    }
    for (int v = 0; v < P->nvals; v++) {
        const value_t *val = &P->vals[v];
        if (val->dom == DOM_PARAM || val->dom == DOM_INPUT) continue;
        int64_t rows = rows_of(ex, v), room = room_of(ex, v), grad_cap = ex->cap[v]; /* the gradient's room is the value's */
        int rc = fit(ex, &ex->val[v], &ex->cap[v], room, rows, val->cols, err);
        if (!rc && val->requires_grad) rc = fit(ex, &ex->grad[v], &grad_cap, room, rows, val->cols, err);
        if (rc) return rc;
    }
    for (int i = 0; i < P->ncode; i++)
        if (P->code[i].op == OP_GATHER_MAX) {
            int64_t cnt = ex->block[ex->hop[i]]->n * P->vals[P->code[i].out].cols;
            if (cnt <= ex->argmax_cap[i] && ex->argmax[i]) continue;
            if (ex->argmax[i]) ex->kp.K->release(ex->kp.cx, ex->argmax[i]);
            ex->argmax[i] = ex->kp.K->alloc(ex->kp.cx, sizeof(int32_t) * (size_t)(cnt ? cnt : 1));
            if (!ex->argmax[i]) return gs_fail(err, GS_EFAIL, "out of %s memory for gather-max winners", ex->kp.K->name);
            ex->argmax_cap[i] = cnt;
        }
    return GS_OK;
}

int exec_bind_graph(exec_t *ex, const graph_t *g, gs_err_t *err)
{
    const graph_t *block[EXEC_MAX_HOPS + 1];
    for (int h = 0; h <= EXEC_MAX_HOPS; h++) block[h] = g;
    return exec_bind(ex, block, err);
}

xtensor_t exec_xtensor(const exec_t *ex, int v, int grad)
{
    const tensor_t *t = grad ? &ex->grad[v] : &ex->val[v];
    return (xtensor_t){2 * v + (grad != 0), t->data, t->rows, t->cols};
}

/* ---------------- forward ---------------- */

/* Seconds since t0 of the op just issued (waiting for a device to finish it). */
static double op_seconds(exec_t *ex, double t0)
{
    if (ex->kp.K->device) ex->kp.K->sync(ex->kp.cx, &ex->err);
    return gs_mono_s() - t0;
}

/* Files a timing sample for the DKP cost model (two features, seconds). */
static void sample(double (*rows)[3], int *n, double x1, double x2, double t)
{
    if (*n >= 64) return;
    rows[*n][0] = x1, rows[*n][1] = x2, rows[*n][2] = t;
    (*n)++;
}

static const float *D(exec_t *ex, int v) { return ex->val[v].data; }

/* Bytes an op of the executor reads and writes (the host roofline's
 * memory side): its tensors, and a graph op's per-edge rows. */
static double op_bytes(const exec_t *ex, const instr_t *in)
{
    double b = 4.0 * (double)tensor_numel(&ex->val[in->out]), rows_per_edge = 1;
    for (int k = 0; k < in->nin; k++) b += 4.0 * (double)tensor_numel(&ex->val[in->in[k]]);
    if (in->op == OP_GATHER_FUSED) /* each edge reads a row of every source leaf */
        rows_per_edge = in->nin - __builtin_popcount(ex->prog->fused[in->iparam].leaf_dst);
    if (ex->hop[in - ex->prog->code])
        b += 4.0 * rows_per_edge * (double)ex->block[ex->hop[in - ex->prog->code]]->m * (double)ex->val[in->out].cols;
    return b;
}

/* Books op `in` (phase 0 forward, 1 backward) that started at wall time
 * t0 and CPU time c0: host work is charged on the clock (or the wall),
 * added to own_s and shown to the observer; a device engine's work was
 * charged by its backend. */
exec_mark_t exec_mark(const exec_t *ex) { return (exec_mark_t){gs_mono_s(), ex->clock ? vclock_cpu_s() : 0}; }

void exec_host_work(exec_t *ex, exec_mark_t m, const instr_t *in, int phase, double flops, double bytes)
{
    double t0 = m.t0, t1 = gs_mono_s();
    if (ex->clock) vclock_host_op(ex->clock, flops, bytes, vclock_cpu_s() - m.c0, &t0, &t1);
    ex->own_s += t1 - t0;
    if (ex->on_op && (in || phase == 2)) ex->on_op(ex->op_user, in, phase, t0, t1, flops);
}

static void op_done(exec_t *ex, const instr_t *in, int phase, int engine_op, exec_mark_t m, double flops)
{
    if (engine_op && !ex->engine.ops->on_host) return;
    exec_host_work(ex, m, in, phase, flops, op_bytes(ex, in));
}

static void engine_failed(exec_t *ex, int rc)
{
    if (rc) ex->failed = 1;
}

/* Tells the engine that one of the executor's ops wrote value v (or its gradient). */
static void host_wrote(exec_t *ex, int v, int grad)
{
    if (v < 0 || !ex->engine.ops->host_wrote || ex->prog->vals[v].dom != DOM_VERTEX) return;
    xtensor_t t = exec_xtensor(ex, v, grad);
    if (t.data) ex->engine.ops->host_wrote(ex->engine.self, &t);
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

static gather_call_t gather_call(const exec_t *ex, int i, int backward)
{
    const instr_t *in = &ex->prog->code[i];
    const graph_t *g = ex->block[ex->hop[i]];
    gather_call_t c = {.g = g, .hop = ex->hop[i], .layer = in->layer, .agg = (agg_weight_t)in->iparam,
                       .f = ex->prog->vals[in->out].cols};
    if (!backward) {
        c.typed = in->op == OP_GATHER_TYPED ? TYPED_IN : TYPED_NONE;
        c.in = exec_xtensor(ex, in->in[0], 0), c.out = exec_xtensor(ex, in->out, 0);
        c.in.rows = g->nsrc;
    } else {
        c.typed = in->op == OP_GATHER_TYPED ? TYPED_OUT : TYPED_NONE;
        c.in = exec_xtensor(ex, in->out, 1), c.out = exec_xtensor(ex, in->in[0], 1);
        c.out.rows = g->nsrc;
    }
    return c;
}

static matmul_call_t matmul_call(const exec_t *ex, const instr_t *in)
{
    val_domain_t a = ex->prog->vals[in->in[0]].dom;
    return (matmul_call_t){.layer = in->layer, .a_vertex = a == DOM_VERTEX || a == DOM_INPUT,
                           .a = exec_xtensor(ex, in->in[0], 0), .w = ex->val[in->in[1]].data,
                           .f = ex->prog->vals[in->out].cols, .out = exec_xtensor(ex, in->out, 0)};
}

/* Before instruction i: the ghost rows of the operands it reads by source index first. */
static void src_ready(exec_t *ex, int i)
{
    const instr_t *in = &ex->prog->code[i];
    int gathered = in->op == OP_GATHER || in->op == OP_GATHER_TYPED;
    for (int k = 0; k < in->nin && ex->engine.ops->src_ready && !ex->failed; k++)
        if (ex->first_src[i] >> k & 1)
            engine_failed(ex, ex->engine.ops->src_ready(ex->engine.self, ex, in->in[k], ex->hop[i], gathered && k == 0, &ex->err));
}

static void src_grad_ready(exec_t *ex, int i)
{
    const instr_t *in = &ex->prog->code[i];
    for (int k = 0; k < in->nin && ex->engine.ops->src_grad_ready && !ex->failed; k++)
        if ((ex->first_src[i] >> k & 1) && ex->prog->vals[in->in[k]].requires_grad && ex->grad_set[in->in[k]])
            engine_failed(ex, ex->engine.ops->src_grad_ready(ex->engine.self, ex, in->in[k], ex->hop[i], &ex->err));
}

static ew_args_t ew_args(const exec_t *ex, const instr_t *in)
{
    const tensor_t *out = &ex->val[in->out];
    return (ew_args_t){.op = in->op, .a = ex->val[in->in[0]].data, .b = in->nin > 1 ? ex->val[in->in[1]].data : NULL,
                       .c = in->nin > 2 ? ex->val[in->in[2]].data : NULL, .rows = out->rows, .cols = out->cols,
                       .fp = dropout_p(ex, in), .g = keys_of(ex, in->out),
                       .edge = ex->prog->vals[in->out].dom == DOM_EDGE,
                       .key = gs_hash3(ex->seed, (uint64_t)ex->epoch, (uint64_t)in->iparam)};
}

const tensor_t *exec_forward(exec_t *ex, const tensor_t *x, int training, int64_t epoch)
{
    const program_t *P = ex->prog;
    const kops_t *K = ex->kp.K;
    kops_ctx_t *cx = ex->kp.cx;
    const exec_engine_t *E = &ex->engine;
    ex->val[P->input] = *x;
    ex->training = training;
    ex->epoch = epoch;
    ex->flops = 0;
    if (training) memset(ex->agg_flops, 0, sizeof ex->agg_flops);
    for (int i = 0; i < P->ncode && !ex->failed; i++) {
        const instr_t *in = &P->code[i];
        tensor_t *out = &ex->val[in->out];
        const tensor_t *A = &ex->val[in->in[0]];
        const graph_t *g = ex->block[ex->hop[i]];
        int64_t f = out->cols, rows = out->rows;
        if (K->annotate) K->annotate(cx, in->layer, 0, op_name(in->op));
        if (ex->samples && K->device) K->sync(cx, &ex->err); /* kernel timings need an idle device */
        src_ready(ex, i);
        exec_mark_t mark = exec_mark(ex);
        double t0 = mark.t0, flops0 = ex->flops;
        int engine_op = in->op == OP_MATMUL || in->op == OP_GATHER || in->op == OP_GATHER_TYPED;
        switch (in->op) {
        case OP_MATMUL: {
            matmul_call_t c = matmul_call(ex, in);
            engine_failed(ex, E->ops->matmul(E->self, &c, &ex->err));
            ex->flops += 2.0 * (double)A->rows * (double)A->cols * (double)f;
            if (ex->samples)
                sample(ex->samples->gemm, &ex->samples->ngemm, (double)A->rows * A->cols * f, (double)A->rows * f, op_seconds(ex, t0));
            break;
        }
        case OP_DROPOUT: case OP_BIAS: case OP_ADD: case OP_MUL: case OP_LERP: case OP_RELU:
        case OP_LEAKY_RELU: case OP_ELU: case OP_SIGMOID: case OP_TANH: {
            ew_args_t c = ew_args(ex, in);
            c.out = out->data;
            K->ew_forward(cx, &c);
            ex->flops += (double)rows * (double)f;
            break;
        }
        case OP_HEAD_DOT:
            K->head_dot(cx, A->data, D(ex, in->in[1]), rows, in->iparam, A->cols / in->iparam, out->data);
            ex->flops += 2.0 * (double)rows * (double)A->cols;
            break;
        case OP_GATHER:
        case OP_GATHER_TYPED: {
            gather_call_t c = gather_call(ex, i, 0);
            engine_failed(ex, E->ops->gather(E->self, &c, &ex->err));
            ex->flops += 2.0 * (double)g->m * (double)f;
            if (ex->samples && in->op == OP_GATHER)
                sample(ex->samples->gather, &ex->samples->ngather, (double)g->m * f, (double)g->n * f, op_seconds(ex, t0));
            break;
        }
        case OP_GATHER_MAX:
            K->gather_max(cx, g, A->data, f, out->data, ex->argmax[i]);
            ex->flops += (double)g->m * (double)f;
            break;
        case OP_SCATTER_SRC: K->scatter_src(cx, g, A->data, f, out->data); break;
        case OP_SCATTER_DST: K->scatter_dst(cx, g, A->data, f, out->data); break;
        case OP_GATHER_EDGE:
            K->gather_edge(cx, g, (agg_weight_t)in->iparam, A->data, f, out->data, 0);
            ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        case OP_EDGE_UADDV: K->edge_uaddv(cx, g, A->data, D(ex, in->in[1]), f, out->data); break;
        case OP_EDGE_SOFTMAX:
            K->edge_softmax(cx, g, A->data, f, out->data);
            ex->flops += 4.0 * (double)g->m * (double)f;
            break;
        case OP_GATHER_ATTN:
            K->gather_attn(cx, g, A->data, D(ex, in->in[1]), in->iparam, f / in->iparam, out->data);
            ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        case OP_SCATTER_TYPED: K->scatter_typed(cx, g, A->data, f, out->data); break;
        case OP_EDGE_MATMUL_TYPED:
            K->edge_matmul_typed(cx, g, A->data, D(ex, in->in[1]), A->cols, f, out->data);
            ex->flops += 2.0 * (double)rows * (double)A->cols * (double)f;
            break;
        case OP_GATHER_FUSED: {
            const fused_expr_t *fe = &P->fused[in->iparam];
            const float *leaf[FUSE_MAX_LEAVES] = {0};
            for (int k = 0; k < in->nin; k++) leaf[k] = D(ex, in->in[k]);
            K->gather_fused(cx, g, fe, leaf, f, out->data);
            ex->flops += (2.0 + fe->nstep) * (double)g->m * (double)f;
            break;
        }
        default: break;
        }
        if (!engine_op) host_wrote(ex, in->out, 0);
        if (training) count_aggregation(ex, in, 0, ex->flops - flops0);
        op_done(ex, in, 0, engine_op, mark, ex->flops - flops0);
    }
    return &ex->val[P->output];
}

/* ---------------- backward ---------------- */

/* The gradient buffer of value v, or NULL when v needs none. *acc tells
 * whether to add (an earlier op already wrote it) or overwrite. written:
 * the rows the op writes when it may be fewer than v's (an elementwise op
 * over levels works on the latest level's rows), else -1; on a first
 * write the rows past them are zeroed, or a previous step's would stay. */
static float *gtarget(exec_t *ex, int v, int *acc, int64_t written)
{
    if (v < 0 || !ex->prog->vals[v].requires_grad) return NULL;
    *acc = ex->grad_set[v];
    ex->grad_set[v] = 1;
    const value_t *val = &ex->prog->vals[v];
    if (!*acc && written >= 0 && val->dom != DOM_PARAM && val->dom != DOM_EDGE) {
        int64_t rows = rows_of(ex, v);
        if (rows > written)
            ex->kp.K->zero(ex->kp.cx, ex->grad[v].data + written * val->cols, sizeof(float) * (size_t)((rows - written) * val->cols));
    }
    return ex->grad[v].data;
}

void exec_backward(exec_t *ex, const tensor_t *dout)
{
    const program_t *P = ex->prog;
    const kops_t *K = ex->kp.K;
    kops_ctx_t *cx = ex->kp.cx;
    const exec_engine_t *E = &ex->engine;
    memset(ex->grad_set, 0, (size_t)P->nvals);
    int oacc;
    float *go = gtarget(ex, P->output, &oacc, -1);
    if (!go) return;
    K->copy(cx, go, dout->data, tensor_bytes(dout));
    host_wrote(ex, P->output, 1);
    for (int i = P->ncode - 1; i >= 0 && !ex->failed; i--) {
        const instr_t *in = &P->code[i];
        if (!ex->grad_set[in->out]) continue; /* no gradient flows here */
        const float *dy = ex->grad[in->out].data;
        const tensor_t *A = &ex->val[in->in[0]], *Y = &ex->val[in->out];
        const graph_t *g = ex->block[ex->hop[i]];
        int64_t f = Y->cols, rows = Y->rows;
        int acc_a = 0, acc_b = 0, acc_c = 0;
        if (K->annotate) K->annotate(cx, in->layer, 1, op_name(in->op));
        exec_mark_t mark = exec_mark(ex);
        double flops0 = ex->flops;
        int64_t written = ex->hop[i] ? -1 : rows; /* a graph op writes its operands' own rows */
        float *da = gtarget(ex, in->in[0], &acc_a, written);
        float *db = in->nin > 1 ? gtarget(ex, in->in[1], &acc_b, written) : NULL;
        float *dc = in->nin > 2 ? gtarget(ex, in->in[2], &acc_c, written) : NULL;
        int engine_op = in->op == OP_MATMUL || in->op == OP_GATHER || in->op == OP_GATHER_TYPED;
        switch (in->op) {
        case OP_MATMUL: {
            if (!da && !db) break;
            matmul_call_t c = matmul_call(ex, in);
            c.dy = exec_xtensor(ex, in->out, 1);
            if (da) c.da = exec_xtensor(ex, in->in[0], 1);
            c.acc_a = acc_a, c.dw = db, c.acc_w = acc_b;
            engine_failed(ex, E->ops->matmul_bwd(E->self, &c, &ex->err));
            ex->flops += 2.0 * (double)A->rows * (double)A->cols * (double)f * ((da != NULL) + (db != NULL));
            break;
        }
        case OP_BIAS:
            if (db) K->colsum(cx, dy, rows, f, db, acc_b);
            db = NULL;
            /* fall through */
        case OP_DROPOUT: case OP_ADD: case OP_MUL: case OP_LERP: case OP_RELU: case OP_LEAKY_RELU:
        case OP_ELU: case OP_SIGMOID: case OP_TANH: {
            ew_args_t c = ew_args(ex, in);
            c.y = Y->data, c.dy = dy, c.da = da, c.db = db, c.dc = dc, c.acc_a = acc_a, c.acc_b = acc_b, c.acc_c = acc_c;
            if (!da && !db && !dc) break;
            K->ew_backward(cx, &c);
            ex->flops += 2.0 * (double)rows * (double)f;
            break;
        }
        case OP_HEAD_DOT:
            K->head_dot_bwd(cx, A->data, D(ex, in->in[1]), dy, rows, in->iparam, A->cols / in->iparam, da, acc_a, db, acc_b);
            ex->flops += 4.0 * (double)rows * (double)A->cols;
            break;
        case OP_GATHER:
        case OP_GATHER_TYPED: {
            if (!da) break;
            gather_call_t c = gather_call(ex, i, 1);
            c.acc = acc_a;
            engine_failed(ex, E->ops->gather_bwd(E->self, &c, &ex->err));
            ex->flops += 2.0 * (double)g->m * (double)f;
            break;
        }
        case OP_GATHER_MAX:
            if (da) K->gather_max_bwd(cx, g, ex->argmax[i], dy, f, da, acc_a);
            break;
        case OP_SCATTER_SRC: if (da) K->scatter_src_bwd(cx, g, dy, f, da, acc_a); break;
        case OP_SCATTER_DST: if (da) K->scatter_dst_bwd(cx, g, dy, f, da, acc_a); break;
        case OP_GATHER_EDGE:
            if (da) K->gather_edge_bwd(cx, g, (agg_weight_t)in->iparam, dy, f, da, acc_a);
            break;
        case OP_EDGE_UADDV:
            if (da) K->scatter_src_bwd(cx, g, dy, f, da, acc_a);
            if (db) K->scatter_dst_bwd(cx, g, dy, f, db, acc_b);
            break;
        case OP_EDGE_SOFTMAX:
            if (da) K->edge_softmax_bwd(cx, g, Y->data, dy, f, da, acc_a);
            break;
        case OP_GATHER_ATTN: {
            int64_t k = in->iparam, h = f / k;
            if (da) K->gather_attn_bwd(cx, g, D(ex, in->in[1]), dy, k, h, da, acc_a);
            if (db) K->sddmm(cx, g, dy, A->data, k, h, db, acc_b);
            ex->flops += 4.0 * (double)g->m * (double)f;
            break;
        }
        case OP_SCATTER_TYPED: if (da) K->scatter_typed_bwd(cx, g, dy, f, da, acc_a); break;
        case OP_EDGE_MATMUL_TYPED:
            if (da || db) K->edge_matmul_typed_bwd(cx, g, A->data, D(ex, in->in[1]), dy, A->cols, f, da, acc_a, db, acc_b);
            ex->flops += 2.0 * (double)rows * (double)A->cols * (double)f * ((da != NULL) + (db != NULL));
            break;
        case OP_GATHER_FUSED: {
            const fused_expr_t *fe = &P->fused[in->iparam];
            const float *leaf[FUSE_MAX_LEAVES] = {0};
            float *dleaf[FUSE_MAX_LEAVES] = {da, db, dc};
            int acc[FUSE_MAX_LEAVES] = {acc_a, acc_b, acc_c}, passes = 0;
            for (int k = 0; k < in->nin; k++) leaf[k] = D(ex, in->in[k]), passes |= dleaf[k] ? 1 << (fe->leaf_dst >> k & 1) : 0;
            K->gather_fused_bwd(cx, g, fe, leaf, dy, f, dleaf, acc);
            ex->flops += (double)__builtin_popcount((unsigned)passes) * (4.0 + 3.0 * fe->nstep) * (double)g->m * (double)f;
            break;
        }
        default: break;
        }
        if (!engine_op) {
            if (da) host_wrote(ex, in->in[0], 1);
            if (db) host_wrote(ex, in->in[1], 1);
            if (dc) host_wrote(ex, in->in[2], 1);
        }
        src_grad_ready(ex, i);
        count_aggregation(ex, in, 1, ex->flops - flops0);
        op_done(ex, in, 1, engine_op, mark, ex->flops - flops0);
    }
    /* parameters that received no gradient this pass get zero */
    for (int v = 0; v < P->nvals; v++)
        if (P->vals[v].dom == DOM_PARAM && !ex->grad_set[v]) K->zero(cx, ex->grad[v].data, tensor_bytes(&ex->grad[v]));
}
