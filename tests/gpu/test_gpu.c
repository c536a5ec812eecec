/* test_gpu.c - the CUDA plugin against the CPU reference (make test-gpu).
 * Kernels: every op of the plugin's table runs on fresh random inputs over
 * a power-law graph with hubs wider than one work item, with outputs
 * poisoned first; the result must match kops_cpu within a relative error
 * of 1e-5 (FP32 summation order differs). Training: 5 epochs on the GPU
 * give the cpu backend's losses within 1e-4 relative, in GPU memory and
 * streamed (pipelining, selective scheduling, 2 logical devices). CUPTI:
 * the spans of a streamed epoch exist, and chunk work is tagged.
 * Exits 77 ("skipped") when no GPU answers. */
#include "tests/unit/test_util.h"

#include <math.h>

#include "engine/device/cuda_plugin.h"
#include "engine/train/train.h"
#include "engine/program/op_table.h"

static const gs_cuda_t *cu;
static const kops_t *K;
static kops_ctx_t *CX; /* K's context */

/* The context of table k: the GPU's, or the host's (empty). */
static kops_ctx_t *kcx(const kops_t *k) { return k == K ? CX : NULL; }
static tu_gen_t gen;
static dataset_t ds;
static graph_t hg, dg;

/* ---------------- helpers ---------------- */

static float *rnd(int64_t n, uint64_t seed)
{
    float *p = malloc(sizeof(float) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) p[i] = 2.0f * gs_uniform(gs_hash2(seed, (uint64_t)i)) - 1.0f;
    return p;
}

static void *up(const void *h, size_t bytes)
{
    void *d = K->alloc(CX, bytes);
    assert_non_null(d);
    K->upload(CX, d, h, bytes);
    return d;
}

/* Fills device memory with NaN so unwritten outputs show. */
static void poison(float *d, int64_t n)
{
    float *h = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) h[i] = NAN;
    K->upload(CX, d, h, sizeof(float) * (size_t)n);
    free(h);
}

static void check_close(const char *what, const float *ref, const float *dev, int64_t n, double tol)
{
    float *got = malloc(sizeof(float) * (size_t)(n ? n : 1));
    K->download(CX, got, dev, sizeof(float) * (size_t)n);
    gs_err_t err;
    if (K->sync(CX, &err)) fail_msg("%s: %s", what, err.msg);
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(got[i])) fail_msg("%s: element %lld is %g (unwritten or overflow)", what, (long long)i, got[i]);
        num += ((double)got[i] - ref[i]) * ((double)got[i] - ref[i]);
        den += (double)ref[i] * ref[i];
    }
    double rel = den > 0 ? sqrt(num / den) : sqrt(num);
    if (rel > tol) fail_msg("%s: relative error %.3g > %.3g", what, rel, tol);
    free(got);
}

/* ---------------- fixtures ---------------- */

static int setup(void **state)
{
    (void)state;
    gen_params_t p = {.nodes = 20000, .avg_degree = 24, .feats = 16, .classes = 5, .seed = 11};
    if (tu_gen_setup(&gen, &p)) return -1;
    gs_err_t err;
    if (dataset_load(&ds, gen.data_dir, 0, NULL, &err) || graph_build(&hg, &ds, &err)) return -1;
    return K->graph_mirror(CX, &hg, &dg, &err);
}

static int teardown(void **state)
{
    (void)state;
    K->graph_release(CX, &dg);
    graph_free(&hg);
    dataset_free(&ds);
    tu_gen_cleanup(&gen);
    return 0;
}

static void test_graph_has_hubs(void **state)
{
    (void)state;
    int64_t maxdeg = 0;
    for (int64_t v = 0; v < hg.n; v++) {
        int64_t d = hg.in_ptr[v + 1] - hg.in_ptr[v];
        if (d > maxdeg) maxdeg = d;
    }
    if (maxdeg <= 512) fail_msg("max in-degree %lld: no hub is split across work items", (long long)maxdeg);
}

/* ---------------- kernels ---------------- */

typedef enum { IN_V, IN_E } dom_t;

/* Runs one sparse op on both tables: out = op(in1, in2), with `acc`. */
typedef void (*sparse_fn)(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc,
                          int32_t *aux);

static void compare_sparse(const char *name, sparse_fn fn, dom_t da, int64_t fa, dom_t db, int64_t fb, dom_t dy,
                           int64_t fy, int acc, uint64_t seed)
{
    int64_t na = (da == IN_E ? hg.m : hg.n) * fa, nb = (db == IN_E ? hg.m : hg.n) * fb, ny = (dy == IN_E ? hg.m : hg.n) * fy;
    float *a = rnd(na, seed), *b = rnd(nb, seed + 1), *y = rnd(ny, seed + 2);
    float *da_ = up(a, sizeof(float) * (size_t)na), *db_ = up(b, sizeof(float) * (size_t)nb);
    float *dy_ = up(y, sizeof(float) * (size_t)ny);
    if (!acc) poison(dy_, ny);
    int32_t *aux = malloc(sizeof(int32_t) * (size_t)(ny ? ny : 1)), *daux = K->alloc(CX, sizeof(int32_t) * (size_t)(ny ? ny : 1));
    fn(&kops_cpu, &hg, a, b, y, acc, aux);
    fn(K, &dg, da_, db_, dy_, acc, daux);
    char what[96];
    snprintf(what, sizeof what, "%s (acc=%d)", name, acc);
    check_close(what, y, dy_, ny, 1e-5);
    free(a), free(b), free(y), free(aux);
    K->release(CX, da_), K->release(CX, db_), K->release(CX, dy_), K->release(CX, daux);
}

static void f_gather(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_sum(kcx(k), g, AGG_NORM, a, 20, y, acc);
}
static void f_gather_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_sum_bwd(kcx(k), g, AGG_MEAN, a, 20, y, acc);
}
static void f_gather_wide(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_sum(kcx(k), g, AGG_ONE, a, 132, y, acc);
}
static void f_scatter_src_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->scatter_src_bwd(kcx(k), g, a, 3, y, acc);
}
static void f_scatter_dst_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->scatter_dst_bwd(kcx(k), g, a, 3, y, acc);
}
static void f_gather_edge_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_edge_bwd(kcx(k), g, AGG_NORM, a, 3, y, acc);
}
static void f_softmax_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)x;
    k->edge_softmax_bwd(kcx(k), g, a, b, 2, y, acc);
}
static void f_attn_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)x;
    k->gather_attn_bwd(kcx(k), g, a, b, 2, 4, y, acc); /* a: (E, 2) attention, b: dY (N, 8) */
}
static void f_sddmm(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)x;
    k->sddmm(kcx(k), g, a, b, 2, 4, y, acc);
}
static void f_typed(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_typed(kcx(k), g, AGG_NORM, a, 4, y, acc);
}
static void f_typed_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_typed_bwd(kcx(k), g, AGG_NORM, a, 4, y, acc);
}
static void f_max_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    /* argmax from a forward pass on this table, then the backward */
    float *tmp = k->alloc(kcx(k), sizeof(float) * (size_t)(g->n * 6));
    k->gather_max(kcx(k), g, b, 6, tmp, x);
    k->gather_max_bwd(kcx(k), g, x, a, 6, y, acc);
    k->release(kcx(k), tmp);
}

static void test_sparse_kernels(void **state)
{
    (void)state;
    int types = hg.ntypes;
    for (int acc = 0; acc < 2; acc++) {
        uint64_t s = 100 + (uint64_t)acc * 50;
        compare_sparse("gather_sum", f_gather, IN_V, 20, IN_V, 1, IN_V, 20, acc, s + 1);
        compare_sparse("gather_sum_bwd", f_gather_bwd, IN_V, 20, IN_V, 1, IN_V, 20, acc, s + 2);
        compare_sparse("gather_sum f=132", f_gather_wide, IN_V, 132, IN_V, 1, IN_V, 132, acc, s + 3);
        compare_sparse("scatter_src_bwd", f_scatter_src_bwd, IN_E, 3, IN_V, 1, IN_V, 3, acc, s + 4);
        compare_sparse("scatter_dst_bwd", f_scatter_dst_bwd, IN_E, 3, IN_V, 1, IN_V, 3, acc, s + 5);
        compare_sparse("gather_edge_bwd", f_gather_edge_bwd, IN_V, 3, IN_V, 1, IN_E, 3, acc, s + 6);
        compare_sparse("edge_softmax_bwd", f_softmax_bwd, IN_E, 2, IN_E, 2, IN_E, 2, acc, s + 7);
        compare_sparse("gather_attn_bwd", f_attn_bwd, IN_E, 2, IN_V, 8, IN_V, 8, acc, s + 8);
        compare_sparse("sddmm", f_sddmm, IN_V, 8, IN_V, 8, IN_E, 2, acc, s + 9);
        compare_sparse("gather_typed", f_typed, IN_V, 4 * types, IN_V, 1, IN_V, 4, acc, s + 10);
        compare_sparse("gather_typed_bwd", f_typed_bwd, IN_V, 4, IN_V, 1, IN_V, 4 * types, acc, s + 11);
        compare_sparse("gather_max_bwd", f_max_bwd, IN_V, 6, IN_V, 6, IN_V, 6, acc, s + 12);
    }
}

/* Forward-only sparse ops (no acc argument). */
static void test_sparse_forward_ops(void **state)
{
    (void)state;
    int64_t n = hg.n, m = hg.m;
    float *x = rnd(n * 8, 7), *e2 = rnd(m * 2, 8), *l = rnd(n * 2, 9), *r = rnd(n * 2, 10);
    float *dx = up(x, sizeof(float) * (size_t)(n * 8)), *de2 = up(e2, sizeof(float) * (size_t)(m * 2));
    float *dl = up(l, sizeof(float) * (size_t)(n * 2)), *dr = up(r, sizeof(float) * (size_t)(n * 2));
    float *ref = malloc(sizeof(float) * (size_t)(m * 8)), *out = K->alloc(CX, sizeof(float) * (size_t)(m * 8));
    int32_t *am = malloc(sizeof(int32_t) * (size_t)(n * 8)), *dam = K->alloc(CX, sizeof(int32_t) * (size_t)(n * 8));
    kops_cpu.scatter_src(NULL, &hg, x, 8, ref), poison(out, m * 8), K->scatter_src(CX, &dg, dx, 8, out);
    check_close("scatter_src", ref, out, m * 8, 1e-6);
    kops_cpu.scatter_dst(NULL, &hg, x, 8, ref), poison(out, m * 8), K->scatter_dst(CX, &dg, dx, 8, out);
    check_close("scatter_dst", ref, out, m * 8, 1e-6);
    kops_cpu.edge_uaddv(NULL, &hg, l, r, 2, ref), poison(out, m * 2), K->edge_uaddv(CX, &dg, dl, dr, 2, out);
    check_close("edge_uaddv", ref, out, m * 2, 1e-6);
    kops_cpu.edge_softmax(NULL, &hg, e2, 2, ref), poison(out, m * 2), K->edge_softmax(CX, &dg, de2, 2, out);
    check_close("edge_softmax", ref, out, m * 2, 1e-5);
    kops_cpu.gather_attn(NULL, &hg, x, e2, 2, 4, ref), poison(out, n * 8), K->gather_attn(CX, &dg, dx, de2, 2, 4, out);
    check_close("gather_attn", ref, out, n * 8, 1e-5);
    kops_cpu.gather_max(NULL, &hg, x, 8, ref, am), poison(out, n * 8), K->gather_max(CX, &dg, dx, 8, out, dam);
    check_close("gather_max", ref, out, n * 8, 1e-6);
    kops_cpu.gather_edge(NULL, &hg, AGG_MEAN, e2, 2, ref, 0), poison(out, n * 2), K->gather_edge(CX, &dg, AGG_MEAN, de2, 2, out, 0);
    check_close("gather_edge", ref, out, n * 2, 1e-5);
    free(x), free(e2), free(l), free(r), free(ref), free(am);
    K->release(CX, dx), K->release(CX, de2), K->release(CX, dl), K->release(CX, dr), K->release(CX, out), K->release(CX, dam);
}

static void test_dense_kernels(void **state)
{
    (void)state;
    const int64_t R = 3001, M = 37, Kd = 53;
    float *a = rnd(R * Kd, 21), *w = rnd(Kd * M, 22), *c = rnd(R * M, 23), *dyv = rnd(R * M, 24);
    float *da = up(a, sizeof(float) * (size_t)(R * Kd)), *dw = up(w, sizeof(float) * (size_t)(Kd * M));
    float *dc = up(c, sizeof(float) * (size_t)(R * M)), *ddy = up(dyv, sizeof(float) * (size_t)(R * M));
    float *ref = malloc(sizeof(float) * (size_t)(R * Kd * 2)), *out = K->alloc(CX, sizeof(float) * (size_t)(R * Kd * 2));
    /* gemm in the three shapes the executor uses */
    kops_cpu.gemm(NULL, 0, 0, R, M, Kd, a, w, ref, 0), poison(out, R * M), K->gemm(CX, 0, 0, R, M, Kd, da, dw, out, 0);
    check_close("gemm NN", ref, out, R * M, 1e-5);
    kops_cpu.gemm(NULL, 0, 1, R, Kd, M, dyv, w, ref, 0), poison(out, R * Kd), K->gemm(CX, 0, 1, R, Kd, M, ddy, dw, out, 0);
    check_close("gemm NT", ref, out, R * Kd, 1e-5);
    memcpy(ref, w, sizeof(float) * (size_t)(Kd * M)), K->upload(CX, out, w, sizeof(float) * (size_t)(Kd * M));
    kops_cpu.gemm(NULL, 1, 0, Kd, M, R, a, dyv, ref, 1), K->gemm(CX, 1, 0, Kd, M, R, da, ddy, out, 1);
    check_close("gemm TN acc", ref, out, Kd * M, 1e-5);
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
    double lr = kops_cpu.xent(NULL, c, R, M, label, idx, R, counted, ref);
    double lg = K->xent(CX, dc, R, M, dlabel, didx, R, counted, out);
    if (fabs(lr - lg) > 1e-6 * fabs(lr)) fail_msg("xent: %.9g vs %.9g", lg, lr);
    check_close("xent gradient", ref, out, R * M, 1e-5);
    assert_int_equal(kops_cpu.correct(NULL, c, M, label, idx, R), K->correct(CX, dc, M, dlabel, didx, R));
    float *m0 = rnd(R * M, 31), *v0 = rnd(R * M, 32);
    for (int64_t i = 0; i < R * M; i++) v0[i] = fabsf(v0[i]);
    float *wd = up(c, sizeof(float) * (size_t)(R * M)), *md = up(m0, sizeof(float) * (size_t)(R * M)), *vd = up(v0, sizeof(float) * (size_t)(R * M));
    kops_cpu.adam(NULL, c, dyv, m0, v0, R * M, 0.01f, 5e-4f, 0.1f, 0.001f), K->adam(CX, wd, ddy, md, vd, R * M, 0.01f, 5e-4f, 0.1f, 0.001f);
    check_close("adam w", c, wd, R * M, 1e-5);
    check_close("adam v", v0, vd, R * M, 1e-5);
    free(a), free(w), free(c), free(dyv), free(ref), free(dwr), free(label), free(idx), free(m0), free(v0);
    K->release(CX, da), K->release(CX, dw), K->release(CX, dc), K->release(CX, ddy), K->release(CX, out), K->release(CX, dwd);
    K->release(CX, dlabel), K->release(CX, didx), K->release(CX, wd), K->release(CX, md), K->release(CX, vd);
}

/* ---------------- end to end ---------------- */

typedef struct {
    int spans, tagged, kernels, copies;
} span_count_t;

static void count_task(void *user, int dev, lane_t lane, chunk_tag_t tag, double t0, double t1, double bytes)
{
    (void)dev, (void)bytes;
    span_count_t *c = user;
    c->spans++;
    c->tagged += tag.row >= 0 && tag.col >= 0;
    c->kernels += lane == LANE_COMPUTE;
    c->copies += lane != LANE_COMPUTE;
    if (!(t1 >= t0)) fail_msg("span ends before it starts");
}

static void losses(const char *dataset, const char *model, device_kind_t dev, int stream, double *out, span_count_t *spans)
{
    train_cfg_t c;
    train_cfg_defaults(&c);
    snprintf(c.dataset, sizeof c.dataset, "%s", dataset);
    snprintf(c.model, sizeof c.model, "%s", model);
    c.threads = 4, c.device = dev, c.stream = stream;
    if (stream) {
        c.devices = 2, c.chunks = 4, c.links_native = 1, c.link_scale = 1;
        c.knobs = (stream_knobs_t){.pipeline = 1, .subchunks = 4, .selective = SEL_ON, .swap = 1, .multidev = MD_CHAIN,
                                   .memplan = MP_ROC};
    }
    train_env_t env = {.on_task = spans ? count_task : NULL, .observer = spans};
    trainer_t t;
    gs_err_t err;
    if (trainer_open(&t, &c, &env, &err)) fail_msg("%s: %s", dataset, err.msg);
    for (int i = 0; i < 5; i++) {
        epoch_stats_t st;
        if (trainer_epoch(&t, &st, &err)) fail_msg("%s epoch %d: %s", dataset, i + 1, err.msg);
        out[i] = st.loss;
    }
    trainer_close(&t);
}

static void same_losses(const char *dataset, const char *model, int stream)
{
    double ref[5], got[5];
    span_count_t spans = {0};
    losses(dataset, model, DEVICE_HOST, stream, ref, NULL);
    losses(dataset, model, DEVICE_CUDA, stream, got, stream ? &spans : NULL);
    for (int i = 0; i < 5; i++)
        if (fabs(got[i] - ref[i]) > 1e-4 * fabs(ref[i]))
            fail_msg("%s %s %s epoch %d: cuda %.9g vs cpu %.9g", dataset, model, stream ? "streamed" : "in memory", i + 1,
                     got[i], ref[i]);
    if (stream) { /* CUPTI's records reached the task hook, with chunk coordinates */
        if (spans.kernels == 0 || spans.copies == 0 || spans.tagged == 0)
            fail_msg("CUPTI spans: %d (%d kernels, %d copies, %d tagged)", spans.spans, spans.kernels, spans.copies,
                     spans.tagged);
        print_message("streamed run: %d CUPTI spans, %d with chunk coordinates\n", spans.spans, spans.tagged);
    }
}

static void test_train_matches_cpu(void **state)
{
    (void)state;
    same_losses("cora", "gcn", 0);
    same_losses("cora", "gat", 0);
    same_losses(gen.data_dir, "gcn", 0);
    same_losses(gen.data_dir, "ggnn", 0);
    same_losses("cora", "gcn", 1);
    same_losses(gen.data_dir, "gcn", 1);
}

int main(void)
{
    gs_err_t err;
    if (!(cu = gs_cuda_get(&err))) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    K = cu->kops;
    if (!(CX = K->open(&err))) {
        printf("GPU context: %s\n", err.msg);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_has_hubs),      cmocka_unit_test(test_sparse_kernels),
        cmocka_unit_test(test_sparse_forward_ops), cmocka_unit_test(test_dense_kernels),
        cmocka_unit_test(test_train_matches_cpu),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
