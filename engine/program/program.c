/* program.c - building op programs: value creation and shape inference.
 * Shape errors are programming errors in a model file; they are reported
 * through p->err rather than asserted, so tests can see them. */
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *names[OP__COUNT] = {
    [OP_MATMUL] = "matmul",         [OP_BIAS] = "bias",           [OP_ADD] = "add",
    [OP_MUL] = "mul",               [OP_LERP] = "lerp",           [OP_RELU] = "relu",
    [OP_LEAKY_RELU] = "leaky_relu", [OP_ELU] = "elu",             [OP_SIGMOID] = "sigmoid",
    [OP_TANH] = "tanh",             [OP_DROPOUT] = "dropout",     [OP_HEAD_DOT] = "head_dot",
    [OP_GATHER] = "gather",         [OP_GATHER_MAX] = "gather_max", [OP_SCATTER_SRC] = "scatter_src",
    [OP_SCATTER_DST] = "scatter_dst", [OP_GATHER_EDGE] = "gather_edge", [OP_EDGE_UADDV] = "edge_uaddv",
    [OP_EDGE_SOFTMAX] = "edge_softmax", [OP_GATHER_ATTN] = "gather_attn", [OP_GATHER_TYPED] = "gather_typed",
    [OP_GATHER_FUSED] = "gather_fused", [OP_SCATTER_TYPED] = "scatter_typed",
    [OP_EDGE_MATMUL_TYPED] = "edge_matmul_typed",
};

const char *op_name(op_kind_t op) { return op < OP__COUNT ? names[op] : "?"; }

void prog_init(program_t *p, int ntypes)
{
    memset(p, 0, sizeof *p);
    p->input = p->output = -1;
    p->ntypes = ntypes;
}

void prog_free(program_t *p)
{
    free(p->vals);
    free(p->code);
    free(p->fused);
    memset(p, 0, sizeof *p);
}

static int new_value(program_t *p, val_domain_t dom, int64_t rows, int64_t cols, int rg)
{
    if (p->failed) return -1;
    if (p->nvals == p->cap_vals) {
        int cap = p->cap_vals ? p->cap_vals * 2 : 64;
        value_t *nv = realloc(p->vals, sizeof *nv * (size_t)cap);
        if (!nv) {
            p->failed = 1;
            gs_fail(&p->err, GS_EFAIL, "out of memory building a program");
            return -1;
        }
        p->vals = nv;
        p->cap_vals = cap;
    }
    value_t *v = &p->vals[p->nvals];
    memset(v, 0, sizeof *v);
    v->dom = dom, v->rows = rows, v->cols = cols, v->requires_grad = rg, v->param = -1;
    return p->nvals++;
}

int prog_input(program_t *p, int64_t cols)
{
    p->input = new_value(p, DOM_INPUT, 0, cols, 0);
    if (p->input >= 0) snprintf(p->vals[p->input].name, sizeof p->vals[0].name, "x");
    return p->input;
}

int prog_param(program_t *p, const char *name, int64_t rows, int64_t cols, init_kind_t init)
{
    int id = new_value(p, DOM_PARAM, rows, cols, 1);
    if (id < 0) return -1;
    p->vals[id].param = p->nparams++;
    p->vals[id].init = init;
    snprintf(p->vals[id].name, sizeof p->vals[id].name, "%s", name);
    return id;
}

static int bad(program_t *p, op_kind_t op, const char *why)
{
    p->failed = 1;
    gs_fail(&p->err, GS_EFAIL, "program: op %s in layer %d: %s", op_name(op), p->cur_layer, why);
    return -1;
}

/* Grows the code array for one more instruction. */
static int code_room(program_t *p)
{
    if (p->ncode < p->cap_code) return 0;
    int cap = p->cap_code ? p->cap_code * 2 : 64;
    instr_t *nc = realloc(p->code, sizeof *nc * (size_t)cap);
    if (!nc) return -1;
    p->code = nc;
    p->cap_code = cap;
    return 0;
}

static int is_rowwise(val_domain_t d) { return d == DOM_INPUT || d == DOM_VERTEX || d == DOM_EDGE; }
static val_domain_t rows_dom(val_domain_t d) { return d == DOM_EDGE ? DOM_EDGE : DOM_VERTEX; }

int prog_op(program_t *p, op_kind_t op, int a, int b, int c, float fparam, int iparam)
{
    if (p->failed) return -1;
    int ins[3] = {a, b, c}, nin = 0;
    for (int i = 0; i < 3; i++) {
        if (ins[i] < 0) break;
        if (ins[i] >= p->nvals) return bad(p, op, "input value out of range");
        nin++;
    }
    if (nin == 0) return bad(p, op, "no inputs");
    const value_t *A = &p->vals[a], *B = nin > 1 ? &p->vals[b] : NULL, *C = nin > 2 ? &p->vals[c] : NULL;
    if (!is_rowwise(A->dom)) return bad(p, op, "first input must be a vertex or edge tensor");
    val_domain_t dom = rows_dom(A->dom);
    int64_t cols = A->cols;
    switch (op) {
    case OP_MATMUL:
        if (!B || B->dom != DOM_PARAM || B->rows != A->cols) return bad(p, op, "needs a (K, M) parameter with K = cols");
        cols = B->cols;
        break;
    case OP_BIAS:
        if (!B || B->dom != DOM_PARAM || B->rows != 1 || B->cols != A->cols) return bad(p, op, "needs a (1, cols) parameter");
        break;
    case OP_ADD:
    case OP_MUL:
        if (!B || rows_dom(B->dom) != dom || B->cols != cols) return bad(p, op, "shapes differ");
        break;
    case OP_LERP:
        if (!B || !C || rows_dom(B->dom) != dom || rows_dom(C->dom) != dom || B->cols != cols || C->cols != cols)
            return bad(p, op, "shapes differ");
        break;
    case OP_DROPOUT:
        if (!(fparam >= 0.0f && fparam < 1.0f)) return bad(p, op, "drop probability must be in [0, 1)");
        iparam = p->ndropout++; /* the site's mask key survives program rewrites */
        break;
    case OP_RELU: case OP_LEAKY_RELU: case OP_ELU: case OP_SIGMOID: case OP_TANH:
        break;
    case OP_HEAD_DOT:
        if (!B || B->dom != DOM_PARAM || B->rows != 1 || B->cols != cols || iparam < 1 || cols % iparam)
            return bad(p, op, "needs a (1, K*H) parameter and K dividing cols");
        cols = iparam;
        break;
    case OP_GATHER: case OP_GATHER_MAX: case OP_SCATTER_SRC: case OP_SCATTER_DST:
        if (dom != DOM_VERTEX) return bad(p, op, "needs a vertex tensor");
        dom = (op == OP_SCATTER_SRC || op == OP_SCATTER_DST) ? DOM_EDGE : DOM_VERTEX;
        break;
    case OP_GATHER_EDGE: case OP_EDGE_SOFTMAX:
        if (dom != DOM_EDGE) return bad(p, op, "needs an edge tensor");
        if (op == OP_GATHER_EDGE) dom = DOM_VERTEX;
        break;
    case OP_EDGE_UADDV:
        if (dom != DOM_VERTEX || !B || rows_dom(B->dom) != DOM_VERTEX || B->cols != cols) return bad(p, op, "needs two vertex tensors of equal width");
        dom = DOM_EDGE;
        break;
    case OP_GATHER_ATTN:
        if (dom != DOM_VERTEX || !B || B->dom != DOM_EDGE || B->cols != iparam || iparam < 1 || cols % iparam)
            return bad(p, op, "needs X (N, K*H) and A (E, K)");
        break;
    case OP_GATHER_TYPED:
    case OP_SCATTER_TYPED:
        if (dom != DOM_VERTEX || p->ntypes < 1 || cols % p->ntypes) return bad(p, op, "needs (N, T*H)");
        cols /= p->ntypes;
        if (op == OP_SCATTER_TYPED) dom = DOM_EDGE;
        break;
    case OP_EDGE_MATMUL_TYPED:
        if (dom != DOM_EDGE || !B || B->dom != DOM_PARAM || B->rows != A->cols || p->ntypes < 1 || B->cols % p->ntypes)
            return bad(p, op, "needs an edge tensor (E, K) and a (K, T*M) parameter");
        cols = B->cols / p->ntypes;
        break;
    default:
        return bad(p, op, "unknown op");
    }
    int rg = 0;
    for (int i = 0; i < nin; i++) rg |= p->vals[ins[i]].requires_grad;
    int out = new_value(p, dom, 0, cols, rg);
    if (out < 0) return -1;
    snprintf(p->vals[out].name, sizeof p->vals[out].name, "%s.%d", op_name(op), p->cur_layer);
    if (code_room(p)) return bad(p, op, "out of memory");
    instr_t *in = &p->code[p->ncode++];
    memset(in, 0, sizeof *in);
    in->op = op, in->out = out, in->nin = nin, in->fparam = fparam, in->iparam = iparam;
    in->layer = p->cur_layer, in->stage = p->cur_stage;
    for (int i = 0; i < 3; i++) in->in[i] = i < nin ? ins[i] : -1;
    p->output = out;
    return out;
}

int prog_insert(program_t *p, int pos, instr_t in, val_domain_t dom, int64_t cols)
{
    if (p->failed || pos < 0 || pos > p->ncode) return -1;
    int rg = 0;
    for (int k = 0; k < in.nin; k++) rg |= p->vals[in.in[k]].requires_grad;
    int out = new_value(p, dom, 0, cols, rg);
    if (out < 0) return -1;
    snprintf(p->vals[out].name, sizeof p->vals[out].name, "%s.%d", op_name(in.op), in.layer);
    if (code_room(p)) return bad(p, in.op, "out of memory");
    memmove(&p->code[pos + 1], &p->code[pos], sizeof *p->code * (size_t)(p->ncode - pos));
    in.out = out;
    p->code[pos] = in;
    p->ncode++;
    return out;
}

int prog_add_fused(program_t *p, const fused_expr_t *e)
{
    if (p->failed) return -1;
    if (p->nfused == p->cap_fused) {
        int cap = p->cap_fused ? p->cap_fused * 2 : 8;
        fused_expr_t *nf = realloc(p->fused, sizeof *nf * (size_t)cap);
        if (!nf) return bad(p, OP_GATHER_FUSED, "out of memory");
        p->fused = nf;
        p->cap_fused = cap;
    }
    p->fused[p->nfused] = *e;
    return p->nfused++;
}

void prog_prune(program_t *p)
{
    char *live = calloc((size_t)p->nvals, 1);
    int *renum = malloc(sizeof(int) * (size_t)p->nvals);
    if (!live || !renum) {
        free(live), free(renum);
        return;
    }
    live[p->output] = 1;
    for (int i = p->ncode - 1; i >= 0; i--)
        if (live[p->code[i].out])
            for (int k = 0; k < p->code[i].nin; k++) live[p->code[i].in[k]] = 1;
    int w = 0;
    for (int i = 0; i < p->ncode; i++)
        if (live[p->code[i].out]) p->code[w++] = p->code[i];
    p->ncode = w;
    /* values: parameters and the input stay whatever reads them */
    int nv = 0;
    for (int v = 0; v < p->nvals; v++) {
        int keep = live[v] || p->vals[v].dom == DOM_PARAM || v == p->input;
        renum[v] = keep ? nv : -1;
        if (keep) p->vals[nv++] = p->vals[v];
    }
    p->nvals = nv;
    for (int i = 0; i < p->ncode; i++) {
        instr_t *in = &p->code[i];
        in->out = renum[in->out];
        for (int k = 0; k < in->nin; k++) in->in[k] = renum[in->in[k]];
    }
    p->input = p->input >= 0 ? renum[p->input] : -1;
    p->output = renum[p->output];
    free(live), free(renum);
}

double prog_edge_bytes(const program_t *p, int64_t m)
{
    double bytes = 0;
    for (int v = 0; v < p->nvals; v++)
        if (p->vals[v].dom == DOM_EDGE) bytes += 4.0 * (double)m * (double)p->vals[v].cols * (1 + (p->vals[v].requires_grad != 0));
    return bytes;
}

double prog_memory_bytes(const program_t *p, int64_t n, int64_t m)
{
    double bytes = 0;
    for (int v = 0; v < p->nvals; v++) {
        const value_t *val = &p->vals[v];
        double rows = val->dom == DOM_PARAM ? (double)val->rows : val->dom == DOM_EDGE ? (double)m : (double)n;
        double copies = val->dom == DOM_PARAM ? 4 : val->dom == DOM_INPUT ? 0 : 1 + (val->requires_grad != 0);
        bytes += 4.0 * rows * (double)val->cols * copies;
    }
    for (int i = 0; i < p->ncode; i++)
        if (p->code[i].op == OP_GATHER_MAX) bytes += 4.0 * (double)n * (double)p->vals[p->code[i].out].cols;
    if (p->output >= 0) bytes += 4.0 * (double)n * (double)p->vals[p->output].cols;
    return bytes;
}

int prog_uses_heads(const program_t *p)
{
    for (int i = 0; i < p->ncode; i++)
        if (p->code[i].op == OP_HEAD_DOT || p->code[i].op == OP_GATHER_ATTN) return 1;
    return 0;
}
