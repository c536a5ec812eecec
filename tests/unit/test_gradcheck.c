/* test_gradcheck.c - finite-difference checks of the derived backward pass:
 * every op on its own, the fused gather over an expression using every
 * step kind and both edge ends, one layer of every model in plain SAGA-NN
 * form and after the fusion pass (with dropout active, since masks are a
 * pure function of their coordinates), the DKP-rewritten program, and the
 * cross-entropy loss. Central differences in double on a
 * float32 forward; tolerance 1e-2 relative plus 2e-3 absolute. */
/* run-under: asan */
#include "test_util.h"

#include <math.h>

#include "engine/program/dkp.h"
#include "engine/exec/exec.h"
#include "engine/program/fuse.h"
#include "engine/program/models/model.h"
#include "engine/train/train.h"
#include "engine/program/op_table.h"

#define NV 10
#define FX 4

static dataset_t ds;
static graph_t gr;

static int setup(void **state)
{
    (void)state;
    return tu_random_graph(&ds, &gr, NV, 22, FX, 3, 1, 99);
}

static int teardown(void **state)
{
    (void)state;
    tu_random_graph_free(&ds, &gr);
    return 0;
}

static double loss_of(exec_t *ex, const tensor_t *x, const float *r)
{
    const tensor_t *y = exec_forward(ex, x, 1, 3);
    double s = 0;
    for (int64_t i = 0; i < tensor_numel(y); i++) s += (double)r[i] * y->data[i];
    return s;
}

/* Checks d(sum r * out)/d(param) for every element of every parameter. */
static void check_program(program_t *p, int64_t in_cols, const char *what)
{
    gs_err_t err;
    params_t ps;
    exec_t ex;
    tensor_t x, r;
    assert_false(p->failed);
    assert_int_equal(params_init(&ps, p, 5, kplace_host(), &err), GS_OK);
    /* make zero-initialised biases non-trivial */
    for (int i = 0; i < ps.n; i++)
        for (int64_t j = 0; j < tensor_numel(&ps.w[i]); j++) ps.w[i].data[j] += 0.3f * gs_normal(gs_hash3(17, (uint64_t)i, (uint64_t)j));
    assert_int_equal(exec_init(&ex, p, kplace_host(), &ps, 77, &err), GS_OK);
    assert_int_equal(exec_bind_graph(&ex, &gr, &err), GS_OK);
    assert_int_equal(tensor_alloc(&x, gr.n, in_cols, &err), GS_OK);
    tu_fill(x.data, tensor_numel(&x), 31);
    const tensor_t *y = exec_forward(&ex, &x, 1, 3);
    assert_int_equal(tensor_alloc(&r, y->rows, y->cols, &err), GS_OK);
    tu_fill(r.data, tensor_numel(&r), 32);
    exec_backward(&ex, &r);
    const double eps = 1e-3;
    int checked = 0;
    for (int i = 0; i < ps.n; i++)
        for (int64_t j = 0; j < tensor_numel(&ps.w[i]); j++) {
            float *w = &ps.w[i].data[j], w0 = *w;
            *w = (float)(w0 + eps);
            double lp = loss_of(&ex, &x, r.data);
            *w = (float)(w0 - eps);
            double lm = loss_of(&ex, &x, r.data);
            *w = w0;
            double num = (lp - lm) / (2 * eps), ana = ps.g[i].data[j];
            if (fabs(num - ana) > 1e-2 * (fabs(num) + fabs(ana)) + 2e-3)
                fail_msg("%s: d/d %s[%lld]: analytic %.6g, numeric %.6g", what, ps.names[i], (long long)j, ana, num);
            checked++;
        }
    assert_true(checked > 0);
    exec_free(&ex);
    params_free(&ps);
    tensor_free(&x);
    tensor_free(&r);
}

/* A program x -> h = x P (vertex, needs grad), h2 = x P2, then `op`. */
typedef struct {
    program_t p;
    int x, h, h2, h3;
} op_fixture_t;

static void op_start(op_fixture_t *f, int64_t width)
{
    prog_init(&f->p, gr.ntypes);
    f->x = prog_input(&f->p, FX);
    f->h = prog_op(&f->p, OP_MATMUL, f->x, prog_param(&f->p, "P", FX, width, INIT_GLOROT), -1, 0, 0);
    f->h2 = prog_op(&f->p, OP_MATMUL, f->x, prog_param(&f->p, "P2", FX, width, INIT_GLOROT), -1, 0, 0);
    f->h3 = prog_op(&f->p, OP_MATMUL, f->x, prog_param(&f->p, "P3", FX, width, INIT_GLOROT), -1, 0, 0);
}

static void op_finish(op_fixture_t *f, const char *what)
{
    check_program(&f->p, FX, what);
    prog_free(&f->p);
}

static void test_unary_ops(void **state)
{
    (void)state;
    op_kind_t ops[] = {OP_RELU, OP_LEAKY_RELU, OP_ELU, OP_SIGMOID, OP_TANH, OP_DROPOUT};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        op_fixture_t f;
        op_start(&f, 3);
        prog_op(&f.p, ops[i], f.h, -1, -1, ops[i] == OP_DROPOUT ? 0.4f : 0.2f, 0);
        op_finish(&f, op_name(ops[i]));
    }
}

static void test_binary_ops(void **state)
{
    (void)state;
    op_fixture_t f;
    op_start(&f, 3);
    prog_op(&f.p, OP_ADD, f.h, f.h2, -1, 0, 0);
    op_finish(&f, "add");
    op_start(&f, 3);
    prog_op(&f.p, OP_MUL, f.h, f.h2, -1, 0, 0);
    op_finish(&f, "mul");
    op_start(&f, 3);
    prog_op(&f.p, OP_LERP, prog_op(&f.p, OP_SIGMOID, f.h, -1, -1, 0, 0), f.h2, f.h3, 0, 0);
    op_finish(&f, "lerp");
    op_start(&f, 3);
    prog_op(&f.p, OP_BIAS, f.h, prog_param(&f.p, "b", 1, 3, INIT_ZERO), -1, 0, 0);
    op_finish(&f, "bias");
    op_start(&f, 4);
    prog_op(&f.p, OP_HEAD_DOT, f.h, prog_param(&f.p, "a", 1, 4, INIT_GLOROT), -1, 0, 2);
    op_finish(&f, "head_dot");
}

static void test_graph_ops(void **state)
{
    (void)state;
    op_fixture_t f;
    for (int mode = 0; mode < 3; mode++) {
        op_start(&f, 3);
        prog_op(&f.p, OP_GATHER, f.h, -1, -1, 0, mode);
        op_finish(&f, "gather");
        op_start(&f, 3);
        prog_op(&f.p, OP_GATHER_EDGE, prog_op(&f.p, OP_MUL, prog_op(&f.p, OP_SCATTER_SRC, f.h, -1, -1, 0, 0),
                                              prog_op(&f.p, OP_SCATTER_DST, f.h2, -1, -1, 0, 0), -1, 0, 0),
                -1, -1, 0, mode);
        op_finish(&f, "scatter/gather_edge");
        op_start(&f, 3 * gr.ntypes);
        prog_op(&f.p, OP_GATHER_TYPED, f.h, -1, -1, 0, mode);
        op_finish(&f, "gather_typed");
        op_start(&f, 3 * gr.ntypes);
        prog_op(&f.p, OP_GATHER_EDGE, prog_op(&f.p, OP_SCATTER_TYPED, f.h, -1, -1, 0, 0), -1, -1, 0, mode);
        op_finish(&f, "scatter_typed/gather_edge");
    }
    op_start(&f, 3);
    prog_op(&f.p, OP_GATHER_MAX, f.h, -1, -1, 0, 0);
    op_finish(&f, "gather_max");
    op_start(&f, 3);
    prog_op(&f.p, OP_GATHER_EDGE_MAX,
            prog_op(&f.p, OP_MUL, prog_op(&f.p, OP_SCATTER_SRC, f.h, -1, -1, 0, 0), prog_op(&f.p, OP_SCATTER_DST, f.h2, -1, -1, 0, 0),
                    -1, 0, 0),
            -1, -1, 0, 0);
    op_finish(&f, "scatter/gather_edge_max");
    op_start(&f, 2);
    prog_op(&f.p, OP_EDGE_SOFTMAX, prog_op(&f.p, OP_EDGE_UADDV, f.h, f.h2, -1, 0, 0), -1, -1, 0, 0);
    op_finish(&f, "edge_uaddv/edge_softmax");
    op_start(&f, 4);
    int el = prog_op(&f.p, OP_HEAD_DOT, f.h2, prog_param(&f.p, "al", 1, 4, INIT_GLOROT), -1, 0, 2);
    int er = prog_op(&f.p, OP_HEAD_DOT, f.h3, prog_param(&f.p, "ar", 1, 4, INIT_GLOROT), -1, 0, 2);
    int a = prog_op(&f.p, OP_EDGE_SOFTMAX, prog_op(&f.p, OP_EDGE_UADDV, el, er, -1, 0, 0), -1, -1, 0, 0);
    a = prog_op(&f.p, OP_DROPOUT, a, -1, -1, 0.3f, 0);
    prog_op(&f.p, OP_GATHER_ATTN, f.h, a, -1, 0, 2);
    op_finish(&f, "gather_attn");
    op_start(&f, 3);
    int typed = prog_op(&f.p, OP_EDGE_MATMUL_TYPED, prog_op(&f.p, OP_SCATTER_SRC, f.h, -1, -1, 0, 0),
                        prog_param(&f.p, "A", 3, 2 * gr.ntypes, INIT_GLOROT), -1, 0, 0);
    prog_op(&f.p, OP_GATHER_EDGE, typed, -1, -1, 0, AGG_NORM);
    op_finish(&f, "edge_matmul_typed");
}

/* A message of every fusable step kind over h at the destination and h2,
 * h3 at the source, gathered; the pass must fuse all of it. */
static void test_fused_gather(void **state)
{
    (void)state;
    for (int mode = 0; mode < 3; mode++) {
        op_fixture_t f;
        op_start(&f, 3);
        program_t *p = &f.p;
        int d = prog_op(p, OP_SCATTER_DST, f.h, -1, -1, 0, 0), s2 = prog_op(p, OP_SCATTER_SRC, f.h2, -1, -1, 0, 0);
        int s3 = prog_op(p, OP_SCATTER_SRC, f.h3, -1, -1, 0, 0);
        int z = prog_op(p, OP_SIGMOID, prog_op(p, OP_ADD, d, s2, -1, 0, 0), -1, -1, 0, 0);
        int m = prog_op(p, OP_LERP, z, prog_op(p, OP_TANH, s3, -1, -1, 0, 0), prog_op(p, OP_ELU, d, -1, -1, 0, 0), 0, 0);
        m = prog_op(p, OP_MUL, prog_op(p, OP_LEAKY_RELU, m, -1, -1, 0.1f, 0), prog_op(p, OP_RELU, s2, -1, -1, 0, 0), -1, 0, 0);
        prog_op(p, OP_GATHER_EDGE, m, -1, -1, 0, mode);
        fuse_report_t r;
        fuse_rewrite(p, 1, &r);
        assert_int_equal(r.fused, 1);
        const instr_t *g = &p->code[p->ncode - 1];
        assert_int_equal(g->op, OP_GATHER_FUSED);
        assert_int_equal(g->nin, 3);
        assert_int_equal(p->fused[g->iparam].nstep, 8);
        assert_int_equal(__builtin_popcount(p->fused[g->iparam].leaf_dst), 1);
        for (int v = 0; v < p->nvals; v++) assert_int_not_equal(p->vals[v].dom, DOM_EDGE);
        op_finish(&f, "gather_fused");
    }
}

/* Builds model name, hoisted and fused when fuse is set. */
static void build(program_t *p, const char *name, const model_cfg_t *cfg, int ntypes, int fuse)
{
    gs_err_t err;
    const model_def_t *m = model_find(name);
    assert_non_null(m);
    assert_int_equal(model_build(p, m, cfg, ntypes, &err), GS_OK);
    fuse_report_t r;
    if (fuse) fuse_rewrite(p, 1, &r);
}

/* the emulated topologies' GPU (engine/machine/topology.c): 14 TFLOP/s, 900 GB/s */
static const dkp_coef_t roofline = {2.0 / 14e12, 4.0 / 900e9, 4.0 / 900e9, 4.0 / 900e9};

static void check_model(const char *name, int layers, dkp_mode_t dkp, int fuse)
{
    model_cfg_t cfg = {FX, 3, 4, layers, 2, 0.3f};
    program_t p;
    build(&p, name, &cfg, gr.ntypes, fuse);
    dkp_choice_t ch[8];
    dkp_rewrite(&p, dkp, &roofline, NULL, gr.n, gr.m, ch, 8);
    char what[80];
    snprintf(what, sizeof what, "model %s (%d layers, dkp %d, fuse %d)", name, layers, (int)dkp, fuse);
    check_program(&p, FX, what);
    prog_free(&p);
}

static void test_one_layer_of_every_model(void **state)
{
    (void)state;
    for (int fuse = 0; fuse < 2; fuse++) {
        for (const model_def_t *const *m = model_all(); *m; m++) check_model((*m)->name, 1, DKP_OFF, fuse);
        check_model("gat", 2, DKP_OFF, fuse); /* hidden layer with several heads */
        check_model("ggnn", 2, DKP_OFF, fuse);
    }
}

static void test_dkp_rewritten_programs(void **state)
{
    (void)state;
    check_model("gcn", 2, DKP_ON, 1);
    check_model("commnet", 2, DKP_ON, 1);
    check_model("resgcn", 3, DKP_ON, 1);
}

static void test_dkp_choices(void **state)
{
    (void)state;
    program_t p;
    dkp_choice_t ch[8];
    /* Cora's first layer, 1433 -> 16: combination-first, >= 10x fewer aggregation FLOPs */
    model_cfg_t cora = {1433, 7, 16, 2, 1, 0.5f};
    build(&p, "gcn", &cora, 3, 1);
    assert_int_equal(dkp_rewrite(&p, DKP_AUTO, &roofline, NULL, 2708, 13264, ch, 8), 2);
    assert_int_equal(ch[0].layer, 0);
    assert_true(ch[0].combination_first);
    assert_true(ch[0].agg_flops_fwd[0] >= 10 * ch[0].agg_flops_fwd[1]);
    assert_true(ch[1].combination_first); /* 16 -> 7 */
    prog_free(&p);
    /* a widening layer, 16 -> 256: aggregation-first */
    model_cfg_t wide = {16, 7, 256, 2, 1, 0.5f};
    build(&p, "gcn", &wide, 3, 1);
    dkp_rewrite(&p, DKP_AUTO, &roofline, NULL, 2708, 13264, ch, 8);
    assert_false(ch[0].combination_first);
    assert_true(ch[1].combination_first); /* 256 -> 7 */
    prog_free(&p);
    /* off never rewrites, on always does */
    build(&p, "gcn", &cora, 3, 1);
    dkp_rewrite(&p, DKP_OFF, &roofline, NULL, 2708, 13264, ch, 8);
    assert_false(ch[0].combination_first || ch[1].combination_first);
    assert_int_equal(p.code[1].op, OP_GATHER);
    prog_free(&p);
    /* sampled blocks (n_src >> n_dst): 256 -> 64 is combination-first on the
     * whole graph (a narrower gather), aggregation-first on a block whose
     * sources outnumber its destinations 2.7x (the matmul on n_src rows
     * costs more than the gather saves: Table I's (n_src - n_dst) term) */
    model_cfg_t mid = {256, 8, 64, 2, 1, 0.5f};
    build(&p, "gcn", &mid, 3, 1);
    dkp_rewrite(&p, DKP_AUTO, &roofline, NULL, 20000, 200000, ch, 8);
    assert_true(ch[0].combination_first);
    assert_int_equal(ch[0].shape.n_src, 20000);
    prog_free(&p);
    dkp_shape_t blocks[PROG_MAX_LAYERS] = {{7786, 2912, 14208}, {2912, 512, 3612}}; /* sampling.sh's first batch */
    build(&p, "gcn", &mid, 3, 1);
    dkp_rewrite(&p, DKP_AUTO, &roofline, blocks, 20000, 200000, ch, 8);
    assert_false(ch[0].combination_first);
    assert_int_equal(ch[0].shape.n_src, 7786);
    assert_int_equal(ch[0].shape.n_dst, 2912);
    assert_true(ch[0].cost_s[1] > 1.2 * ch[0].cost_s[0]);
    assert_true(fabs(ch[0].predicted_saving_s - (ch[0].cost_s[1] - ch[0].cost_s[0])) < 1e-15);
    assert_true(ch[1].combination_first); /* 64 -> 8 still pays on the top block */
    prog_free(&p);
    /* the same sizes on both sides: the matmul terms cancel, the gathers decide (din vs 2 dout) */
    dkp_shape_t square[PROG_MAX_LAYERS] = {{2847, 2847, 25000}, {512, 512, 2560}};
    build(&p, "gcn", &mid, 3, 1);
    dkp_rewrite(&p, DKP_AUTO, &roofline, square, 20000, 200000, ch, 8);
    assert_true(ch[0].combination_first); /* 256 wide against 2 x 64 */
    assert_true(ch[1].combination_first);
    prog_free(&p);
    /* a tie (256 against 2 x 128) keeps the written order */
    model_cfg_t tie = {256, 8, 128, 2, 1, 0.5f};
    build(&p, "gcn", &tie, 3, 1);
    dkp_rewrite(&p, DKP_AUTO, &roofline, square, 20000, 200000, ch, 8);
    assert_false(ch[0].combination_first);
    prog_free(&p);
}

/* DKP's fitted model decides (GraphTensor fits at the start of training
 * and uses the fit from then on): samples timed by known coefficients
 * whose gathers cost 50x the roofline's, beside the roofline's matmuls,
 * give those coefficients back, and with them the sampled block's layer 0
 * (aggregation-first by the roofline) is combination-first; a kernel
 * without samples keeps the prior's coefficients. */
static void test_dkp_fit_decides(void **state)
{
    (void)state;
    dkp_coef_t truth = {roofline.alpha, roofline.beta, 50 * roofline.gamma, 50 * roofline.delta};
    dkp_model_t m;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < 12; i++, m.ngemm++, m.ngather++) {
        double rows = 1000.0 * (i + 1), k = 16 << (i % 5), n = 8 << (i % 3);
        m.gemm[i][0] = rows * k * n, m.gemm[i][1] = rows * n;
        m.gemm[i][2] = truth.alpha * m.gemm[i][0] + truth.beta * m.gemm[i][1];
        double e = 5000.0 * (i + 1) * (1 + i % 4), vrows = 3000.0 * (i + 2), f = 8 << (i % 4);
        m.gather[i][0] = e * f, m.gather[i][1] = vrows * f;
        m.gather[i][2] = truth.gamma * m.gather[i][0] + truth.delta * m.gather[i][1];
    }
    dkp_fit(&m, &roofline);
    assert_true(m.fitted);
    const double *got = &m.coef.alpha, *want = &truth.alpha;
    for (int c = 0; c < 4; c++) assert_true(fabs(got[c] - want[c]) <= 1e-6 * want[c]);
    model_cfg_t mid = {256, 8, 64, 2, 1, 0.5f};
    dkp_shape_t blocks[PROG_MAX_LAYERS] = {{7786, 2912, 14208}, {2912, 512, 3612}};
    program_t p;
    dkp_choice_t by_roofline[8], by_fit[8];
    build(&p, "gcn", &mid, 3, 1);
    dkp_rewrite(&p, DKP_AUTO, &roofline, blocks, 20000, 200000, by_roofline, 8);
    prog_free(&p);
    build(&p, "gcn", &mid, 3, 1);
    dkp_rewrite(&p, DKP_AUTO, &m.coef, blocks, 20000, 200000, by_fit, 8);
    assert_false(by_roofline[0].combination_first);
    assert_true(by_fit[0].combination_first);
    assert_true(by_fit[0].cost_s[0] > 1.5 * by_fit[0].cost_s[1]); /* the fitted costs say why */
    assert_int_equal(p.code[1].op, OP_MATMUL);                   /* and the program follows them */
    prog_free(&p);
    m.ngather = 0; /* no gather timed: the prior's gamma and delta stand */
    dkp_fit(&m, &roofline);
    assert_true(m.coef.gamma == roofline.gamma && m.coef.delta == roofline.delta);
    assert_true(fabs(m.coef.alpha - truth.alpha) <= 1e-6 * truth.alpha);
}

static void test_cross_entropy_gradient(void **state)
{
    (void)state;
    gs_err_t err;
    tensor_t z, dz;
    int32_t label[6] = {0, 2, 1, -1, 2, 0}, idx[5] = {0, 1, 2, 3, 4};
    assert_int_equal(tensor_alloc(&z, 6, 3, &err), GS_OK);
    assert_int_equal(tensor_alloc(&dz, 6, 3, &err), GS_OK);
    tu_fill(z.data, 18, 41);
    train_xent(&z, label, idx, 5, &dz);
    for (int i = 0; i < 18; i++) {
        float z0 = z.data[i];
        z.data[i] = z0 + 1e-3f;
        double lp = train_xent(&z, label, idx, 5, NULL);
        z.data[i] = z0 - 1e-3f;
        double lm = train_xent(&z, label, idx, 5, NULL);
        z.data[i] = z0;
        double num = (lp - lm) / 2e-3;
        assert_true(fabs(num - dz.data[i]) < 1e-3);
    }
    /* rows outside idx (5) and unlabeled rows (3) get no gradient */
    for (int j = 0; j < 3; j++) assert_true(dz.data[3 * 3 + j] == 0 && dz.data[5 * 3 + j] == 0);
    tensor_free(&z);
    tensor_free(&dz);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unary_ops),
        cmocka_unit_test(test_binary_ops),
        cmocka_unit_test(test_graph_ops),
        cmocka_unit_test(test_fused_gather),
        cmocka_unit_test(test_one_layer_of_every_model),
        cmocka_unit_test(test_dkp_rewritten_programs),
        cmocka_unit_test(test_dkp_choices),
        cmocka_unit_test(test_dkp_fit_decides),
        cmocka_unit_test(test_cross_entropy_gradient),
    };
    return cmocka_run_group_tests_name("gradcheck", tests, setup, teardown);
}
