/* test_fuse.c - NeuGraph §3.4 as a program transform (engine/program/fuse.h): the
 * shape of what the pass leaves (G-GCN's products on the vertices and one
 * fused gather per layer with no edge tensor; GAT's dots hoisted and its
 * score one edge_uaddv; GG-NN's typed products one product and a typed
 * gather; a pass-through gather made the plain gather; only
 * hoisting and sums where the place has no fused kernel), and for every
 * model the plain and the fused program computing the same output and
 * parameter gradients from the same parameters. */
#include "test_util.h"

#include <math.h>

#include "engine/exec/exec.h"
#include "engine/program/fuse.h"
#include "engine/program/models/model.h"

#define NV 200
#define FX 6

static dataset_t ds;
static graph_t gr;

static int setup(void **state)
{
    (void)state;
    return tu_random_graph(&ds, &gr, NV, 900, FX, 3, 1, 5);
}

static int teardown(void **state)
{
    (void)state;
    tu_random_graph_free(&ds, &gr);
    return 0;
}

static void build(program_t *p, const char *name, int layers, int fuse, int fused_kernel, fuse_report_t *r)
{
    gs_err_t err;
    model_cfg_t mc = {FX, 3, 5, layers, 2, 0.3f};
    if (model_build(p, model_find(name), &mc, gr.ntypes, &err)) fail_msg("%s: %s", name, err.msg);
    memset(r, 0, sizeof *r);
    if (fuse) fuse_rewrite(p, fused_kernel, r);
    assert_false(p->failed);
}

static int count_ops(const program_t *p, op_kind_t op)
{
    int n = 0;
    for (int i = 0; i < p->ncode; i++) n += p->code[i].op == op;
    return n;
}

static int edge_values(const program_t *p)
{
    int n = 0;
    for (int v = 0; v < p->nvals; v++) n += p->vals[v].dom == DOM_EDGE;
    return n;
}

/* After a prune every value is the input, a parameter or some instruction's result. */
static void assert_compact(const program_t *p)
{
    for (int v = 0; v < p->nvals; v++) {
        if (v == p->input || p->vals[v].dom == DOM_PARAM) continue;
        int made = 0;
        for (int i = 0; i < p->ncode; i++) made |= p->code[i].out == v;
        if (!made) fail_msg("value %d (%s) is left without a producer", v, p->vals[v].name);
    }
}

/* G-GCN as NeuGraph states it (ggcn: W_H and W_C hoisted, the message
 * gate * h_src summed) and the earlier variant (ggcn-norm: W_H with its
 * bias, W_C and W_V hoisted, normalised): one fused gather per layer. */
static void test_ggcn_becomes_one_fused_gather_per_layer(void **state)
{
    (void)state;
    const char *names[] = {"ggcn", "ggcn-norm"};
    const int hoisted[] = {4, 8}, agg[] = {AGG_ONE, AGG_NORM};
    for (int k = 0; k < 2; k++) {
        program_t p;
        fuse_report_t r;
        build(&p, names[k], 2, 0, 1, &r);
        assert_int_equal(count_ops(&p, OP_SCATTER_SRC) + count_ops(&p, OP_SCATTER_DST), 4);
        assert_true(edge_values(&p) >= 8); /* two scatters, the products, the gate and the message per layer */
        prog_free(&p);

        build(&p, names[k], 2, 1, 1, &r);
        assert_int_equal(r.hoisted, hoisted[k]);
        assert_int_equal(r.fused, 2);
        assert_int_equal(edge_values(&p), 0);
        assert_int_equal(count_ops(&p, OP_GATHER_FUSED), 2);
        for (int i = 0; i < p.ncode; i++) {
            const instr_t *in = &p.code[i];
            if (in->op == OP_MATMUL) assert_int_equal(p.vals[in->in[0]].dom == DOM_EDGE, 0);
            if (in->op != OP_GATHER_FUSED) continue;
            const fused_expr_t *e = &p.fused[in->iparam];
            assert_int_equal(e->nleaf, 3);
            assert_int_equal(__builtin_popcount(e->leaf_dst), 1); /* W_H h_v at the destination */
            assert_int_equal(e->nstep, 3);                        /* add, sigmoid, mul */
            assert_int_equal(e->step[0].op, OP_ADD);
            assert_int_equal(e->step[1].op, OP_SIGMOID);
            assert_int_equal(e->step[2].op, OP_MUL);
            assert_int_equal(e->agg, agg[k]);
            assert_int_equal(in->stage, STAGE_GATHER);
        }
        assert_compact(&p);
        prog_free(&p);

        /* a place without the fused kernel: hoisting, and the gate's sum as one edge_uaddv */
        build(&p, names[k], 2, 1, 0, &r);
        assert_int_equal(r.hoisted, hoisted[k]);
        assert_int_equal(r.fused, 0);
        assert_int_equal(r.summed, 2);
        assert_int_equal(count_ops(&p, OP_EDGE_UADDV), 2);
        assert_int_equal(count_ops(&p, OP_SCATTER_DST), 0);
        prog_free(&p);
    }
}

/* MP-GCN in NGra's SAGA-NN form: the pool layer on edge tensors and a max
 * over edges; the pass hoists the product and its bias, moves the ReLU
 * onto the vertices and gathers with the vertex max (no fused kernel
 * needed), leaving no edge tensor. */
static void test_mpgcn_max_over_edges_becomes_the_vertex_max(void **state)
{
    (void)state;
    program_t p;
    fuse_report_t r;
    build(&p, "mpgcn", 2, 0, 1, &r);
    assert_int_equal(count_ops(&p, OP_GATHER_EDGE_MAX), 2);
    assert_int_equal(count_ops(&p, OP_SCATTER_SRC), 2);
    assert_true(edge_values(&p) >= 8); /* the scatter, the product, the bias and the ReLU per layer */
    prog_free(&p);
    build(&p, "mpgcn", 2, 1, 0, &r);
    assert_int_equal(r.hoisted, 4);
    assert_int_equal(r.fused, 2);
    assert_int_equal(count_ops(&p, OP_GATHER_MAX), 2);
    assert_int_equal(count_ops(&p, OP_GATHER_EDGE_MAX) + count_ops(&p, OP_SCATTER_SRC), 0);
    assert_int_equal(edge_values(&p), 0);
    for (int i = 0; i < p.ncode; i++)
        if (p.code[i].op == OP_GATHER_MAX) {
            const instr_t *pool = NULL;
            for (int j = 0; j < i; j++)
                if (p.code[j].out == p.code[i].in[0]) pool = &p.code[j];
            assert_non_null(pool);
            assert_int_equal(pool->op, OP_RELU);
            assert_int_equal(pool->stage, STAGE_APPLY_VERTEX);
        }
    assert_compact(&p);
    prog_free(&p);
}

static void test_gat_scores_are_hoisted_and_summed(void **state)
{
    (void)state;
    program_t p;
    fuse_report_t r;
    build(&p, "gat", 2, 1, 1, &r);
    assert_int_equal(r.hoisted, 4); /* the source and destination dots of each layer */
    assert_int_equal(r.summed, 2);
    assert_int_equal(count_ops(&p, OP_SCATTER_SRC) + count_ops(&p, OP_SCATTER_DST), 0);
    assert_int_equal(count_ops(&p, OP_EDGE_UADDV), 2);
    for (int i = 0; i < p.ncode; i++)
        if (p.code[i].op == OP_HEAD_DOT) assert_int_equal(p.vals[p.code[i].in[0]].dom, DOM_VERTEX);
    assert_compact(&p);
    prog_free(&p);
}

static void test_ggnn_typed_messages_become_the_typed_gather(void **state)
{
    (void)state;
    program_t p;
    fuse_report_t r;
    build(&p, "ggnn", 3, 0, 1, &r);
    assert_int_equal(count_ops(&p, OP_EDGE_MATMUL_TYPED), 3);
    prog_free(&p);
    build(&p, "ggnn", 3, 1, 0, &r); /* no fused kernel is needed for this one */
    assert_int_equal(r.hoisted, 3);
    assert_int_equal(count_ops(&p, OP_GATHER_TYPED), 3);
    assert_int_equal(count_ops(&p, OP_EDGE_MATMUL_TYPED) + count_ops(&p, OP_SCATTER_TYPED), 0);
    assert_int_equal(edge_values(&p), 0);
    assert_compact(&p);
    prog_free(&p);
}

static void test_pass_through_becomes_the_plain_gather(void **state)
{
    (void)state;
    const char *names[] = {"gcn", "gin", "commnet", "commnet-mean", "resgcn"};
    const int agg[] = {AGG_NORM, AGG_ONE, AGG_ONE, AGG_MEAN, AGG_NORM};
    for (int k = 0; k < 5; k++) {
        program_t p;
        fuse_report_t r;
        build(&p, names[k], 3, 1, 0, &r); /* no fused kernel is needed for this one */
        assert_int_equal(r.fused, 3);
        assert_int_equal(count_ops(&p, OP_GATHER), 3);
        assert_int_equal(edge_values(&p), 0);
        for (int i = 0; i < p.ncode; i++)
            if (p.code[i].op == OP_GATHER) assert_int_equal(p.code[i].iparam, agg[k]);
        assert_compact(&p);
        prog_free(&p);
    }
}

/* Runs p forward and backward on the graph; returns the output and copies the parameter gradients into g. */
static void run(const program_t *p, params_t *ps, const float *r, tensor_t *out, float **g)
{
    gs_err_t err;
    exec_t ex;
    assert_int_equal(exec_init(&ex, p, kplace_host(), ps, 9, &err), GS_OK);
    assert_int_equal(exec_bind_graph(&ex, &gr, &err), GS_OK);
    tensor_t x = {NV, FX, ds.feat};
    const tensor_t *y = exec_forward(&ex, &x, 1, 2);
    assert_int_equal(tensor_alloc(out, y->rows, y->cols, &err), GS_OK);
    memcpy(out->data, y->data, tensor_bytes(y));
    tensor_t dy = {y->rows, y->cols, (float *)r};
    exec_backward(&ex, &dy);
    for (int k = 0; k < ps->n; k++) {
        g[k] = malloc(tensor_bytes(&ps->g[k]));
        memcpy(g[k], ps->g[k].data, tensor_bytes(&ps->g[k]));
    }
    exec_free(&ex);
}

static void test_plain_and_fused_programs_agree(void **state)
{
    (void)state;
    for (const model_def_t *const *m = model_all(); *m; m++) {
        gs_err_t err;
        program_t plain, fused;
        fuse_report_t r;
        build(&plain, (*m)->name, 2, 0, 1, &r);
        build(&fused, (*m)->name, 2, 1, 1, &r);
        assert_int_equal(plain.nparams, fused.nparams);
        params_t ps;
        assert_int_equal(params_init(&ps, &plain, 4, kplace_host(), &err), GS_OK);
        float *r_out = malloc(sizeof(float) * NV * 3), *ga[64], *gb[64];
        tu_fill(r_out, NV * 3, 12);
        tensor_t ya, yb;
        run(&plain, &ps, r_out, &ya, ga);
        run(&fused, &ps, r_out, &yb, gb);
        for (int64_t i = 0; i < tensor_numel(&ya); i++)
            if (fabsf(ya.data[i] - yb.data[i]) > 1e-5f * (1 + fabsf(ya.data[i])))
                fail_msg("%s: output %lld: plain %g, fused %g", (*m)->name, (long long)i, ya.data[i], yb.data[i]);
        for (int k = 0; k < ps.n; k++) {
            for (int64_t j = 0; j < tensor_numel(&ps.g[k]); j++)
                if (fabsf(ga[k][j] - gb[k][j]) > 1e-4f * (1 + fabsf(ga[k][j])))
                    fail_msg("%s: d %s[%lld]: plain %g, fused %g", (*m)->name, ps.names[k], (long long)j, ga[k][j], gb[k][j]);
            free(ga[k]), free(gb[k]);
        }
        free(r_out);
        tensor_free(&ya), tensor_free(&yb);
        params_free(&ps);
        prog_free(&plain), prog_free(&fused);
    }
}

/* A place without the optional kernels refuses a program that needs them, in one message. */
static void test_a_place_without_the_kernels_refuses(void **state)
{
    (void)state;
    kops_t bare = kops_cpu;
    bare.name = "bare", bare.gather_fused = NULL, bare.edge_matmul_typed = NULL, bare.gather_edge_max = NULL;
    const char *names[] = {"ggcn", "ggnn", "mpgcn"};
    const int fuse[] = {1, 0, 0};
    const char *kernel[] = {"gather_fused", "edge_matmul_typed", "gather_edge_max"};
    for (int k = 0; k < 3; k++) {
        program_t p;
        fuse_report_t r;
        gs_err_t err;
        build(&p, names[k], 2, fuse[k], 1, &r);
        params_t ps;
        exec_t ex;
        assert_int_equal(params_init(&ps, &p, 4, kplace_host(), &err), GS_OK);
        assert_int_equal(exec_init(&ex, &p, (kplace_t){&bare, NULL}, &ps, 9, &err), GS_EINPUT);
        assert_non_null(strstr(err.msg, kernel[k]));
        assert_non_null(strstr(err.msg, "--fuse on"));
        exec_free(&ex);
        params_free(&ps);
        prog_free(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ggcn_becomes_one_fused_gather_per_layer),
        cmocka_unit_test(test_mpgcn_max_over_edges_becomes_the_vertex_max),
        cmocka_unit_test(test_gat_scores_are_hoisted_and_summed),
        cmocka_unit_test(test_ggnn_typed_messages_become_the_typed_gather),
        cmocka_unit_test(test_pass_through_becomes_the_plain_gather),
        cmocka_unit_test(test_plain_and_fused_programs_agree),
        cmocka_unit_test(test_a_place_without_the_kernels_refuses),
    };
    return cmocka_run_group_tests_name("fuse", tests, setup, teardown);
}
