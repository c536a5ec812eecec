/* exec.c - the executor's setup (exec.h): each value's level and each
 * instruction's hop (the op table says how an op moves between levels),
 * the tensors sized for the blocks bound, and the place's kernels checked
 * against the program. Running it forward is exec_forward.c's, backward
 * exec_backward.c's. */
#include "exec.h"

#include <stdlib.h>
#include <string.h>

#include "engine/program/op_table.h"

/* ---------------- levels and hops ---------------- */

/* The hop instruction in steps through (0: none), from its operands' levels. */
static int op_hop(const instr_t *in, const int8_t *level)
{
    int lv = 0;
    switch (op_desc(in->op)->step) {
    case OPS_UP: return level[in->in[0]] + 1;
    case OPS_EDGES: return level[in->in[0]];
    case OPS_UP_ALL: /* the leaves' latest level, as a scatter of each would be */
        for (int k = 0; k < in->nin; k++)
            if (level[in->in[k]] > lv) lv = level[in->in[k]];
        return lv + 1;
    default: return 0;
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
        int h = op_hop(in, ex->level), lv = 0;
        if (h > EXEC_MAX_HOPS) {
            free(seen);
            return gs_fail(err, GS_EINPUT, "the model has more than %d gathers in a chain", EXEC_MAX_HOPS);
        }
        ex->hop[i] = (int8_t)h;
        if (h > ex->nhops) ex->nhops = h;
        for (int k = 0; !h && k < in->nin; k++) /* a vertex op: the latest level among its operands */
            if (P->vals[in->in[k]].dom != DOM_PARAM && ex->level[in->in[k]] > lv) lv = ex->level[in->in[k]];
        ex->level[in->out] = (int8_t)(h ? h : lv);
        for (int k = 0; k < in->nin; k++)
            if (op_reads_by_source(P, in, k) && !seen[in->in[k]]) seen[in->in[k]] = 1, ex->first_src[i] |= (uint8_t)(1u << k);
    }
    free(seen);
    return GS_OK;
}

int64_t exec_level_rows(const exec_t *ex, int k)
{
    return k == 0 ? ex->block[1]->nbase : ex->block[k]->n;
}

/* Rows a value has, and has room for, under the current binding. */
int64_t exec_rows_of(const exec_t *ex, int v)
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
    if (val->dom != DOM_VERTEX && val->dom != DOM_INPUT) return exec_rows_of(ex, v);
    return k < ex->nhops ? ex->block[k + 1]->nsrc : exec_level_rows(ex, k);
}

const graph_t *exec_keys_of(const exec_t *ex, int v)
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
                      (op == OP_EDGE_MATMUL_TYPED && !K->edge_matmul_typed) || (op == OP_GATHER_EDGE_MAX && !K->gather_edge_max);
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
    ex->relu_mask = calloc((size_t)prog->ncode + 1, sizeof(uint64_t *));
    ex->relu_mask_cap = calloc((size_t)prog->ncode + 1, sizeof(int64_t));
    ex->owned = calloc((size_t)prog->nvals + 1, 1);
    ex->nvals = prog->nvals, ex->ncode = prog->ncode;
    if (!ex->val || !ex->grad || !ex->grad_set || !ex->level || !ex->cap || !ex->hop || !ex->first_src || !ex->argmax ||
        !ex->argmax_cap || !ex->relu_mask || !ex->relu_mask_cap || !ex->owned)
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
    if (ex->share_buffers) slabs_free(&ex->slabs, ex->kp); /* the owned tensors are views of its slabs */
    for (int i = 0; !ex->share_buffers && ex->val && ex->owned && i < ex->nvals; i++)
        if (ex->owned[i]) place_free(ex->kp, &ex->val[i]), place_free(ex->kp, &ex->grad[i]);
    for (int i = 0; ex->argmax && i < ex->ncode; i++)
        if (ex->argmax[i]) ex->kp.K->release(ex->kp.cx, ex->argmax[i]);
    for (int i = 0; ex->relu_mask && i < ex->ncode; i++)
        if (ex->relu_mask[i]) ex->kp.K->release(ex->kp.cx, ex->relu_mask[i]);
    free(ex->val), free(ex->grad), free(ex->grad_set), free(ex->argmax), free(ex->argmax_cap);
    free(ex->relu_mask), free(ex->relu_mask_cap);
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

int exec_masks_relu(const exec_t *ex, const instr_t *in)
{
    return ex->share_buffers && plan_keeps_sign_bits(ex->prog, in, ex->kp.K->relu_masks);
}

/* A per-instruction side buffer (gather-max winners, ReLU masks) of at least bytes, grown only. */
static int fit_side(exec_t *ex, void **p, int64_t *cap, int64_t bytes, const char *what, gs_err_t *err)
{
    if (*p && bytes <= *cap) return GS_OK;
    if (*p) ex->kp.K->release(ex->kp.cx, *p);
    *p = ex->kp.K->alloc(ex->kp.cx, (size_t)(bytes ? bytes : 1));
    *cap = *p ? bytes : 0;
    return *p ? GS_OK : gs_fail(err, GS_EFAIL, "out of %s memory for %s", ex->kp.K->name, what);
}

/* Every owned tensor, value and gradient, as a view of its slab (slabs.h). */
static int bind_shared(exec_t *ex, gs_err_t *err)
{
    const program_t *P = ex->prog;
    double *bytes = calloc((size_t)P->nvals + 1, sizeof(double));
    if (!bytes) return gs_fail(err, GS_EFAIL, "out of memory");
    for (int v = 0; v < P->nvals; v++)
        if (ex->owned[v]) bytes[v] = 4.0 * (double)room_of(ex, v) * (double)P->vals[v].cols;
    int rc = slabs_fit(&ex->slabs, P, ex->kp, bytes, ex->kp.K->relu_masks, err);
    free(bytes);
    for (int v = 0; !rc && v < P->nvals; v++)
        if (ex->owned[v]) {
            int64_t rows = exec_rows_of(ex, v), cols = P->vals[v].cols;
            ex->val[v] = (tensor_t){rows, cols, slabs_data(&ex->slabs, 2 * v)};
            ex->grad[v] = (tensor_t){rows, cols, slabs_data(&ex->slabs, 2 * v + 1)};
            ex->cap[v] = room_of(ex, v);
        }
    return rc;
}

int exec_bind(exec_t *ex, const graph_t *const *block, gs_err_t *err)
{
    const program_t *P = ex->prog;
    for (int h = 1; h <= ex->nhops || h == 1; h++) { /* block[1] sizes the input even without a gather */
        if (block[h]->nsrc < block[h]->n || (h > 1 && block[h]->nsrc < block[h - 1]->n))
            return gs_fail(err, GS_EFAIL, "hop %d: its block's sets are not nested", h);
        ex->block[h] = block[h];
    }
    for (int v = 0; v < P->nvals && !ex->share_buffers; v++) {
        const value_t *val = &P->vals[v];
        if (val->dom == DOM_PARAM || val->dom == DOM_INPUT) continue;
        int64_t rows = exec_rows_of(ex, v), room = room_of(ex, v), grad_cap = ex->cap[v]; /* the gradient's room is the value's */
        int rc = fit(ex, &ex->val[v], &ex->cap[v], room, rows, val->cols, err);
        if (!rc && val->requires_grad) rc = fit(ex, &ex->grad[v], &grad_cap, room, rows, val->cols, err);
        if (rc) return rc;
    }
    int rc = ex->share_buffers ? bind_shared(ex, err) : GS_OK;
    if (rc) return rc;
    for (int i = 0; !rc && i < P->ncode; i++) {
        const instr_t *in = &P->code[i];
        int64_t cols = P->vals[in->out].cols;
        if (in->op == OP_GATHER_MAX || in->op == OP_GATHER_EDGE_MAX)
            rc = fit_side(ex, (void **)&ex->argmax[i], &ex->argmax_cap[i], sizeof(int32_t) * ex->block[ex->hop[i]]->n * cols,
                          "gather-max winners", err);
        else if (exec_masks_relu(ex, in))
            rc = fit_side(ex, (void **)&ex->relu_mask[i], &ex->relu_mask_cap[i],
                          sizeof(uint64_t) * exec_rows_of(ex, in->out) * GS_MASK_WORDS(cols), "ReLU masks", err);
    }
    return rc;
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
