/* test_buffer_plan.c - the buffer plan (engine/program/buffer_plan.h) and
 * the in-memory executor's shared slabs (exec.h, share_buffers):
 * - GCN at one width everywhere needs exactly as many slabs as tensors are
 *   live at once (6, counted by hand below; 5 with ReLU's sign bits kept),
 *   bias and ReLU run in place on their matmul's buffer, their rules write
 *   their operand's gradient over their output's, and the memory rule's
 *   estimate is that plan;
 * - every model, plain and fused, computes bit for bit the same output and
 *   parameter gradients with shared slabs as with a buffer per tensor, on
 *   the full graph and then on a sampled block set bound after it (the
 *   slabs then hold the full graph's stale rows: any row a rule fails to
 *   write shows). */
/* run-under: asan */
#include "test_util.h"

#include <string.h>

#include "engine/exec/exec.h"
#include "engine/graph/blocks.h"
#include "engine/program/buffer_plan.h"
#include "engine/program/fuse.h"
#include "engine/program/models/model.h"
#include "engine/program/op_table.h"

#define NV 200
#define FX 6
#define NT 20

static dataset_t ds;
static graph_t gr;

static int setup(void **state)
{
    (void)state;
    return tu_random_graph(&ds, &gr, NV, 600, FX, 3, 1, 5);
}

static int teardown(void **state)
{
    (void)state;
    tu_random_graph_free(&ds, &gr);
    return 0;
}

/* The instruction writing op kind `op` the k-th time (k from 0). */
static int nth_out(const program_t *p, op_kind_t op, int k)
{
    for (int i = 0; i < p->ncode; i++)
        if (p->code[i].op == op && k-- == 0) return p->code[i].out;
    fail_msg("no %s number %d", op_name(op), k);
    return -1;
}

/* GCN, 2 layers, aggregation-first, every width 8 (so every tensor has one
 * size). Live at once at most, at the second bias's rule: the first
 * gather's result (its matmul's rule reads it), ReLU's output (its rule
 * reads it), the second gather's result (read by the second matmul's
 * rule), the output, its gradient and the second matmul's: 6. Before the
 * plan: 9 values and 7 gradients. */
static void test_gcn_needs_the_most_live_tensors(void **state)
{
    (void)state;
    gs_err_t err;
    program_t p;
    model_cfg_t mc = {8, 8, 8, 2, 1, 0.5f};
    assert_int_equal(model_build(&p, model_find("gcn"), &mc, 1, &err), GS_OK);
    fuse_report_t fr;
    fuse_rewrite(&p, 1, &fr);
    double bytes[64] = {0};
    assert_true(p.nvals <= 64);
    int values = 0, grads = 0;
    for (int v = 0; v < p.nvals; v++)
        if (p.vals[v].dom == DOM_VERTEX) bytes[v] = 4.0 * NV * 8, values++, grads += p.vals[v].requires_grad != 0;
    assert_int_equal(values, 9);
    assert_int_equal(grads, 7);
    buffer_plan_t bp;
    assert_int_equal(buffer_plan_build(&p, bytes, 0, &bp, &err), GS_OK);
    assert_int_equal(bp.nslab, 6);
    assert_true(buffer_plan_bytes(&bp, bytes) == 6 * 4.0 * NV * 8);
    int mm = nth_out(&p, OP_MATMUL, 0), bias = nth_out(&p, OP_BIAS, 0), relu = nth_out(&p, OP_RELU, 0);
    assert_int_equal(bp.slab_of[2 * bias], bp.slab_of[2 * mm]);   /* in place */
    assert_int_equal(bp.slab_of[2 * relu], bp.slab_of[2 * bias]); /* in place */
    /* and backward: ReLU's rule writes the bias's gradient over its own
     * output's, the bias's rule the matmul's over that */
    assert_int_equal(bp.slab_of[2 * bias + 1], bp.slab_of[2 * relu + 1]);
    assert_int_equal(bp.slab_of[2 * mm + 1], bp.slab_of[2 * bias + 1]);
    for (int t = 0; t < bp.ntensors; t++)
        if (bytes[t / 2] > 0 && (t % 2 == 0 || p.vals[t / 2].requires_grad)) assert_true(bp.slab_of[t] >= 0);
    /* the memory rule's estimate is the plan, plus the parameters (4 copies) and the loss's gradient */
    double params = 0;
    for (int v = 0; v < p.nvals; v++)
        if (p.vals[v].dom == DOM_PARAM) params += 16.0 * (double)(p.vals[v].rows * p.vals[v].cols);
    assert_true(prog_memory_bytes(&p, NV, 0, 1, 0) == 6 * 4.0 * NV * 8 + params + 4.0 * NV * 8);
    assert_true(prog_memory_bytes(&p, NV, 0, 0, 0) == 16 * 4.0 * NV * 8 + params + 4.0 * NV * 8);
    buffer_plan_free(&bp);
    /* with RELU's sign bits kept apart its output dies once the dropout after
     * it has read it (the dropout runs in place): one tensor fewer */
    assert_int_equal(buffer_plan_build(&p, bytes, 1, &bp, &err), GS_OK);
    assert_int_equal(bp.nslab, 5);
    assert_int_equal(bp.slab_of[2 * nth_out(&p, OP_DROPOUT, 1)], bp.slab_of[2 * relu]);
    buffer_plan_free(&bp);
    prog_free(&p);
}

/* A forward (dropout on) and a backward of a fixed loss gradient; the output and every parameter's gradient, copied. */
static float *step(exec_t *ex, const params_t *ps, const tensor_t *x, int64_t *n)
{
    const tensor_t *y = exec_forward(ex, x, 1, 4);
    int64_t total = tensor_numel(y);
    for (int i = 0; i < ps->n; i++) total += tensor_numel(&ps->g[i]);
    float *out = malloc(sizeof(float) * (size_t)total);
    assert_non_null(out);
    memcpy(out, y->data, sizeof(float) * (size_t)tensor_numel(y));
    tensor_t dy;
    gs_err_t err;
    assert_int_equal(tensor_alloc(&dy, y->rows, y->cols, &err), GS_OK);
    tu_fill(dy.data, tensor_numel(&dy), 41);
    int64_t at = tensor_numel(y);
    exec_backward(ex, &dy);
    for (int i = 0; i < ps->n; i++) {
        memcpy(out + at, ps->g[i].data, sizeof(float) * (size_t)tensor_numel(&ps->g[i]));
        at += tensor_numel(&ps->g[i]);
    }
    tensor_free(&dy);
    *n = total;
    return out;
}

/* The full graph, then a block set of NT targets; per step the results. */
static void run(const program_t *p, params_t *ps, int share, const blockset_t *bs, float **r, int64_t *n)
{
    gs_err_t err;
    exec_t ex;
    assert_int_equal(exec_init(&ex, p, kplace_host(), ps, 9, &err), GS_OK);
    ex.share_buffers = share;
    assert_int_equal(exec_bind_graph(&ex, &gr, &err), GS_OK);
    tensor_t x = {NV, FX, ds.feat}, xs;
    r[0] = step(&ex, ps, &x, &n[0]);
    assert_int_equal(exec_bind(&ex, bs->ptr, &err), GS_OK);
    assert_int_equal(tensor_alloc(&xs, bs->block[1].nsrc, FX, &err), GS_OK);
    for (int64_t i = 0; i < xs.rows; i++) memcpy(xs.data + i * FX, ds.feat + (int64_t)bs->block[1].orig_id[i] * FX, sizeof(float) * FX);
    r[1] = step(&ex, ps, &xs, &n[1]);
    tensor_free(&xs);
    exec_free(&ex);
}

static void check_model(const model_def_t *def, int fuse)
{
    gs_err_t err;
    program_t p;
    model_cfg_t mc = {FX, 3, 5, 2, 2, 0.3f};
    if (model_build(&p, def, &mc, gr.ntypes, &err)) fail_msg("%s: %s", def->name, err.msg);
    fuse_report_t fr;
    if (fuse) fuse_rewrite(&p, 1, &fr);
    params_t ps;
    assert_int_equal(params_init(&ps, &p, 3, kplace_host(), &err), GS_OK);
    int32_t targets[NT];
    for (int i = 0; i < NT; i++) targets[i] = (int32_t)((i * 37 + 11) % NV);
    blockset_t bs;
    exec_t probe;
    assert_int_equal(exec_init(&probe, &p, kplace_host(), &ps, 9, &err), GS_OK);
    if (blocks_khop(&gr, probe.nhops, targets, NT, &bs, &err)) fail_msg("%s: %s", def->name, err.msg);
    exec_free(&probe);
    float *own[2], *shared[2];
    int64_t n_own[2], n_shared[2];
    run(&p, &ps, 0, &bs, own, n_own);
    run(&p, &ps, 1, &bs, shared, n_shared);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(n_own[k], n_shared[k]);
        if (memcmp(own[k], shared[k], sizeof(float) * (size_t)n_own[k]))
            fail_msg("%s%s: shared slabs change the %s step's results", def->name, fuse ? " (fused)" : "", k ? "block" : "full-graph");
        free(own[k]), free(shared[k]);
    }
    blocks_free(&bs);
    params_free(&ps);
    prog_free(&p);
}

static void test_every_model_computes_the_same_with_shared_slabs(void **state)
{
    (void)state;
    const model_def_t *const *all = model_all();
    for (int i = 0; all[i]; i++)
        for (int fuse = 0; fuse < 2; fuse++) check_model(all[i], fuse);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gcn_needs_the_most_live_tensors),
        cmocka_unit_test(test_every_model_computes_the_same_with_shared_slabs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
