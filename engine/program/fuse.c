/* fuse.c - see fuse.h. Programs are a few dozen instructions, so each
 * rewrite rescans the program (producers and uses are recomputed). */
#include "fuse.h"

#include <stdlib.h>
#include <string.h>

#include "op_table.h"

/* The instruction producing each value (-1: none), and how many operand slots read it. */
typedef struct {
    int *prod, *uses;
} defuse_t;

static int defuse(const program_t *p, defuse_t *d)
{
    d->prod = malloc(sizeof(int) * (size_t)p->nvals);
    d->uses = calloc((size_t)p->nvals, sizeof(int));
    if (!d->prod || !d->uses) return -1;
    for (int v = 0; v < p->nvals; v++) d->prod[v] = -1;
    for (int i = 0; i < p->ncode; i++) {
        d->prod[p->code[i].out] = i;
        for (int k = 0; k < p->code[i].nin; k++) d->uses[p->code[i].in[k]]++;
    }
    d->uses[p->output]++;
    return 0;
}

static void defuse_free(defuse_t *d) { free(d->prod), free(d->uses); }

/* The op kinds the passes below read from the op table (op_table.h):
 * scatters put a row on the edges; fusable ops are elementwise with no
 * parameter or mask, so a fused gather evaluates them per edge (hoisting
 * them would only add leaves); hoistable ops have a parameter operand and
 * act on each row alone, so they commute with a scatter. Dropout never
 * moves (its mask is keyed by the row's vertex or edge). */
static int is_scatter(op_kind_t op) { return op_has(op, OPF_SCATTER); }

/* ---------------- hoisting ---------------- */

/* A typed product of source rows, X[src] A_type(e), is the typed pick of
 * the product of every type, (X A)[src, type(e)]: one (N, K) x (K, T*M)
 * product on the vertices and a typed scatter. */
static int hoist_typed(program_t *p, const defuse_t *d, int i)
{
    instr_t I = p->code[i];
    int j = d->prod[I.in[0]];
    if (j < 0 || p->code[j].op != OP_SCATTER_SRC) return 0;
    instr_t mm = {OP_MATMUL, -1, {p->code[j].in[0], I.in[1], -1}, 2, 0, 0, I.layer, STAGE_APPLY_VERTEX};
    int v = prog_insert(p, i, mm, DOM_VERTEX, p->vals[I.in[1]].cols);
    if (v < 0) return 0;
    p->code[i + 1] = (instr_t){OP_SCATTER_TYPED, I.out, {v, -1, -1}, 1, 0, 0, I.layer, STAGE_SCATTER};
    return 1;
}

/* Hoists instruction i when it can; returns 1 when it did. */
static int hoist_one(program_t *p, const defuse_t *d, int i)
{
    instr_t I = p->code[i];
    if (I.op == OP_EDGE_MATMUL_TYPED) return hoist_typed(p, d, i);
    if (p->vals[I.out].dom != DOM_EDGE || !op_has(I.op, OPF_HOISTABLE)) return 0;
    int side = -1, src[3] = {-1, -1, -1};
    for (int k = 0; k < I.nin; k++) {
        int v = I.in[k];
        if (p->vals[v].dom == DOM_PARAM) {
            src[k] = v;
            continue;
        }
        int j = d->prod[v];
        if (j < 0 || !is_scatter(p->code[j].op) || (side >= 0 && side != (int)p->code[j].op)) return 0;
        side = (int)p->code[j].op;
        src[k] = p->code[j].in[0];
    }
    if (side < 0) return 0;
    instr_t moved = I;
    memcpy(moved.in, src, sizeof src);
    moved.stage = STAGE_APPLY_VERTEX;
    int v = prog_insert(p, i, moved, DOM_VERTEX, p->vals[I.out].cols);
    if (v < 0) return 0;
    p->code[i + 1] = (instr_t){(op_kind_t)side, I.out, {v, -1, -1}, 1, 0, 0, I.layer, STAGE_SCATTER};
    return 1;
}

/* ---------------- fused gathers ---------------- */

typedef struct {
    fused_expr_t e;
    int leaf_val[FUSE_MAX_LEAVES];
    int reg_of_leaf_edge[FUSE_MAX_LEAVES]; /* the scatter's edge value of each leaf */
    int step_val[FUSE_MAX_STEPS];          /* the edge value each step computes */
    int failed;
} expr_build_t;

static int reg_of(const expr_build_t *b, int edge_value)
{
    for (int k = 0; k < b->e.nleaf; k++)
        if (b->reg_of_leaf_edge[k] == edge_value) return k;
    for (int s = 0; s < b->e.nstep; s++)
        if (b->step_val[s] == edge_value) return b->e.nleaf + s;
    return -1;
}

/* Adds edge value v (and what it is computed from) to the expression. */
static void collect(const program_t *p, const defuse_t *d, expr_build_t *b, int v)
{
    if (b->failed || reg_of(b, v) >= 0) return;
    int j = d->prod[v];
    if (j < 0) {
        b->failed = 1;
        return;
    }
    const instr_t *in = &p->code[j];
    if (is_scatter(in->op)) {
        int x = in->in[0], dst = in->op == OP_SCATTER_DST;
        for (int k = 0; k < b->e.nleaf; k++)
            if (b->leaf_val[k] == x) b->failed = 1; /* one tensor on both sides: its gradient would have two writers */
        if (b->failed || b->e.nleaf == FUSE_MAX_LEAVES) {
            b->failed = 1;
            return;
        }
        /* leaves come first in the register file: shift the steps' registers up by one */
        for (int s = 0; s < b->e.nstep; s++) {
            fuse_step_t *st = &b->e.step[s];
            if (st->a >= b->e.nleaf) st->a++;
            if (st->b >= b->e.nleaf) st->b++;
            if (st->c >= b->e.nleaf) st->c++;
        }
        int k = b->e.nleaf++;
        b->leaf_val[k] = x, b->reg_of_leaf_edge[k] = v;
        if (dst) b->e.leaf_dst |= (uint8_t)(1u << k);
        return;
    }
    if (!op_has(in->op, OPF_FUSABLE) || b->e.nstep == FUSE_MAX_STEPS) {
        b->failed = 1;
        return;
    }
    for (int k = 0; k < in->nin; k++) {
        if (p->vals[in->in[k]].dom != DOM_EDGE) {
            b->failed = 1;
            return;
        }
        collect(p, d, b, in->in[k]);
    }
    if (b->failed || b->e.nstep == FUSE_MAX_STEPS) {
        b->failed = 1;
        return;
    }
    int s = b->e.nstep++;
    b->step_val[s] = v;
    fuse_step_t *st = &b->e.step[s];
    st->op = (uint8_t)in->op, st->fparam = in->fparam;
    st->a = (int8_t)reg_of(b, in->in[0]);
    st->b = (int8_t)(in->nin > 1 ? reg_of(b, in->in[1]) : -1);
    st->c = (int8_t)(in->nin > 2 ? reg_of(b, in->in[2]) : -1);
}

/* Whether every read of the expression's intermediate values is inside it
 * (each is then computed only for the fused gather and may disappear). */
static int closed(const program_t *p, const defuse_t *d, const expr_build_t *b, int gather)
{
    for (int s = 0; s < b->e.nstep; s++) {
        int v = b->step_val[s], inside = 0;
        for (int t = 0; t < b->e.nstep; t++) {
            const instr_t *in = &p->code[d->prod[b->step_val[t]]];
            for (int k = 0; k < in->nin; k++) inside += in->in[k] == v;
        }
        inside += p->code[gather].in[0] == v;
        if (inside != d->uses[v]) return 0;
    }
    return 1;
}

/* Fuses the gather at instruction i when it can; returns 1 when it did. */
static int fuse_one(program_t *p, const defuse_t *d, int i, int fused_kernel)
{
    instr_t *G = &p->code[i];
    if (G->op != OP_GATHER_EDGE) return 0;
    int j = d->prod[G->in[0]];
    if (j >= 0 && p->code[j].op == OP_SCATTER_TYPED && d->uses[G->in[0]] == 1) { /* typed messages: the typed gather */
        *G = (instr_t){OP_GATHER_TYPED, G->out, {p->code[j].in[0], -1, -1}, 1, 0, G->iparam, G->layer, G->stage};
        return 1;
    }
    expr_build_t b;
    memset(&b, 0, sizeof b);
    b.e.agg = G->iparam;
    collect(p, d, &b, G->in[0]);
    if (b.failed || !closed(p, d, &b, i)) return 0;
    if (b.e.nstep == 0 && !(b.e.leaf_dst & 1)) { /* a pass-through ApplyEdge: the plain gather */
        *G = (instr_t){OP_GATHER, G->out, {b.leaf_val[0], -1, -1}, 1, 0, G->iparam, G->layer, G->stage};
        return 1;
    }
    if (!fused_kernel) return 0;
    int idx = prog_add_fused(p, &b.e);
    if (idx < 0) return 0;
    G = &p->code[i];
    instr_t f = {OP_GATHER_FUSED, G->out, {-1, -1, -1}, b.e.nleaf, 0, idx, G->layer, G->stage};
    for (int k = 0; k < b.e.nleaf; k++) f.in[k] = b.leaf_val[k];
    *G = f;
    return 1;
}

/* A max gather of an edge tensor that is a chain of unary fusable ops
 * over one source scatter, max_e f(x[src(e)]), is the vertex max gather
 * of f(x): the chain moves onto the vertices (N rows instead of E, the
 * same values) and the first winner in CSC order is the same edge's
 * source (kernels.h). Returns 1 when it rewrote instruction i. */
static int fuse_max(program_t *p, const defuse_t *d, int i)
{
    instr_t *G = &p->code[i];
    if (G->op != OP_GATHER_EDGE_MAX) return 0;
    int chain[FUSE_MAX_STEPS], n = 0, v = G->in[0], x;
    for (;;) {
        int j = d->prod[v];
        if (j < 0 || d->uses[v] != 1) return 0;
        const instr_t *in = &p->code[j];
        if (in->op == OP_SCATTER_SRC) {
            x = in->in[0];
            break;
        }
        if (!op_has(in->op, OPF_FUSABLE) || in->nin != 1 || n == FUSE_MAX_STEPS) return 0;
        chain[n++] = j;
        v = in->in[0];
    }
    for (int k = n - 1; k >= 0; k--) {
        instr_t *in = &p->code[chain[k]];
        in->in[0] = x, in->stage = STAGE_APPLY_VERTEX;
        p->vals[in->out].dom = DOM_VERTEX;
        x = in->out;
    }
    G->op = OP_GATHER_MAX, G->in[0] = x;
    return 1;
}

/* ---------------- source + destination sums ---------------- */

static int sum_one(program_t *p, const defuse_t *d, int i)
{
    instr_t *I = &p->code[i];
    if (I->op != OP_ADD || p->vals[I->out].dom != DOM_EDGE) return 0;
    int ja = d->prod[I->in[0]], jb = d->prod[I->in[1]];
    if (ja < 0 || jb < 0) return 0;
    const instr_t *A = &p->code[ja], *B = &p->code[jb];
    int l, r;
    if (A->op == OP_SCATTER_SRC && B->op == OP_SCATTER_DST) l = A->in[0], r = B->in[0];
    else if (A->op == OP_SCATTER_DST && B->op == OP_SCATTER_SRC) l = B->in[0], r = A->in[0];
    else return 0;
    *I = (instr_t){OP_EDGE_UADDV, I->out, {l, r, -1}, 2, 0, 0, I->layer, I->stage};
    return 1;
}

void fuse_rewrite(program_t *p, int fused_kernel, fuse_report_t *r)
{
    memset(r, 0, sizeof *r);
    for (int pass = 0; pass < 3 && !p->failed; pass++) {
        if (pass > 0) prog_prune(p); /* uses are counted over live instructions only */
        int changed = 1;
        while (changed && !p->failed) {
            defuse_t d;
            if (defuse(p, &d)) {
                defuse_free(&d);
                return;
            }
            changed = 0;
            for (int i = 0; i < p->ncode && !changed; i++) {
                if (pass == 0 && hoist_one(p, &d, i)) changed = 1, r->hoisted++;
                if (pass == 1 && (fuse_one(p, &d, i, fused_kernel) || fuse_max(p, &d, i))) changed = 1, r->fused++;
                if (pass == 2 && sum_one(p, &d, i)) changed = 1, r->summed++;
            }
            defuse_free(&d);
            if (changed && pass > 0) prog_prune(p); /* dead scatters and steps out before the next scan */
        }
    }
    prog_prune(p);
}
