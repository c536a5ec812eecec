/* program.c - building op programs: value creation and shape inference.
 * Shape errors are programming errors in a model file; they are reported
 * through p->err rather than asserted, so tests can see them. */
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_table.h"

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
    const op_desc_t *d = op_desc(op);
    if (!d || !d->shape) return bad(p, op, "unknown op");
    const value_t *v[3] = {&p->vals[a], nin > 1 ? &p->vals[b] : NULL, nin > 2 ? &p->vals[c] : NULL};
    if (!is_rowwise(v[0]->dom)) return bad(p, op, "first input must be a vertex or edge tensor");
    val_domain_t dom = v[0]->dom == DOM_EDGE ? DOM_EDGE : DOM_VERTEX;
    int64_t cols = v[0]->cols;
    const char *why = d->shape(p, v, nin, fparam, iparam, &dom, &cols);
    if (why) return bad(p, op, why);
    if (d->flags & OPF_MASKED) iparam = p->ndropout++; /* the site's mask key survives program rewrites */
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

int prog_uses_heads(const program_t *p)
{
    for (int i = 0; i < p->ncode; i++)
        if (p->code[i].op == OP_HEAD_DOT || p->code[i].op == OP_GATHER_ATTN) return 1;
    return 0;
}
