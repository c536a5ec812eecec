/* exec_calls.c - see exec_calls.h. */
#include "exec_calls.h"

#include <string.h>

#include "base/mono_clock.h"
#include "base/rng.h"
#include "engine/machine/vclock.h"
#include "engine/program/op_table.h"

double exec_op_seconds(exec_t *ex, double t0)
{
    if (ex->kp.K->device) ex->kp.K->sync(ex->kp.cx, &ex->err);
    return gs_mono_s() - t0;
}

void exec_sample(double (*rows)[3], int *n, double x1, double x2, double t)
{
    if (*n >= 64) return;
    rows[*n][0] = x1, rows[*n][1] = x2, rows[*n][2] = t;
    (*n)++;
}

const float *exec_data(exec_t *ex, int v) { return ex->val[v].data; }

int exec_in_place(const exec_t *ex, const instr_t *in, int phase)
{
    if (in->nin < 1) return 0;
    const float *a = exec_xtensor(ex, in->in[0], phase == 1).data, *b = exec_xtensor(ex, in->out, phase == 1).data;
    return a && a == b;
}

int exec_reads_only(const exec_t *ex, const instr_t *in, int phase)
{
    return phase == 1 && in->op == OP_BIAS && exec_in_place(ex, in, phase);
}

/* Bytes an op of the executor reads and writes (the host roofline's
 * memory side): its tensors, and a graph op's per-edge rows. A backward
 * phase moves the same tensors' gradients, less the write of one that
 * only reads (exec_reads_only). */
static op_traffic_t bytes_of(const exec_t *ex, const instr_t *in, int phase)
{
    int i = (int)(in - ex->prog->code);
    op_dims_t d = {.cols = (double)ex->val[in->out].cols, .edges = ex->hop[i] ? (double)ex->block[ex->hop[i]]->m : 0,
                   .io_floats = (double)tensor_numel(&ex->val[in->out])};
    for (int k = 0; k < in->nin; k++) d.io_floats += (double)tensor_numel(&ex->val[in->in[k]]);
    if (exec_reads_only(ex, in, phase)) d.io_floats -= (double)tensor_numel(&ex->val[in->in[0]]);
    return op_traffic(ex->prog, in, &d);
}

/* Books op `in` (phase 0 forward, 1 backward) that started at wall time
 * t0 and CPU time c0: host work is charged on the clock (or the wall),
 * added to own_s and shown to the observer; a device engine's work was
 * charged by its backend. */
exec_mark_t exec_mark(const exec_t *ex) { return (exec_mark_t){gs_mono_s(), ex->clock ? vclock_cpu_s() : 0}; }

void exec_host_work(exec_t *ex, exec_mark_t m, const instr_t *in, int phase, double flops, op_traffic_t bytes)
{
    double t0 = m.t0, t1 = gs_mono_s();
    if (ex->clock) vclock_host_op(ex->clock, flops, op_traffic_bytes(bytes), vclock_cpu_s() - m.c0, &t0, &t1);
    ex->own_s += t1 - t0;
    if (ex->tally && ex->training)
        op_tally_add(ex->tally, in ? (int)(in - ex->prog->code) : -1, phase, t1 - t0, flops, bytes,
                     in ? (double)ex->val[in->out].cols : 0);
    if (ex->on_op && (in || phase == 2)) ex->on_op(ex->op_user, in, phase, t0, t1, flops);
}

void exec_op_done(exec_t *ex, const instr_t *in, int phase, int engine_op, exec_mark_t m, double flops)
{
    if (engine_op && !ex->engine.ops->on_host) return;
    exec_host_work(ex, m, in, phase, flops, bytes_of(ex, in, phase));
}

void exec_engine_failed(exec_t *ex, int rc)
{
    if (rc) ex->failed = 1;
}

void exec_host_wrote(exec_t *ex, int v, int grad)
{
    if (v < 0 || !ex->engine.ops->host_wrote || ex->prog->vals[v].dom != DOM_VERTEX) return;
    xtensor_t t = exec_xtensor(ex, v, grad);
    if (t.data) ex->engine.ops->host_wrote(ex->engine.self, &t);
}

static float dropout_p(const exec_t *ex, const instr_t *in)
{
    return in->op == OP_DROPOUT && !ex->training ? 0.0f : in->fparam;
}

void exec_count_aggregation(exec_t *ex, const instr_t *in, int phase, double flops)
{
    if (in->stage == STAGE_GATHER && in->layer >= 0 && in->layer < PROG_MAX_LAYERS)
        ex->agg_flops[in->layer][phase] += flops;
}

gather_call_t exec_gather_call(const exec_t *ex, int i, int backward)
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

matmul_call_t exec_matmul_call(const exec_t *ex, const instr_t *in)
{
    val_domain_t a = ex->prog->vals[in->in[0]].dom;
    return (matmul_call_t){.layer = in->layer, .a_vertex = a == DOM_VERTEX || a == DOM_INPUT,
                           .a = exec_xtensor(ex, in->in[0], 0), .w = ex->val[in->in[1]].data,
                           .f = ex->prog->vals[in->out].cols, .out = exec_xtensor(ex, in->out, 0)};
}

/* The fused gather's leaves, and backward their gradients. */
static void fused_operands(const exec_t *ex, const instr_t *in, graph_call_t *c, int backward, float *const *d, const int *acc)
{
    c->expr = &ex->prog->fused[in->iparam], c->nleaf = in->nin;
    for (int k = 0; k < in->nin; k++) {
        c->leaf[k] = exec_xtensor(ex, in->in[k], 0);
        if (!(c->expr->leaf_dst >> k & 1)) c->leaf[k].rows = c->g->nsrc;
        if (!backward || !d[k]) continue;
        c->dleaf[k] = exec_xtensor(ex, in->in[k], 1), c->dleaf[k].rows = c->leaf[k].rows, c->dacc[k] = acc[k];
    }
}

int exec_engine_graph_op(exec_t *ex, int i, int backward, float *const *d, const int *acc)
{
    const instr_t *in = &ex->prog->code[i];
    op_kind_t op = in->op;
    int offered = op == OP_GATHER_MAX || op == OP_GATHER_ATTN || op == OP_SCATTER_SRC || op == OP_SCATTER_DST ||
                  op == OP_GATHER_EDGE || op == OP_GATHER_FUSED;
    if (!ex->engine.ops->graph_op || !offered || (backward && op != OP_GATHER_FUSED && !d[0])) return 0;
    const graph_t *g = ex->block[ex->hop[i]];
    graph_call_t c = {.op = in->op, .g = g, .hop = ex->hop[i], .layer = in->layer, .f = ex->prog->vals[in->out].cols,
                      .acc = backward ? acc[0] : 0, .argmax = ex->argmax[i]};
    if (in->op == OP_GATHER_ATTN) c.att = ex->val[in->in[1]].data, c.heads = in->iparam;
    if (in->op == OP_GATHER_EDGE) c.agg = (agg_weight_t)in->iparam;
    int src = in->in[0]; /* a vertex tensor read by source row: the block's nsrc rows of it (an edge tensor: all) */
    c.in = exec_xtensor(ex, backward ? in->out : src, backward);
    c.out = exec_xtensor(ex, backward ? src : in->out, backward);
    xtensor_t *by_src = backward ? &c.out : &c.in;
    if (ex->prog->vals[src].dom != DOM_EDGE) by_src->rows = g->nsrc;
    if (in->op == OP_GATHER_FUSED) { /* in: the output's gradient (backward), out: the output (forward) */
        fused_operands(ex, in, &c, backward, d, acc);
        c.in = backward ? exec_xtensor(ex, in->out, 1) : c.leaf[0], c.out = exec_xtensor(ex, in->out, 0);
    }
    int done = 0;
    exec_engine_failed(ex, ex->engine.ops->graph_op(ex->engine.self, &c, backward, &done, &ex->err));
    return done || ex->failed;
}

int exec_sag_pair(const exec_t *ex, int i)
{
    const program_t *P = ex->prog;
    if (i < 0 || i + 1 >= P->ncode || !ex->engine.ops->graph_op) return 0;
    const instr_t *sc = &P->code[i], *ga = &P->code[i + 1];
    int e = sc->out;
    if (sc->op != OP_SCATTER_SRC || ga->op != OP_GATHER_EDGE || ga->in[0] != e || e == P->output || ex->hop[i] != ex->hop[i + 1])
        return 0;
    for (int k = 0; k < P->ncode; k++)
        for (int q = 0; q < P->code[k].nin; q++)
            if (P->code[k].in[q] == e && k != i + 1) return 0;
    return 1;
}

/* Whether instruction k is an ApplyVertex op that may follow a gather on
 * the engine, reading prev: a vertex product of it, or an elementwise op
 * on it whose other operand, if any, is a parameter (and keeps no sign
 * bits of its own). */
static int applies_to(const exec_t *ex, int k, int prev)
{
    const program_t *P = ex->prog;
    const instr_t *in = &P->code[k];
    if (ex->hop[k] || in->in[0] != prev || P->vals[in->out].dom != DOM_VERTEX) return 0;
    if (in->op == OP_MATMUL) return P->vals[in->in[1]].dom == DOM_PARAM;
    if (!op_has(in->op, OPF_EW) || in->nin > 2 || exec_masks_relu(ex, in)) return 0;
    return in->nin == 1 || P->vals[in->in[1]].dom == DOM_PARAM;
}

/* Whether value v, made by op `from` of the chain ending at op last, is
 * read past it: by a later op, as the output, or by a backward rule. */
static int read_later(const exec_t *ex, int v, int from, int last)
{
    const program_t *P = ex->prog;
    if (v == P->output || (ex->training && (op_desc(P->code[from].op)->bwd_reads & OPB_OUT))) return 1;
    for (int k = from + 1; k < P->ncode; k++)
        for (int q = 0; q < P->code[k].nin; q++)
            if (P->code[k].in[q] == v && (k > last || (ex->training && (op_desc(P->code[k].op)->bwd_reads >> q & 1)))) return 1;
    return 0;
}

int exec_apply_chain(const exec_t *ex, int i, apply_op_t *ops)
{
    const program_t *P = ex->prog;
    int n = 0;
    for (int k = i + 1, prev = P->code[i].out; k < P->ncode && n < APPLY_MAX_OPS && applies_to(ex, k, prev); k++, n++) {
        const instr_t *in = &P->code[k];
        apply_op_t *op = &ops[n];
        memset(op, 0, sizeof *op);
        op->is_matmul = in->op == OP_MATMUL;
        if (op->is_matmul) op->m = exec_matmul_call(ex, in);
        else op->e = exec_ew_args(ex, in), op->e.out = ex->val[in->out].data;
        op->param_floats = !op->is_matmul && in->nin == 2 ? tensor_numel(&ex->val[in->in[1]]) : 0;
        op->out = exec_xtensor(ex, in->out, 0);
        prev = in->out;
    }
    for (int q = 0; q < n; q++) ops[q].home = read_later(ex, ex->prog->code[i + 1 + q].out, i + 1 + q, i + n);
    return n;
}

int exec_engine_sag(exec_t *ex, int i, int backward, int acc)
{
    const instr_t *sc = &ex->prog->code[i], *ga = &ex->prog->code[i + 1];
    const graph_t *g = ex->block[ex->hop[i]];
    graph_call_t c = {.op = backward ? OP_GATHER_EDGE : OP_SCATTER_SRC, .sag = 1, .g = g, .hop = ex->hop[i], .layer = ga->layer,
                      .f = ex->prog->vals[ga->out].cols, .acc = acc, .agg = (agg_weight_t)ga->iparam};
    c.in = exec_xtensor(ex, backward ? ga->out : sc->in[0], backward);
    c.out = exec_xtensor(ex, backward ? sc->in[0] : ga->out, backward);
    (backward ? &c.out : &c.in)->rows = g->nsrc; /* the scatter's input, read by source row */
    int done = 0;
    exec_engine_failed(ex, ex->engine.ops->graph_op(ex->engine.self, &c, backward, &done, &ex->err));
    return done || ex->failed;
}

void exec_src_ready(exec_t *ex, int i)
{
    const instr_t *in = &ex->prog->code[i];
    int gathered = op_has(in->op, OPF_ENGINE) && op_has(in->op, OPF_AGGREGATE);
    for (int k = 0; k < in->nin && ex->engine.ops->src_ready && !ex->failed; k++)
        if (ex->first_src[i] >> k & 1)
            exec_engine_failed(ex, ex->engine.ops->src_ready(ex->engine.self, ex, in->in[k], ex->hop[i], gathered && k == 0, &ex->err));
}

void exec_src_grad_ready(exec_t *ex, int i)
{
    const instr_t *in = &ex->prog->code[i];
    for (int k = 0; k < in->nin && ex->engine.ops->src_grad_ready && !ex->failed; k++)
        if ((ex->first_src[i] >> k & 1) && ex->prog->vals[in->in[k]].requires_grad && ex->grad_set[in->in[k]])
            exec_engine_failed(ex, ex->engine.ops->src_grad_ready(ex->engine.self, ex, in->in[k], ex->hop[i], &ex->err));
}

ew_args_t exec_ew_args(const exec_t *ex, const instr_t *in)
{
    const tensor_t *out = &ex->val[in->out];
    return (ew_args_t){.op = in->op, .a = ex->val[in->in[0]].data, .b = in->nin > 1 ? ex->val[in->in[1]].data : NULL,
                       .c = in->nin > 2 ? ex->val[in->in[2]].data : NULL, .rows = out->rows, .cols = out->cols,
                       .fp = dropout_p(ex, in), .g = exec_keys_of(ex, in->out),
                       .edge = ex->prog->vals[in->out].dom == DOM_EDGE,
                       .key = gs_hash3(ex->seed, (uint64_t)ex->epoch, (uint64_t)in->iparam),
                       .mask = exec_masks_relu(ex, in) ? ex->relu_mask[in - ex->prog->code] : NULL};
}
