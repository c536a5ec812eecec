/* exec_backward.c - the backward pass derived from a program (exec.h):
 * the instructions in reverse, each op's vector-Jacobian rule adding into
 * its operands' gradients. The first write to a gradient overwrites it,
 * later ones add, so nothing is zeroed; parameters no gradient reached
 * get zero. Matmuls and sum gathers run on the execution engine. */
#include <string.h>

#include "engine/program/op_table.h"
#include "exec_calls.h"

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
        int64_t rows = exec_rows_of(ex, v);
        if (rows > written)
            ex->kp.K->zero(ex->kp.cx, ex->grad[v].data + written * val->cols, sizeof(float) * (size_t)((rows - written) * val->cols));
    }
    return ex->grad[v].data;
}

/* The rows of operand k's gradient that instruction i's rule writes, when
 * they may be fewer than the operand has, else -1: an elementwise op over
 * levels writes its output's rows; a graph op writes a vertex operand it
 * reads at the destinations (a scatter_dst, a destination leaf) on the
 * block's n rows only, fewer than a lower level's source rows in a
 * sampled block. */
static int64_t rows_written(const exec_t *ex, int i, int k)
{
    const instr_t *in = &ex->prog->code[i];
    if (!ex->hop[i]) return ex->val[in->out].rows;
    if (ex->prog->vals[in->in[k]].dom != DOM_VERTEX || op_reads_by_source(ex->prog, in, k)) return -1;
    return ex->block[ex->hop[i]]->n;
}

/* An instruction's operand gradients in this pass: where they go (NULL:
 * none wanted) and whether each adds. */
typedef struct {
    float *d[3];
    int acc[3];
} grads_t;

/* The place's vector-Jacobian rules of the graph ops the engine does not run. */
static void graph_op_bwd(exec_t *ex, int i, const float *dy, grads_t *gr)
{
    const kops_t *K = ex->kp.K;
    kops_ctx_t *cx = ex->kp.cx;
    const instr_t *in = &ex->prog->code[i];
    const graph_t *g = ex->block[ex->hop[i]];
    const tensor_t *A = &ex->val[in->in[0]];
    int64_t f = ex->val[in->out].cols;
    float *da = gr->d[0], *db = gr->d[1];
    int acc_a = gr->acc[0], acc_b = gr->acc[1];
    switch (in->op) {
    case OP_GATHER_MAX: if (da) K->gather_max_bwd(cx, g, ex->argmax[i], dy, f, da, acc_a); break;
    case OP_SCATTER_SRC: if (da) K->scatter_src_bwd(cx, g, dy, f, da, acc_a); break;
    case OP_SCATTER_DST: if (da) K->scatter_dst_bwd(cx, g, dy, f, da, acc_a); break;
    case OP_GATHER_EDGE_MAX: if (da) K->gather_edge_max_bwd(cx, g, ex->argmax[i], dy, f, da, acc_a); break;
    case OP_GATHER_EDGE: if (da) K->gather_edge_bwd(cx, g, (agg_weight_t)in->iparam, dy, f, da, acc_a); break;
    case OP_EDGE_UADDV:
        if (da) K->scatter_src_bwd(cx, g, dy, f, da, acc_a);
        if (db) K->scatter_dst_bwd(cx, g, dy, f, db, acc_b);
        break;
    case OP_EDGE_SOFTMAX: if (da) K->edge_softmax_bwd(cx, g, ex->val[in->out].data, dy, f, da, acc_a); break;
    case OP_GATHER_ATTN:
        if (da) K->gather_attn_bwd(cx, g, exec_data(ex, in->in[1]), dy, in->iparam, f / in->iparam, da, acc_a);
        if (db) K->sddmm(cx, g, dy, A->data, in->iparam, f / in->iparam, db, acc_b);
        break;
    case OP_SCATTER_TYPED: if (da) K->scatter_typed_bwd(cx, g, dy, f, da, acc_a); break;
    case OP_EDGE_MATMUL_TYPED:
        if (da || db) K->edge_matmul_typed_bwd(cx, g, A->data, exec_data(ex, in->in[1]), dy, A->cols, f, da, acc_a, db, acc_b);
        break;
    case OP_GATHER_FUSED: {
        const float *leaf[FUSE_MAX_LEAVES] = {0};
        for (int k = 0; k < in->nin; k++) leaf[k] = exec_data(ex, in->in[k]);
        K->gather_fused_bwd(cx, g, &ex->prog->fused[in->iparam], leaf, dy, f, gr->d, gr->acc);
        break;
    }
    default: break;
    }
}

/* When the engine ran an attention gather's input gradient: the scales'
 * own gradient (an SDDMM over the edges), here, booked as host work. */
static void scales_grad_on_host(exec_t *ex, int i, const float *dy, const grads_t *gr)
{
    const instr_t *in = &ex->prog->code[i];
    const graph_t *g = ex->block[ex->hop[i]];
    int64_t f = ex->val[in->out].cols, k = in->iparam;
    exec_mark_t mark = exec_mark(ex);
    ex->kp.K->sddmm(ex->kp.cx, g, dy, ex->val[in->in[0]].data, k, f / k, gr->d[1], gr->acc[1]);
    double m = (double)g->m, flops = 2.0 * m * (double)f;
    exec_host_work(ex, mark, in, 1, flops, (op_traffic_t){4.0 * m * (double)k + 8.0 * m, 8.0 * m * (double)f});
}

/* The dense rules: a matmul on the engine, the elementwise kernel (a
 * bias's own gradient is a column sum), head dots. */
static void dense_op_bwd(exec_t *ex, const instr_t *in, const float *dy, grads_t *gr)
{
    const kops_t *K = ex->kp.K;
    const tensor_t *A = &ex->val[in->in[0]], *Y = &ex->val[in->out];
    if (in->op == OP_MATMUL) {
        if (!gr->d[0] && !gr->d[1]) return;
        matmul_call_t c = exec_matmul_call(ex, in);
        c.dy = exec_xtensor(ex, in->out, 1);
        if (gr->d[0]) c.da = exec_xtensor(ex, in->in[0], 1);
        c.acc_a = gr->acc[0], c.dw = gr->d[1], c.acc_w = gr->acc[1];
        exec_engine_failed(ex, ex->engine.ops->matmul_bwd(ex->engine.self, &c, &ex->err));
    } else if (in->op == OP_HEAD_DOT) {
        K->head_dot_bwd(ex->kp.cx, A->data, exec_data(ex, in->in[1]), dy, Y->rows, in->iparam, A->cols / in->iparam, gr->d[0],
                        gr->acc[0], gr->d[1], gr->acc[1]);
    } else {
        if (in->op == OP_BIAS && gr->d[1]) K->colsum(ex->kp.cx, dy, Y->rows, Y->cols, gr->d[1], gr->acc[1]);
        if (in->op == OP_BIAS) gr->d[1] = NULL;
        ew_args_t c = exec_ew_args(ex, in);
        c.y = Y->data, c.dy = dy, c.da = gr->d[0], c.db = gr->d[1], c.dc = gr->d[2];
        c.acc_a = gr->acc[0], c.acc_b = gr->acc[1], c.acc_c = gr->acc[2];
        if (c.da || c.db || c.dc) K->ew_backward(ex->kp.cx, &c);
    }
}

/* The FLOPs of instruction i's rule: the gradients it computed (a fused
 * gather: its passes, over source and over destination leaves). */
static double bwd_flops(const exec_t *ex, int i, const grads_t *gr)
{
    const instr_t *in = &ex->prog->code[i];
    const tensor_t *A = &ex->val[in->in[0]], *Y = &ex->val[in->out];
    int grads = (gr->d[0] != NULL) + (gr->d[1] != NULL) + (gr->d[2] != NULL), passes = 0;
    if (in->op == OP_GATHER_FUSED) {
        for (int k = 0; k < in->nin; k++) passes |= gr->d[k] ? 1 << (ex->prog->fused[in->iparam].leaf_dst >> k & 1) : 0;
        grads = __builtin_popcount((unsigned)passes);
    }
    double edges = ex->hop[i] ? (double)ex->block[ex->hop[i]]->m : 0;
    return op_flops(ex->prog, in, (op_dims_t){.rows = (double)Y->rows, .cols = (double)Y->cols, .in_rows = (double)A->rows, .in_cols = (double)A->cols,
                                             .edges = edges, .grads = grads}, 1);
}

/* The rules of a scatter-gather pair (exec_sag_pair(j - 1)) as one
 * engine op, from the gather's output gradient into the scatter's input
 * gradient, with their bookkeeping; the edge tensor's gradient is never
 * set, so the scatter's own rule does not run. 0: the executor runs both
 * (the engine declined, or nothing wants that gradient). */
static int sag_backward(exec_t *ex, int j, exec_mark_t mark)
{
    const instr_t *ga = &ex->prog->code[j], *sc = &ex->prog->code[j - 1];
    int x = sc->in[0], acc;
    uint8_t was = ex->grad_set[x];
    float *d = gtarget(ex, x, &acc, rows_written(ex, j - 1, 0));
    if (!d) return 0;
    if (!exec_engine_sag(ex, j - 1, 1, acc)) {
        ex->grad_set[x] = was;
        return 0;
    }
    grads_t gr = {{d, NULL, NULL}, {acc, 0, 0}};
    double fg = bwd_flops(ex, j, &gr), fs = bwd_flops(ex, j - 1, &gr);
    ex->flops += fg + fs;
    exec_src_grad_ready(ex, j - 1);
    exec_count_aggregation(ex, ga, 1, fg);
    exec_count_aggregation(ex, sc, 1, fs);
    exec_op_done(ex, ga, 1, 1, mark, fg + fs);
    return 1;
}

/* Instruction i's rule, with its bookkeeping. */
static void backward_op(exec_t *ex, int i)
{
    const instr_t *in = &ex->prog->code[i];
    if (ex->kp.K->annotate) ex->kp.K->annotate(ex->kp.cx, in->layer, 1, op_name(in->op));
    exec_mark_t mark = exec_mark(ex);
    if (exec_sag_pair(ex, i - 1) && sag_backward(ex, i, mark)) return;
    grads_t gr = {{NULL, NULL, NULL}, {0, 0, 0}};
    for (int k = 0; k < in->nin; k++) gr.d[k] = gtarget(ex, in->in[k], &gr.acc[k], rows_written(ex, i, k));
    const float *dy = ex->grad[in->out].data;
    int engine_op = op_has(in->op, OPF_ENGINE);
    if (engine_op && in->op != OP_MATMUL) { /* a sum gather */
        if (gr.d[0]) {
            gather_call_t c = exec_gather_call(ex, i, 1);
            c.acc = gr.acc[0];
            exec_engine_failed(ex, ex->engine.ops->gather_bwd(ex->engine.self, &c, &ex->err));
        }
    } else if (ex->hop[i]) {
        engine_op = exec_engine_graph_op(ex, i, 1, gr.d, gr.acc);
        if (engine_op && in->op == OP_GATHER_ATTN && gr.d[1]) scales_grad_on_host(ex, i, dy, &gr);
        if (!engine_op) graph_op_bwd(ex, i, dy, &gr);
    } else {
        dense_op_bwd(ex, in, dy, &gr);
    }
    double flops = bwd_flops(ex, i, &gr);
    ex->flops += flops;
    for (int k = 0; !engine_op && k < in->nin; k++)
        if (gr.d[k]) exec_host_wrote(ex, in->in[k], 1);
    exec_src_grad_ready(ex, i);
    exec_count_aggregation(ex, in, 1, flops);
    exec_op_done(ex, in, 1, engine_op, mark, flops);
}

void exec_backward(exec_t *ex, const tensor_t *dout)
{
    const program_t *P = ex->prog;
    const kops_t *K = ex->kp.K;
    memset(ex->grad_set, 0, (size_t)P->nvals);
    int oacc;
    float *go = gtarget(ex, P->output, &oacc, -1);
    if (!go) return;
    K->copy(ex->kp.cx, go, dout->data, tensor_bytes(dout));
    exec_host_wrote(ex, P->output, 1);
    for (int i = P->ncode - 1; i >= 0 && !ex->failed; i--)
        if (ex->grad_set[P->code[i].out]) backward_op(ex, i); /* else no gradient flows here */
    /* parameters that received no gradient this pass get zero */
    for (int v = 0; v < P->nvals; v++)
        if (P->vals[v].dom == DOM_PARAM && !ex->grad_set[v]) K->zero(ex->kp.cx, ex->grad[v].data, tensor_bytes(&ex->grad[v]));
}
