/* exec_forward.c - running a program forward (exec.h): each instruction
 * on the execution engine (matmuls and sum gathers) or the place's op
 * table (everything else), its FLOPs from the op table, its host work
 * booked on the run's clock. Dropout is active when training. */
#include <string.h>

#include "engine/program/op_table.h"
#include "engine/machine/vclock.h"
#include "exec_calls.h"

/* The place's kernel for the graph ops the engine does not run. */
static void graph_op(exec_t *ex, int i, const tensor_t *A, tensor_t *out)
{
    const kops_t *K = ex->kp.K;
    kops_ctx_t *cx = ex->kp.cx;
    const instr_t *in = &ex->prog->code[i];
    const graph_t *g = ex->block[ex->hop[i]];
    int64_t f = out->cols;
    switch (in->op) {
    case OP_GATHER_MAX: K->gather_max(cx, g, A->data, f, out->data, ex->argmax[i]); break;
    case OP_SCATTER_SRC: K->scatter_src(cx, g, A->data, f, out->data); break;
    case OP_SCATTER_DST: K->scatter_dst(cx, g, A->data, f, out->data); break;
    case OP_GATHER_EDGE_MAX: K->gather_edge_max(cx, g, A->data, f, out->data, ex->argmax[i]); break;
    case OP_GATHER_EDGE: K->gather_edge(cx, g, (agg_weight_t)in->iparam, A->data, f, out->data, 0); break;
    case OP_EDGE_UADDV: K->edge_uaddv(cx, g, A->data, exec_data(ex, in->in[1]), f, out->data); break;
    case OP_EDGE_SOFTMAX: K->edge_softmax(cx, g, A->data, f, out->data); break;
    case OP_GATHER_ATTN: K->gather_attn(cx, g, A->data, exec_data(ex, in->in[1]), in->iparam, f / in->iparam, out->data); break;
    case OP_SCATTER_TYPED: K->scatter_typed(cx, g, A->data, f, out->data); break;
    case OP_EDGE_MATMUL_TYPED: K->edge_matmul_typed(cx, g, A->data, exec_data(ex, in->in[1]), A->cols, f, out->data); break;
    case OP_GATHER_FUSED: {
        const float *leaf[FUSE_MAX_LEAVES] = {0};
        for (int k = 0; k < in->nin; k++) leaf[k] = exec_data(ex, in->in[k]);
        K->gather_fused(cx, g, &ex->prog->fused[in->iparam], leaf, f, out->data);
        break;
    }
    default: break;
    }
}

/* Offers gather i (call c) and the ApplyVertex ops after it
 * (exec_apply_chain) to the engine as one op; 1 when it ran the gather
 * (the ops it ran with it are skipped). Not while DKP times ops: each
 * needs its own sample. */
static int gather_apply(exec_t *ex, int i, const gather_call_t *c)
{
    const exec_engine_t *E = &ex->engine;
    apply_op_t ops[APPLY_MAX_OPS];
    int n = E->ops->gather_apply && !ex->samples ? exec_apply_chain(ex, i, ops) : 0, ran = -1;
    if (n == 0) return 0;
    exec_engine_failed(ex, E->ops->gather_apply(E->self, c, ops, n, &ran, &ex->err));
    if (ran >= 0) ex->skip_last = i + ran;
    return ran >= 0 || ex->failed;
}

/* Runs instruction i on the engine or the place; 1 when the engine ran it. */
static int forward_op(exec_t *ex, int i)
{
    const instr_t *in = &ex->prog->code[i];
    const exec_engine_t *E = &ex->engine;
    const tensor_t *A = &ex->val[in->in[0]];
    tensor_t *out = &ex->val[in->out];
    if (i <= ex->skip_last) { /* the engine ran it with an op before it */
        return 1;
    } else if (in->op == OP_MATMUL) {
        matmul_call_t c = exec_matmul_call(ex, in);
        exec_engine_failed(ex, E->ops->matmul(E->self, &c, &ex->err));
        return 1;
    } else if (op_has(in->op, OPF_ENGINE)) { /* a sum gather, alone or with the ApplyVertex ops after it */
        gather_call_t c = exec_gather_call(ex, i, 0);
        if (gather_apply(ex, i, &c)) return 1;
        exec_engine_failed(ex, E->ops->gather(E->self, &c, &ex->err));
        return 1;
    } else if (exec_sag_pair(ex, i) && exec_engine_sag(ex, i, 0, 0)) {
        ex->skip_last = i + 1;
        return 1;
    } else if (exec_engine_graph_op(ex, i, 0, NULL, NULL)) {
        return 1;
    } else if (op_has(in->op, OPF_EW)) {
        ew_args_t c = exec_ew_args(ex, in);
        c.out = out->data;
        ex->kp.K->ew_forward(ex->kp.cx, &c);
    } else if (in->op == OP_HEAD_DOT) {
        ex->kp.K->head_dot(ex->kp.cx, A->data, exec_data(ex, in->in[1]), out->rows, in->iparam, A->cols / in->iparam, out->data);
    } else {
        graph_op(ex, i, A, out);
    }
    return 0;
}

/* DKP's timing sample of forward op i (dkp.h): a matmul's (M*K*M', M*M')
 * or a plain gather's (E*F, (n_src + n_dst)*F), and its seconds. */
static void dkp_sample(exec_t *ex, int i, double seconds)
{
    const instr_t *in = &ex->prog->code[i];
    dkp_model_t *s = ex->samples;
    const tensor_t *A = &ex->val[in->in[0]];
    double f = (double)ex->val[in->out].cols;
    if (in->op == OP_MATMUL) {
        exec_sample(s->gemm, &s->ngemm, (double)A->rows * (double)A->cols * f, (double)A->rows * f, seconds);
    } else if (in->op == OP_GATHER) {
        const graph_t *g = ex->block[ex->hop[i]];
        exec_sample(s->gather, &s->ngather, (double)g->m * f, (double)(g->nsrc + g->n) * f, seconds);
    }
}

/* Instruction i's sizes for the op table's costs. */
static op_dims_t dims_of(const exec_t *ex, int i)
{
    const instr_t *in = &ex->prog->code[i];
    const tensor_t *A = &ex->val[in->in[0]], *out = &ex->val[in->out];
    double edges = ex->hop[i] ? (double)ex->block[ex->hop[i]]->m : 0;
    return (op_dims_t){.rows = (double)out->rows, .cols = (double)out->cols, .in_rows = (double)A->rows, .in_cols = (double)A->cols,
                       .edges = edges, .grads = 1};
}

const tensor_t *exec_forward(exec_t *ex, const tensor_t *x, int training, int64_t epoch)
{
    const program_t *P = ex->prog;
    const kops_t *K = ex->kp.K;
    ex->val[P->input] = *x;
    ex->training = training;
    ex->epoch = epoch;
    ex->flops = 0;
    ex->skip_last = -1;
    if (training) memset(ex->agg_flops, 0, sizeof ex->agg_flops);
    for (int i = 0; i < P->ncode && !ex->failed; i++) {
        const instr_t *in = &P->code[i];
        if (K->annotate) K->annotate(ex->kp.cx, in->layer, 0, op_name(in->op));
        if (ex->samples && K->device) K->sync(ex->kp.cx, &ex->err); /* kernel timings need an idle device */
        exec_src_ready(ex, i);
        exec_mark_t mark = exec_mark(ex);
        double c0 = ex->clock ? ex->clock->now : 0;
        int engine_op = forward_op(ex, i);
        double wall_s = ex->samples && !ex->clock ? exec_op_seconds(ex, mark.t0) : 0;
        double flops = op_flops(P, in, dims_of(ex, i), 0);
        ex->flops += flops;
        if (!engine_op) exec_host_wrote(ex, in->out, 0);
        if (training) exec_count_aggregation(ex, in, 0, flops);
        exec_op_done(ex, in, 0, engine_op, mark, flops);
        /* on the run's clock: the emulated span (charged by the engine, or by exec_op_done), else the wall's */
        if (ex->samples) dkp_sample(ex, i, ex->clock ? ex->clock->now - c0 : wall_s);
    }
    return &ex->val[P->output];
}
