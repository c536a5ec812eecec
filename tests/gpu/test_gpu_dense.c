/* test_gpu_dense.c - the plugin's dense kernels against the CPU
 * reference (kops_cpu): cuBLAS's gemm in the executor's three shapes,
 * every elementwise op forward and backward (dropout's mask included, the
 * same pure function of its coordinates on both), column sums, head dots,
 * the loss and its gradient, accuracy and Adam; outputs poisoned first.
 * The elementwise ops that read an element's row and column (bias,
 * dropout) also on a tensor larger than the kernels' grid, whose threads
 * each take several elements across row ends.
 * Exits 77 when no GPU answers. */
#include "gpu_util.h"

/* inputs shared by the tests: a (R, Kd), w (Kd, M), c and dy (R, M), on the
 * host and the device, and an output buffer of each */
static const int64_t R = 3001, M = 37, Kd = 53;
static float *a, *w, *c, *dyv, *da, *dw, *dc, *ddy, *ref, *out;

static int setup(void **state)
{
    if (gpu_graph_setup(state)) return -1;
    a = rnd(R * Kd, 21), w = rnd(Kd * M, 22), c = rnd(R * M, 23), dyv = rnd(R * M, 24);
    da = up(a, sizeof(float) * (size_t)(R * Kd)), dw = up(w, sizeof(float) * (size_t)(Kd * M));
    dc = up(c, sizeof(float) * (size_t)(R * M)), ddy = up(dyv, sizeof(float) * (size_t)(R * M));
    ref = malloc(sizeof(float) * (size_t)(R * Kd * 2)), out = K->alloc(CX, sizeof(float) * (size_t)(R * Kd * 2));
    return 0;
}

static int teardown(void **state)
{
    free(a), free(w), free(c), free(dyv), free(ref);
    K->release(CX, da), K->release(CX, dw), K->release(CX, dc), K->release(CX, ddy), K->release(CX, out);
    return gpu_graph_teardown(state);
}

static void test_gemm(void **state)
{
    (void)state;
    /* gemm in the three shapes the executor uses */
    kops_cpu.gemm(NULL, 0, 0, R, M, Kd, a, w, ref, 0), poison(out, R * M), K->gemm(CX, 0, 0, R, M, Kd, da, dw, out, 0);
    check_close("gemm NN", ref, out, R * M, 1e-5);
    kops_cpu.gemm(NULL, 0, 1, R, Kd, M, dyv, w, ref, 0), poison(out, R * Kd), K->gemm(CX, 0, 1, R, Kd, M, ddy, dw, out, 0);
    check_close("gemm NT", ref, out, R * Kd, 1e-5);
    memcpy(ref, w, sizeof(float) * (size_t)(Kd * M)), K->upload(CX, out, w, sizeof(float) * (size_t)(Kd * M));
    kops_cpu.gemm(NULL, 1, 0, Kd, M, R, a, dyv, ref, 1), K->gemm(CX, 1, 0, Kd, M, R, da, ddy, out, 1);
    check_close("gemm TN acc", ref, out, Kd * M, 1e-5);
}

static void test_elementwise(void **state)
{
    (void)state;
    /* every elementwise op, forward and backward, dropout included */
    const op_kind_t ops[] = {OP_BIAS, OP_ADD, OP_MUL, OP_LERP, OP_RELU, OP_LEAKY_RELU, OP_ELU, OP_SIGMOID, OP_TANH, OP_DROPOUT};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        const float *b = ops[i] == OP_BIAS ? w : c; /* bias: one row */
        const float *db = ops[i] == OP_BIAS ? dw : dc;
        ew_args_t h = {.op = ops[i], .a = c, .b = b, .c = dyv, .out = ref, .rows = R, .cols = M, .fp = 0.3f, .g = &hg, .key = 99};
        ew_args_t d = h;
        d.a = dc, d.b = db, d.c = ddy, d.out = out, d.g = &dg;
        kops_cpu.ew_forward(NULL, &h), poison(out, R * M), K->ew_forward(CX, &d);
        check_close(op_name(ops[i]), ref, out, R * M, 1e-5);
        /* backward: y = the forward result, dy random, da accumulates onto a */
        float *y = malloc(sizeof(float) * (size_t)(R * M)), *dyd = up(ref, sizeof(float) * (size_t)(R * M));
        memcpy(y, ref, sizeof(float) * (size_t)(R * M));
        float *gref = malloc(sizeof(float) * (size_t)(R * M));
        memcpy(gref, a, sizeof(float) * (size_t)(R * M));
        float *gdev = up(a, sizeof(float) * (size_t)(R * M));
        h.y = y, h.dy = dyv, h.da = gref, h.acc_a = 1, h.db = NULL, h.out = NULL;
        d.y = dyd, d.dy = ddy, d.da = gdev, d.acc_a = 1, d.db = NULL, d.out = NULL;
        kops_cpu.ew_backward(NULL, &h), K->ew_backward(CX, &d);
        char what[48];
        snprintf(what, sizeof what, "%s backward", op_name(ops[i]));
        check_close(what, gref, gdev, R * M, 1e-5);
        free(y), free(gref), K->release(CX, dyd), K->release(CX, gdev);
    }
}

/* one op forward and backward on a (rows, cols) tensor: the device against the CPU */
static void ew_against_cpu(op_kind_t op, int64_t rows, int64_t cols)
{
    int64_t n = rows * cols;
    size_t bytes = sizeof(float) * (size_t)n;
    float *x = rnd(n, 31), *bias = rnd(cols, 32), *dy = rnd(n, 33), *yref = malloc(bytes), *gref = calloc((size_t)n, sizeof(float));
    float *dx = up(x, bytes), *dbias = up(bias, sizeof(float) * (size_t)cols), *ddyv = up(dy, bytes);
    float *dout = K->alloc(CX, bytes), *dgrad = K->alloc(CX, bytes);
    ew_args_t h = {.op = op, .a = x, .b = bias, .out = yref, .rows = rows, .cols = cols, .fp = 0.3f, .g = &hg, .key = 7};
    ew_args_t d = h;
    d.a = dx, d.b = dbias, d.out = dout, d.g = &dg;
    kops_cpu.ew_forward(NULL, &h), poison(dout, n), K->ew_forward(CX, &d);
    check_close(op_name(op), yref, dout, n, 1e-5);
    h.y = yref, h.dy = dy, h.da = gref, h.out = NULL;
    d.y = dout, d.dy = ddyv, d.da = dgrad, d.out = NULL;
    kops_cpu.ew_backward(NULL, &h), poison(dgrad, n), K->ew_backward(CX, &d);
    check_close("backward", gref, dgrad, n, 1e-5);
    free(x), free(bias), free(dy), free(yref), free(gref);
    K->release(CX, dx), K->release(CX, dbias), K->release(CX, ddyv), K->release(CX, dout), K->release(CX, dgrad);
}

static void test_elementwise_past_the_grid(void **state)
{
    (void)state;
    /* R x 353 = 1,059,353 elements, past the 4096 x 256 threads of an
     * elementwise grid; 353 does not divide the grid's stride */
    ew_against_cpu(OP_BIAS, R, 353);
    ew_against_cpu(OP_DROPOUT, R, 353);
}

static void test_reductions_loss_adam(void **state)
{
    (void)state;
    /* column sums, head dots, loss, accuracy, Adam */
    kops_cpu.colsum(NULL, c, R, M, ref, 0), poison(out, M), K->colsum(CX, dc, R, M, out, 0);
    check_close("colsum", ref, out, M, 1e-5);
    kops_cpu.head_dot(NULL, a, w, R, 4, 8, ref), poison(out, R * 4), K->head_dot(CX, da, dw, R, 4, 8, out);
    check_close("head_dot", ref, out, R * 4, 1e-5);
    float *dwr = malloc(sizeof(float) * 32), *dwd = K->alloc(CX, sizeof(float) * 32);
    kops_cpu.head_dot_bwd(NULL, a, w, dyv, R, 4, 8, NULL, 0, dwr, 0), poison(dwd, 32), K->head_dot_bwd(CX, da, dw, ddy, R, 4, 8, NULL, 0, dwd, 0);
    check_close("head_dot_bwd dw", dwr, dwd, 32, 1e-4);
    int32_t *label = malloc(sizeof(int32_t) * (size_t)R), *idx = malloc(sizeof(int32_t) * (size_t)R);
    int64_t counted = 0;
    for (int64_t i = 0; i < R; i++) label[i] = i % 11 == 0 ? -1 : (int32_t)(i % M), idx[i] = (int32_t)((i * 7) % R), counted += label[idx[i]] >= 0;
    int32_t *dlabel = up(label, sizeof(int32_t) * (size_t)R), *didx = up(idx, sizeof(int32_t) * (size_t)R);
    double lr = kops_cpu.xent(NULL, c, R, M, label, idx, R, counted, ref, 0);
    double lg = K->xent(CX, dc, R, M, dlabel, didx, R, counted, out, 0);
    if (fabs(lr - lg) > 1e-6 * fabs(lr)) fail_msg("xent: %.9g vs %.9g", lg, lr);
    check_close("xent gradient", ref, out, R * M, 1e-5);
    assert_int_equal(kops_cpu.correct(NULL, c, M, label, idx, R), K->correct(CX, dc, M, dlabel, didx, R));
    float *m0 = rnd(R * M, 31), *v0 = rnd(R * M, 32);
    for (int64_t i = 0; i < R * M; i++) v0[i] = fabsf(v0[i]);
    float *wd = up(c, sizeof(float) * (size_t)(R * M)), *md = up(m0, sizeof(float) * (size_t)(R * M)), *vd = up(v0, sizeof(float) * (size_t)(R * M));
    kops_cpu.adam(NULL, c, dyv, m0, v0, R * M, 0.01f, 5e-4f, 0.1f, 0.001f), K->adam(CX, wd, ddy, md, vd, R * M, 0.01f, 5e-4f, 0.1f, 0.001f);
    check_close("adam w", c, wd, R * M, 1e-5);
    check_close("adam v", v0, vd, R * M, 1e-5);
    free(dwr), free(label), free(idx), free(m0), free(v0);
    K->release(CX, dwd), K->release(CX, dlabel), K->release(CX, didx), K->release(CX, wd), K->release(CX, md), K->release(CX, vd);
}

int main(void)
{
    gpu_open_or_skip();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_elementwise),
        cmocka_unit_test(test_elementwise_past_the_grid),
        cmocka_unit_test(test_reductions_loss_adam),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
