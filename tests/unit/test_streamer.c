/* test_streamer.c - the streaming scheduler on the cpu backend's virtual
 * devices: every combination of chunks, sub-chunks, pipelining, selective
 * scheduling, swap, device count and multi-device scheme gives the
 * in-memory gather (bitwise when the summation order is kept), the device
 * cap is never exceeded (arena high-water mark), a cap too small fails
 * cleanly, selective scheduling moves fewer bytes, chain streaming
 * halves the host uplink traffic against naive on pcie-4gpu-2switch, and
 * with selective scheduling carries exactly the rows a switch's columns
 * use.
 * So do the max gather, winners and ties included, the attention gather
 * and the plain programs' scatters and edge gathers, forward and back, and
 * the fused gather (G-GCN's shape: two source leaves and a destination
 * leaf, weighted), forward and each leaf's gradient, written or added.
 * The ApplyVertex matmul and its backward (ring all-reduce of the weight
 * gradient over 1 to 4 devices) match k_gemm, adding mode included. */
/* run-under: asan tsan */
#include "test_util.h"

#include <math.h>

#include "engine/device/backend.h"
#include "engine/kernels/kernels.h"
#include "engine/kernels/kernels_fused.h"
#include "engine/machine/vclock.h"
#include "engine/stream/streamer.h"
#include "base/threadpool.h"

#define N 300
#define F 6

static dataset_t ds;
static graph_t g;
static float x[N * F * 5], ref_fwd[N * F], ref_bwd[N * F], ref_tfwd[N * F], ref_tbwd[N * F * 5];
/* the max gather's: an input with many ties (values on a coarse grid), its max, winners and backward */
static float xt[N * F], ref_max[N * F], ref_max_bwd[N * F];
static int32_t ref_win[N * F];
/* the attention gather's: per-edge scales of 2 heads of 3 values, its forward and input gradient */
#define HEADS 2
static float *att, ref_attn[N * F], ref_attn_bwd[N * F];
/* the plain programs' edge-tensor ops: an edge tensor, and each op's result forward and back */
static float *edge_in, *ref_ssrc, *ref_sdst, *ref_gedge_bwd, ref_gedge[N * F], ref_ssrc_bwd[N * F], ref_sdst_bwd[N * F];
/* the fused gather's: sigmoid(leaf 0 at the destination + leaf 1 at the
 * source) * leaf 2 at the source, normalised; the leaves and the output's
 * gradient are x's first four (N, F) tensors */
static const fused_expr_t fexpr = {3, 3, 1, AGG_NORM, {{OP_ADD, 0, 1, -1, 0}, {OP_SIGMOID, 3, -1, -1, 0}, {OP_MUL, 4, 2, -1, 0}}};
static float ref_fused[N * F], ref_dleaf[3][N * F];
static topology_t topo;

static int setup(void **state)
{
    (void)state;
    gs_err_t err;
    gs_pool_init(2);
    tu_random_dataset(&ds, N, 1200, F, 3, 1, 21);
    if (graph_build(&g, &ds, &err)) return -1;
    tu_fill(x, N * F * 5, 3);
    k_gather_sum(&g, AGG_NORM, x, F, ref_fwd, 0);
    k_gather_sum_bwd(&g, AGG_NORM, x, F, ref_bwd, 0);
    k_gather_typed(&g, AGG_MEAN, x, F, ref_tfwd, 0);
    k_gather_typed_bwd(&g, AGG_MEAN, x, F, ref_tbwd, 0);
    for (int i = 0; i < N * F; i++) xt[i] = floorf(x[i] * 2.0f) / 2.0f;
    k_gather_max(&g, xt, F, ref_max, ref_win);
    k_gather_max_bwd(&g, ref_win, x, F, ref_max_bwd, 0);
    att = malloc(sizeof(float) * (size_t)(g.m * HEADS));
    if (!att) return -1;
    tu_fill(att, g.m * HEADS, 5);
    k_gather_attn(&g, x, att, HEADS, F / HEADS, ref_attn);
    k_gather_attn_bwd(&g, att, x, HEADS, F / HEADS, ref_attn_bwd, 0);
    size_t ebytes = sizeof(float) * (size_t)(g.m * F);
    edge_in = malloc(ebytes), ref_ssrc = malloc(ebytes), ref_sdst = malloc(ebytes), ref_gedge_bwd = malloc(ebytes);
    if (!edge_in || !ref_ssrc || !ref_sdst || !ref_gedge_bwd) return -1;
    tu_fill(edge_in, g.m * F, 7);
    k_scatter_src(&g, x, F, ref_ssrc);
    k_scatter_dst(&g, x, F, ref_sdst);
    k_gather_edge(&g, AGG_NORM, edge_in, F, ref_gedge, 0);
    k_gather_edge_bwd(&g, AGG_NORM, x, F, ref_gedge_bwd, 0);
    k_scatter_src_bwd(&g, edge_in, F, ref_ssrc_bwd, 0);
    k_scatter_dst_bwd(&g, edge_in, F, ref_sdst_bwd, 0);
    const float *leaf[3] = {x, x + N * F, x + 2 * N * F};
    float *dleaf[3] = {ref_dleaf[0], ref_dleaf[1], ref_dleaf[2]};
    int zero[3] = {0, 0, 0};
    k_gather_fused(&g, &fexpr, leaf, F, ref_fused);
    k_gather_fused_bwd(&g, &fexpr, leaf, x + 3 * N * F, F, dleaf, zero);
    topology_get("pcie-4gpu-2switch", &topo);
    topology_scale(&topo, 50.0); /* fast links: the model runs, the test stays quick */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(att), free(edge_in), free(ref_ssrc), free(ref_sdst), free(ref_gedge_bwd);
    graph_free(&g);
    dataset_free(&ds);
    return 0;
}

typedef struct {
    backend_t *b;
    streamer_t s;
} rig_t;

/* The clock the rig's backend runs on: the wall clock, or a virtual one. */
static int virtual_time;
static vclock_t vclk;

static void rig_open_on(rig_t *r, const graph_t *gr, int ndev, uint64_t cap, int p, const stream_knobs_t *kn, int links)
{
    gs_err_t err;
    memset(r, 0, sizeof *r);
    backend_cfg_t cfg = {ndev, cap, links ? &topo : NULL, streamer_task_hook, &r->s, NULL, 0, 0};
    if (virtual_time) vclock_init(&vclk, &topo, KTIME_ROOFLINE, 1e9, 2, 0), cfg.clock = &vclk;
    assert_int_equal(backend_cpu.open(&r->b, &cfg, &err), GS_OK);
    int64_t bounds[9];
    order_even_bounds(N, p, bounds);
    if (streamer_init(&r->s, &backend_cpu, r->b, links ? &topo : NULL, gr, p, bounds, kn, SUB_ALL_FIELDS, &err)) fail_msg("%s", err.msg);
}

/* A rig on the suite's graph g. */
static void rig_open(rig_t *r, int ndev, uint64_t cap, int p, const stream_knobs_t *kn, int links)
{
    rig_open_on(r, &g, ndev, cap, p, kn, links);
}

static void rig_close(rig_t *r)
{
    streamer_free(&r->s);
    backend_cpu.close(r->b);
}

static void assert_near(const float *a, const float *b, int64_t n, double tol, const char *what)
{
    for (int64_t i = 0; i < n; i++)
        if (fabs((double)a[i] - b[i]) > tol * (1 + fabs(b[i]))) fail_msg("%s: element %lld: %.9g vs %.9g", what, (long long)i, a[i], b[i]);
}

/* The gathers and products through the engine interface's calls (keys:
 * 1 for the input, 2 for the output). */
static int gather(streamer_t *s, agg_weight_t agg, typed_mode_t typed, const float *in, int64_t in_cols, float *out,
                  int64_t out_cols, int64_t f, int acc, int bwd, gs_err_t *err)
{
    gather_call_t c = {.g = s->g, .hop = 1, .agg = agg, .typed = typed, .in = {1, (float *)in, N, in_cols},
                       .out = {2, out, N, out_cols}, .f = f, .acc = acc};
    return bwd ? streamer_gather_bwd(s, &c, err) : streamer_gather(s, &c, err);
}

/* The max gather (MP-GCN) through the engine's graph-op call: forward
 * into y and win, or backward from dy (x) and win into y. */
static int gather_max(streamer_t *s, const float *in, float *y, int32_t *win, int acc, int bwd, gs_err_t *err)
{
    graph_call_t c = {.op = OP_GATHER_MAX, .g = s->g, .hop = 1, .in = {1, (float *)in, N, F}, .out = {2, y, N, F}, .f = F,
                      .acc = acc, .argmax = win};
    return streamer_gather_max(s, &c, bwd, err);
}

/* The streamed max gather against k_gather_max: values and winners
 * bitwise (ties included, whatever the block order), the backward
 * within tol (bitwise in the unchunked order), and its adding mode. */
static void check_max(streamer_t *s, double tol, const char *what)
{
    static float y[N * F];
    static int32_t win[N * F];
    gs_err_t err;
    assert_int_equal(gather_max(s, xt, y, win, 0, 0, &err), GS_OK);
    assert_near(y, ref_max, N * F, 0, what);
    for (int i = 0; i < N * F; i++)
        if (win[i] != ref_win[i]) fail_msg("%s: max winner %d: %d vs %d", what, i, win[i], ref_win[i]);
    assert_int_equal(gather_max(s, x, y, win, 0, 1, &err), GS_OK);
    assert_near(y, ref_max_bwd, N * F, tol, what);
    assert_int_equal(gather_max(s, x, y, win, 1, 1, &err), GS_OK);
    for (int i = 0; i < N * F; i++)
        if (fabs(y[i] - 2 * ref_max_bwd[i]) > 1e-5 * (1 + fabs(ref_max_bwd[i]))) fail_msg("%s: max acc mode", what);
}

/* The attention gather through the graph-op call, forward or its input gradient. */
static int gather_attn(streamer_t *s, const float *in, float *y, int acc, int bwd, gs_err_t *err)
{
    graph_call_t c = {.op = OP_GATHER_ATTN, .g = s->g, .hop = 1, .in = {1, (float *)in, N, F}, .out = {2, y, N, F}, .f = F,
                      .acc = acc, .att = att, .heads = HEADS};
    return streamer_gather_attn(s, &c, bwd, err);
}

/* The streamed attention gather against k_gather_attn and its backward
 * (within tol; bitwise in the unchunked order), and its adding mode. */
static void check_attn(streamer_t *s, double tol, const char *what)
{
    static float y[N * F];
    gs_err_t err;
    assert_int_equal(gather_attn(s, x, y, 0, 0, &err), GS_OK);
    assert_near(y, ref_attn, N * F, tol, what);
    assert_int_equal(gather_attn(s, x, y, 0, 1, &err), GS_OK);
    assert_near(y, ref_attn_bwd, N * F, tol, what);
    assert_int_equal(gather_attn(s, x, y, 1, 1, &err), GS_OK);
    for (int i = 0; i < N * F; i++)
        if (fabs(y[i] - 2 * ref_attn_bwd[i]) > 1e-5 * (1 + fabs(ref_attn_bwd[i]))) fail_msg("%s: attention acc mode", what);
}

/* An edge-tensor op through the graph-op call: in and out are a vertex
 * tensor (N rows) and an edge tensor (g.m rows), as the op reads them. */
static int edge_op(streamer_t *s, op_kind_t op, const float *in, float *out, int acc, int bwd, gs_err_t *err)
{
    int edge_in_t = (op == OP_GATHER_EDGE) != bwd; /* the gather reads edge rows forward; the scatters' gradients do */
    graph_call_t c = {.op = op, .g = s->g, .hop = 1, .in = {1, (float *)in, edge_in_t ? g.m : N, F},
                      .out = {2, out, edge_in_t ? N : g.m, F}, .f = F, .acc = acc, .agg = op == OP_GATHER_EDGE ? AGG_NORM : AGG_ONE};
    return streamer_edge_op(s, &c, bwd, err);
}

/* The streamed scatters and edge gather, forward and back, against the
 * kernels.h references (the scatters are copies and products: bitwise;
 * the gathers within tol), and the adding mode of an edge gradient. */
static void check_edge_ops(streamer_t *s, double tol, const char *what)
{
    static float y[N * F];
    float *m = malloc(sizeof(float) * (size_t)(g.m * F));
    gs_err_t err;
    assert_non_null(m);
    assert_int_equal(edge_op(s, OP_SCATTER_SRC, x, m, 0, 0, &err), GS_OK);
    assert_near(m, ref_ssrc, g.m * F, 0, what);
    assert_int_equal(edge_op(s, OP_SCATTER_DST, x, m, 0, 0, &err), GS_OK);
    assert_near(m, ref_sdst, g.m * F, 0, what);
    assert_int_equal(edge_op(s, OP_GATHER_EDGE, x, m, 0, 1, &err), GS_OK);
    assert_near(m, ref_gedge_bwd, g.m * F, 0, what);
    assert_int_equal(edge_op(s, OP_GATHER_EDGE, x, m, 1, 1, &err), GS_OK);
    for (int64_t i = 0; i < g.m * F; i++)
        if (fabs(m[i] - 2 * ref_gedge_bwd[i]) > 1e-6 * (1 + fabs(ref_gedge_bwd[i]))) fail_msg("%s: edge gradient acc mode", what);
    assert_int_equal(edge_op(s, OP_GATHER_EDGE, edge_in, y, 0, 0, &err), GS_OK);
    assert_near(y, ref_gedge, N * F, tol, what);
    assert_int_equal(edge_op(s, OP_SCATTER_SRC, edge_in, y, 0, 1, &err), GS_OK);
    assert_near(y, ref_ssrc_bwd, N * F, tol, what);
    assert_int_equal(edge_op(s, OP_SCATTER_DST, edge_in, y, 0, 1, &err), GS_OK);
    assert_near(y, ref_sdst_bwd, N * F, tol, what);
    free(m);
}

/* The fused gather through the graph-op call: forward into y, or the
 * gradients of the leaves whose d[k] is not NULL (adding where acc). */
static int gather_fused(streamer_t *s, float *y, float *const *d, int acc, int bwd, gs_err_t *err)
{
    graph_call_t c = {.op = OP_GATHER_FUSED, .g = s->g, .hop = 1, .f = F, .expr = &fexpr, .nleaf = 3,
                      .in = {4, x + 3 * N * F, N, F}, .out = {5, y, N, F}};
    for (int k = 0; k < 3; k++) {
        c.leaf[k] = (xtensor_t){1 + k, x + k * N * F, N, F};
        if (d && d[k]) c.dleaf[k] = (xtensor_t){6 + k, d[k], N, F}, c.dacc[k] = acc;
    }
    return streamer_gather_fused(s, &c, bwd, err);
}

/* The streamed fused gather against k_gather_fused and its backward
 * (within tol; bitwise in the unchunked order): forward, every leaf's
 * gradient, one source leaf's alone, and the adding mode. */
static void check_fused(streamer_t *s, double tol, const char *what)
{
    static float y[N * F], d[3][N * F];
    float *all[3] = {d[0], d[1], d[2]}, *one[3] = {NULL, d[1], NULL};
    gs_err_t err;
    assert_int_equal(gather_fused(s, y, NULL, 0, 0, &err), GS_OK);
    assert_near(y, ref_fused, N * F, tol, what);
    assert_int_equal(gather_fused(s, y, all, 0, 1, &err), GS_OK);
    for (int k = 0; k < 3; k++) assert_near(d[k], ref_dleaf[k], N * F, tol, what);
    memset(d, 0, sizeof d);
    assert_int_equal(gather_fused(s, y, one, 0, 1, &err), GS_OK);
    assert_near(d[1], ref_dleaf[1], N * F, tol, what);
    for (int i = 0; i < N * F; i++)
        if (d[0][i] != 0 || d[2][i] != 0) fail_msg("%s: a fused gradient nobody asked for was written", what);
    memcpy(d, ref_dleaf, sizeof d);
    assert_int_equal(gather_fused(s, y, all, 1, 1, &err), GS_OK);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < N * F; i++)
            if (d[k][i] != ref_dleaf[k][i] + ref_dleaf[k][i] && fabs(d[k][i] - 2 * ref_dleaf[k][i]) > tol * (1 + fabs(ref_dleaf[k][i])))
                fail_msg("%s: fused leaf %d acc mode", what, k);
}

static matmul_call_t mm_call(const float *a, int64_t c, const float *w, int64_t f)
{
    return (matmul_call_t){.a_vertex = 1, .a = {1, (float *)a, N, c}, .w = w, .f = f};
}

static void check_config_in(int p, int k, int pipe, selective_t sel, int swap, int ndev, multidev_t md, edge_mode_t em,
                            stream_order_t so)
{
    rig_t r;
    stream_knobs_t kn = {pipe, k, sel, swap, md, MP_STREAM, em, so};
    rig_open(&r, ndev, 0, p, &kn, 1);
    static float y[N * F * 5];
    gs_err_t err;
    char what[128];
    snprintf(what, sizeof what, "P=%d k=%d pipe=%d sel=%d swap=%d dev=%d md=%d edges=%d order=%d", p, k, pipe, sel, swap, ndev, md,
             em, so);
    double tol = swap || md == MD_RING ? 1e-5 : 0; /* otherwise the unchunked order, bitwise */
    for (int epoch = 0; epoch < 2; epoch++) { /* epoch 2 uses the swap order */
        r.s.profiling = epoch == 0;
        r.s.have_profile = epoch == 1;
        assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 0, 0, &err), GS_OK);
        assert_near(y, ref_fwd, N * F, tol, what);
        assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 0, 1, &err), GS_OK);
        assert_near(y, ref_bwd, N * F, tol, what);
    }
    int64_t T = g.ntypes;
    assert_int_equal(gather(&r.s, AGG_MEAN, TYPED_IN, x, T * F, y, F, F, 0, 0, &err), GS_OK);
    assert_near(y, ref_tfwd, N * F, tol, what);
    assert_int_equal(gather(&r.s, AGG_MEAN, TYPED_OUT, x, F, y, T * F, F, 0, 1, &err), GS_OK);
    assert_near(y, ref_tbwd, N * T * F, tol, what);
    check_max(&r.s, tol, what);
    check_attn(&r.s, tol, what);
    check_edge_ops(&r.s, tol, what);
    check_fused(&r.s, tol, what);
    /* accumulate mode adds to what is there */
    memcpy(y, ref_fwd, sizeof ref_fwd);
    assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 1, 0, &err), GS_OK);
    for (int i = 0; i < N * F; i++)
        if (fabs(y[i] - 2 * ref_fwd[i]) > 1e-5 * (1 + fabs(ref_fwd[i]))) fail_msg("%s: acc mode", what);
    rig_close(&r);
}

static void check_config(int p, int k, int pipe, selective_t sel, int swap, int ndev, multidev_t md, edge_mode_t em)
{
    check_config_in(p, k, pipe, sel, swap, ndev, md, em, SO_COLUMN);
}

static void test_every_knob_combination_matches_in_memory(void **state)
{
    (void)state;
    int ps[] = {1, 2, 4}, ks[] = {1, 4};
    for (virtual_time = 0; virtual_time < 2; virtual_time++)
        for (int em = EDGE_AUTO; em <= EDGE_STREAM; em++) { /* edge chunks kept (no cap) or streamed */
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 2; b++)
                    for (int pipe = 0; pipe < 2; pipe++)
                        for (int sel = 0; sel < 3; sel++)
                            for (int swap = 0; swap < 2; swap++)
                                check_config(ps[a], ks[b], pipe, (selective_t)sel, swap, 1, MD_NAIVE, (edge_mode_t)em);
            int devs[] = {2, 4};
            for (int a = 0; a < 2; a++)
                for (int md = 0; md < 3; md++)
                    for (int pi = 0; pi < 3; pi++)
                        for (int sel = 0; sel < 2; sel++)
                            check_config(ps[pi], 2, 1, (selective_t)sel, 0, devs[a], (multidev_t)md, (edge_mode_t)em);
        }
    virtual_time = 0;
}

/* The device bytes of a pass of these knobs over P = p intervals: its
 * rows' buffers and its edge-structure buffers (the largest
 * sub-chunk's, from an uncapped rig). */
static uint64_t pass_bytes(const stream_knobs_t *kn, int p)
{
    rig_t r;
    rig_open(&r, 1, 0, p, kn, 0);
    int64_t nout = r.s.fwd.max_nout > r.s.bwd.max_nout ? r.s.fwd.max_nout : r.s.bwd.max_nout;
    int64_t nnz = r.s.fwd.max_nnz > r.s.bwd.max_nnz ? r.s.fwd.max_nnz : r.s.bwd.max_nnz;
    rig_close(&r);
    int nbuf = streamer_block_buffers(kn->pipeline, kn->subchunks);
    return streamer_working_set(N, p, kn->subchunks, F, nbuf) + streamer_edge_need(nout, nnz, nbuf);
}

/* The row order (stream_rowpass.c): the column order's sums, bit for bit,
 * on every device count, with and without pipelining and sub-chunks, the
 * edges kept or streamed. */
static void test_row_order_matches_in_memory(void **state)
{
    (void)state;
    int ps[] = {1, 2, 4}, ks[] = {1, 4}, devs[] = {1, 2, 4};
    for (virtual_time = 0; virtual_time < 2; virtual_time++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 2; b++)
                for (int pipe = 0; pipe < 2; pipe++)
                    for (int dv = 0; dv < 3; dv++)
                        check_config_in(ps[a], ks[b], pipe, SEL_OFF, 0, devs[dv], MD_NAIVE, (edge_mode_t)((a + b) % 2), SO_ROW);
    virtual_time = 0;
}

static void test_device_cap_is_never_exceeded(void **state)
{
    (void)state;
    static float y[N * F];
    gs_err_t err;
    rig_t r;
    for (int k = 2; k <= 4; k += 2) { /* pipelined: a block buffer per sub-chunk of a chunk */
        stream_knobs_t kn = {1, k, SEL_OFF, 0, MD_NAIVE, MP_STREAM, EDGE_AUTO, SO_COLUMN}, plain = kn;
        plain.pipeline = 0;
        uint64_t cap = pass_bytes(&kn, 4);
        if (k > 2) assert_true(cap > pass_bytes(&plain, 4)); /* unpipelined: two */
        rig_open(&r, 2, cap, 4, &kn, 0);
        assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 0, 0, &err), GS_OK);
        assert_near(y, ref_fwd, N * F, 0, "capped");
        backend_stats_t st;
        backend_cpu.stats(r.b, &st);
        for (int d = 0; d < 2; d++) {
            assert_true(st.high_water[d] > 0);
            assert_true(st.high_water[d] <= cap);
        }
        /* the arena refuses what does not fit, and the pass says so */
        void *big = backend_cpu.alloc(r.b, 0, cap + 1);
        assert_null(big);
        rig_close(&r);
        rig_open(&r, 1, cap / 4, 4, &kn, 0);
        assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 0, 0, &err), GS_EINPUT);
        assert_non_null(strstr(err.msg, "too small"));
        rig_close(&r);
    }
}

/* The fused gather's passes, forward and back, within the device bytes
 * streamer_fused_need counts for them (what the chunk count is chosen
 * by), and a quarter of them refused. */
static void test_fused_passes_fit_their_need(void **state)
{
    (void)state;
    stream_knobs_t kn = {1, 2, SEL_AUTO, 0, MD_NAIVE, MP_STREAM, EDGE_AUTO, SO_COLUMN};
    rig_t r;
    rig_open(&r, 1, 0, 4, &kn, 0);
    int64_t nout = r.s.fwd.max_nout > r.s.bwd.max_nout ? r.s.fwd.max_nout : r.s.bwd.max_nout;
    int64_t nnz = r.s.fwd.max_nnz > r.s.bwd.max_nnz ? r.s.fwd.max_nnz : r.s.bwd.max_nnz;
    uint64_t cap = streamer_fused_need(&fexpr, 3, F, (N + 3) / 4, streamer_max_block(&r.s), nnz > nout ? nnz : nout);
    rig_close(&r);
    rig_open(&r, 2, cap, 4, &kn, 0);
    check_fused(&r.s, 0, "fused under its cap");
    backend_stats_t st;
    backend_cpu.stats(r.b, &st);
    for (int d = 0; d < 2; d++) assert_true(st.high_water[d] > 0 && st.high_water[d] <= cap);
    rig_close(&r);
    static float y[N * F];
    gs_err_t err;
    rig_open(&r, 1, cap / 4, 4, &kn, 0);
    assert_int_equal(gather_fused(&r.s, y, NULL, 0, 0, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "too small"));
    rig_close(&r);
}

/* H2D bytes of the vertex rows of a pass (and its uplinks' share): the
 * edge structures' bytes, which every device fetches for its own
 * sub-chunks whatever the multidev mode, left out. */
static double run_bytes(int ndev, multidev_t md, selective_t sel, double *uplinks)
{
    stream_knobs_t kn = {1, 1, sel, 0, md, MP_STREAM, EDGE_STREAM, SO_COLUMN};
    rig_t r;
    rig_open(&r, ndev, 0, 4, &kn, 1);
    static float y[N * F];
    gs_err_t err;
    assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 0, 0, &err), GS_OK);
    backend_stats_t st;
    backend_cpu.stats(r.b, &st);
    double h2d = 0;
    for (int d = 0; d < ndev; d++) h2d += st.bytes[d][LANE_H2D];
    h2d -= r.s.ctr.edge_h2d_bytes;
    if (uplinks) *uplinks = st.link_bytes[0] + st.link_bytes[2] - r.s.ctr.edge_h2d_bytes; /* host>sw0, host>sw1 */
    rig_close(&r);
    return h2d;
}

static void test_selective_and_chain_move_fewer_bytes(void **state)
{
    (void)state;
    double full = run_bytes(1, MD_NAIVE, SEL_OFF, NULL), sel = run_bytes(1, MD_NAIVE, SEL_ON, NULL);
    assert_true(sel < full);
    double up_naive, up_chain;
    run_bytes(4, MD_NAIVE, SEL_OFF, &up_naive);
    run_bytes(4, MD_CHAIN, SEL_OFF, &up_chain);
    assert_true(up_chain > 0);
    assert_true(fabs(up_naive / up_chain - 2.0) < 1e-9); /* each switch's uplink carries a block once, not twice */
    /* chain with selective scheduling: each switch's uplink carries the rows
     * of a block that either of its two columns uses, once */
    int64_t bounds[5];
    order_even_bounds(N, 4, bounds);
    double want = 0;
    for (int grp = 0; grp < 2; grp++)
        for (int t = 0; t < 4; t++) { /* source block t, columns 2 grp and 2 grp + 1 */
            char used[N] = {0};
            for (int64_t u = bounds[2 * grp]; u < bounds[2 * grp + 2]; u++)
                for (int64_t e = g.in_ptr[u]; e < g.in_ptr[u + 1]; e++)
                    if (g.in_src[e] >= bounds[t] && g.in_src[e] < bounds[t + 1]) used[g.in_src[e]] = 1;
            for (int v = 0; v < N; v++) want += used[v] * sizeof(float) * F;
        }
    double up_sel_naive, up_sel_chain;
    run_bytes(4, MD_NAIVE, SEL_ON, &up_sel_naive);
    run_bytes(4, MD_CHAIN, SEL_ON, &up_sel_chain);
    assert_true(up_sel_chain == want);
    assert_true(up_sel_chain < up_sel_naive && up_sel_chain < up_chain);
    /* the ring is one group: a block enters it once, with the rows any column uses */
    double want_ring = 0;
    for (int v = 0; v < N; v++) want_ring += (g.out_ptr[v + 1] > g.out_ptr[v]) * sizeof(float) * F;
    assert_true(run_bytes(4, MD_RING, SEL_ON, NULL) == want_ring);
}

/* The suite's sparse grid: N vertices, 40 edges, so at 8 chunks about
 * one edge chunk in two is empty. */
static void sparse_graph(dataset_t *sds, graph_t *sg)
{
    gs_err_t err;
    tu_random_dataset(sds, N, 40, F, 3, 1, 5);
    assert_int_equal(graph_build(sg, sds, &err), GS_OK);
}

/* On a sparse grid (an edge chunk in two empty) two devices under one
 * switch: the ring loads a block once a round, only when a column of the
 * round reads it, and passes it only to a device that reads it, so it
 * copies what the chain copies, less than every block each round, and no
 * more than naive (before, it loaded every block every round: more than
 * naive on the workbench's Cora at 24 chunks). The sums are the same. */
static void test_ring_streams_only_read_blocks(void **state)
{
    (void)state;
    dataset_t sds;
    graph_t sg;
    gs_err_t err;
    sparse_graph(&sds, &sg);
    static float want[N * F], y[N * F];
    k_gather_sum(&sg, AGG_NORM, x, F, want, 0);
    double h2d[3], d2d[3];
    int empty = 0;
    for (multidev_t md = MD_NAIVE; md <= MD_RING; md++) {
        stream_knobs_t kn = {1, 1, SEL_OFF, 0, md, MP_STREAM, EDGE_STREAM, SO_COLUMN};
        rig_t r;
        rig_open_on(&r, &sg, 2, 0, 8, &kn, 1);
        for (size_t i = 0; i < (size_t)r.s.p * r.s.nblocks; i++) empty += r.s.fwd.sub[i].nnz == 0;
        gather_call_t c = {.g = &sg, .hop = 1, .agg = AGG_NORM, .in = {1, x, N, F}, .out = {2, y, N, F}, .f = F};
        assert_int_equal(streamer_gather(&r.s, &c, &err), GS_OK);
        assert_near(y, want, N * F, 0, "sparse grid");
        backend_stats_t st;
        backend_cpu.stats(r.b, &st);
        h2d[md] = st.bytes[0][LANE_H2D] + st.bytes[1][LANE_H2D] - r.s.ctr.edge_h2d_bytes;
        d2d[md] = st.bytes[0][LANE_D2D] + st.bytes[1][LANE_D2D];
        rig_close(&r);
    }
    assert_true(empty > 0);
    assert_true(h2d[MD_RING] == h2d[MD_CHAIN] && d2d[MD_RING] == d2d[MD_CHAIN]);
    assert_true(h2d[MD_RING] < 4.0 * sizeof(float) * N * F); /* 4 rounds of every block */
    assert_true(h2d[MD_RING] <= h2d[MD_NAIVE]);
    graph_free(&sg);
    dataset_free(&sds);
}

/* A skipped (empty) block takes no buffer slot: on a sparse grid (an edge
 * chunk in two empty) with one sub-chunk a chunk, so the swap has no pair
 * to reorder, a pipelined pass with --swap on (the natural order: the
 * non-empty blocks, then the empty ones) takes what --swap off takes.
 * Before, --swap off streamed in index order with an empty block holding
 * the slot the next block then waited on: the workbench's default epoch
 * was 1.2% faster with --swap off than with a swap that reordered nothing.
 * The chain's steps likewise: a block no column of the round reads takes
 * no slot, so on two devices under one switch the chain takes what the
 * ring takes (NGra's schedule is then the chain's; before, 0.285 against
 * 0.280 ms here, and the workbench's default 19.29 against 18.42 ms). */
static void test_empty_blocks_take_no_slot(void **state)
{
    (void)state;
    dataset_t sds;
    graph_t sg;
    gs_err_t err;
    sparse_graph(&sds, &sg);
    static float y[N * F];
    double span[2];
    virtual_time = 1;
    for (int swap = 0; swap < 2; swap++) {
        stream_knobs_t kn = {1, 1, SEL_OFF, swap, MD_NAIVE, MP_STREAM, EDGE_STREAM, SO_COLUMN};
        rig_t r;
        rig_open_on(&r, &sg, 1, 0, 8, &kn, 1);
        int between = 0; /* empty blocks with a non-empty one after them in their column */
        for (int c = 0; c < r.s.p; c++)
            for (int b = 0; b + 1 < r.s.nblocks; b++)
                between += r.s.fwd.sub[c * r.s.nblocks + b].nnz == 0 && r.s.fwd.sub[c * r.s.nblocks + b + 1].nnz > 0;
        assert_true(between > 0);
        gather_call_t c = {.g = &sg, .hop = 1, .agg = AGG_NORM, .in = {1, x, N, F}, .out = {2, y, N, F}, .f = F};
        r.s.profiling = 1;
        assert_int_equal(streamer_gather(&r.s, &c, &err), GS_OK); /* the profile */
        backend_stats_t st;
        backend_cpu.reset_stats(r.b);
        r.s.profiling = 0, r.s.have_profile = 1;
        assert_int_equal(streamer_gather(&r.s, &c, &err), GS_OK);
        backend_cpu.stats(r.b, &st);
        span[swap] = st.compute_s + st.exposed_s + st.idle_s;
        assert_true(r.s.ctr.swapped_cols == 0);
        rig_close(&r);
    }
    /* the chain's steps the same way: two devices under one switch, where the ring's schedule is the chain's */
    double md_span[3];
    for (multidev_t md = MD_CHAIN; md <= MD_RING; md++) {
        stream_knobs_t kn = {1, 1, SEL_OFF, 0, md, MP_STREAM, EDGE_STREAM, SO_COLUMN};
        rig_t r;
        rig_open_on(&r, &sg, 2, 0, 8, &kn, 1);
        gather_call_t c = {.g = &sg, .hop = 1, .agg = AGG_NORM, .in = {1, x, N, F}, .out = {2, y, N, F}, .f = F};
        assert_int_equal(streamer_gather(&r.s, &c, &err), GS_OK);
        backend_stats_t st;
        backend_cpu.stats(r.b, &st);
        md_span[md] = st.compute_s + st.exposed_s + st.idle_s;
        rig_close(&r);
    }
    virtual_time = 0;
    if (!(span[0] > 0) || fabs(span[1] - span[0]) > 1e-12 * span[0]) fail_msg("swap off %.9g s, on %.9g s", span[0], span[1]);
    if (!(md_span[MD_CHAIN] > 0) || fabs(md_span[MD_CHAIN] - md_span[MD_RING]) > 1e-12 * md_span[MD_RING])
        fail_msg("chain %.9g s, ring %.9g s", md_span[MD_CHAIN], md_span[MD_RING]);
    graph_free(&sg);
    dataset_free(&sds);
}

/* The bytes one pass copies of orientation o's edge structures with AGG_NORM
 * weights, and `lidx` numberings of each edge's input row. */
static double structure_bytes(const orient_t *o, int nsub, int lidx)
{
    double b = 0;
    for (int i = 0; i < nsub; i++)
        if (o->sub[i].nnz) b += 8.0 * (o->sub[i].nout + 1) + 4.0 * o->sub[i].nout + (4.0 * lidx + 4.0) * o->sub[i].nnz;
    return b;
}

static void test_edge_chunks_travel_and_stay(void **state)
{
    (void)state;
    static float y[N * F];
    gs_err_t err;
    rig_t r;
    /* streamed: every pass copies each non-empty sub-chunk's structure, at least 8 bytes an edge */
    stream_knobs_t kn = {1, 2, SEL_OFF, 0, MD_NAIVE, MP_STREAM, EDGE_STREAM, SO_COLUMN};
    rig_open(&r, 1, 0, 4, &kn, 0);
    int nsub = r.s.p * r.s.nblocks;
    double want = structure_bytes(&r.s.fwd, nsub, 1);
    for (int pass = 1; pass <= 2; pass++) {
        assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 0, 0, &err), GS_OK);
        assert_near(y, ref_fwd, N * F, 0, "streamed edge chunks");
        assert_true(r.s.ctr.edge_h2d_bytes == pass * want);
    }
    assert_true(want >= 8.0 * g.m);
    rig_close(&r);
    /* auto with room: copied once (both input-row numberings), then read where they are */
    kn.edge_chunks = EDGE_AUTO;
    rig_open(&r, 1, 0, 4, &kn, 0);
    assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 0, 0, &err), GS_OK);
    assert_true(r.s.ctr.edge_h2d_bytes == structure_bytes(&r.s.fwd, nsub, 2));
    double first = r.s.ctr.edge_h2d_bytes;
    assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 0, 0, &err), GS_OK);
    assert_near(y, ref_fwd, N * F, 0, "kept edge chunks");
    assert_true(r.s.ctr.edge_h2d_bytes == first);
    assert_true(edge_store_held(&r.s.edges) > 0);
    rig_close(&r);
    /* a cap that holds the pass but not the structures: auto streams them, resident says so */
    uint64_t cap = pass_bytes(&kn, 4);
    rig_open(&r, 1, cap, 4, &kn, 0);
    for (int pass = 0; pass < 2; pass++) assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 0, 0, &err), GS_OK);
    assert_near(y, ref_fwd, N * F, 0, "auto under a cap");
    assert_true(r.s.edges.given_up && edge_store_held(&r.s.edges) == 0);
    rig_close(&r);
    kn.edge_chunks = EDGE_RESIDENT;
    rig_open(&r, 1, cap, 4, &kn, 0);
    assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 0, 0, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "--edge-chunks resident: device 0 cannot hold the edge chunks"));
    rig_close(&r);
}

/* Sum of one layer's profiled copy (what 0) or kernel (what 1) seconds over every sub-chunk. */
static double profiled(const streamer_t *s, int layer, int what)
{
    const sub_prof_t *pf = &s->fwd.prof[layer];
    double t = 0;
    for (int i = 0; pf->pass && i < s->p * s->nblocks; i++) t += what ? pf->comp[i] : pf->copy[i];
    return t;
}

/* NeuGraph §3.2's swap reads each sub-chunk's profiled times: each layer
 * keeps its own (a narrower layer's pass does not overwrite a wider one's),
 * a sub-chunk's copies and kernels are summed within its pass, and without
 * the swap no profile is kept. */
static void test_profile_is_per_layer(void **state)
{
    (void)state;
    static float y[N * F];
    gs_err_t err;
    rig_t r;
    stream_knobs_t kn = {1, 2, SEL_OFF, 1, MD_NAIVE, MP_STREAM, EDGE_STREAM, SO_COLUMN}; /* --swap on: profiled */
    virtual_time = 1;
    rig_open(&r, 1, 0, 4, &kn, 1);
    r.s.profiling = 1;
    gather_call_t wide = {.g = r.s.g, .hop = 1, .layer = 0, .agg = AGG_NORM, .in = {1, x, N, F}, .out = {2, y, N, F}, .f = F};
    gather_call_t narrow = wide;
    narrow.layer = 1, narrow.f = 1, narrow.in.cols = narrow.out.cols = 1; /* one float a row */
    assert_int_equal(streamer_gather(&r.s, &wide, &err), GS_OK);
    double copy0 = profiled(&r.s, 0, 0), comp0 = profiled(&r.s, 0, 1);
    assert_true(copy0 > 0 && comp0 > 0 && profiled(&r.s, 1, 0) == 0);
    assert_int_equal(streamer_gather(&r.s, &narrow, &err), GS_OK);
    assert_true(profiled(&r.s, 0, 0) == copy0 && profiled(&r.s, 0, 1) == comp0);
    assert_true(profiled(&r.s, 1, 0) > 0 && profiled(&r.s, 1, 0) < copy0);
    assert_int_equal(streamer_gather(&r.s, &wide, &err), GS_OK); /* the next pass replaces its layer's times, never adds */
    assert_true(fabs(profiled(&r.s, 0, 0) - copy0) <= 1e-9 * copy0);
    rig_close(&r);
    kn.swap = 0; /* nothing reads a profile: none is made */
    rig_open(&r, 1, 0, 4, &kn, 1);
    r.s.profiling = 1;
    assert_int_equal(streamer_gather(&r.s, &wide, &err), GS_OK);
    assert_null(r.s.fwd.prof[0].pass);
    rig_close(&r);
    virtual_time = 0;
}

/* NeuGraph §3.3's selective-scheduling threshold from the aggregate
 * throughputs: devices under one switch share its uplink, two switches
 * give twice the H2D rate; the host's filtering is shared by the devices. */
static void test_selective_threshold_is_aggregate(void **state)
{
    (void)state;
    stream_knobs_t kn = {1, 1, SEL_ON, 0, MD_NAIVE, MP_STREAM, EDGE_STREAM, SO_COLUMN};
    topology_scale(&topo, 1.0 / 50); /* the shipped links: 12 GB/s, below the host's bandwidth */
    double up = topo.links[0].bw, trans[5] = {0}, filter[5] = {0};
    static float y[N * F];
    gs_err_t err;
    virtual_time = 1;
    for (int ndev = 1; ndev <= 4; ndev *= 2) { /* devices 0, 1 share switch 0; 2, 3 switch 1 */
        rig_t r;
        rig_open(&r, ndev, 0, 4, &kn, 1);
        assert_int_equal(streamer_probe(&r.s, &vclk, &err), GS_OK);
        trans[ndev] = r.s.t_trans;
        assert_true(fabs(r.s.theta_threshold - r.s.t_copy / (r.s.t_copy + r.s.t_trans)) < 1e-12);
        assert_int_equal(gather(&r.s, AGG_NORM, TYPED_NONE, x, F, y, F, F, 0, 0, &err), GS_OK);
        backend_stats_t st;
        backend_cpu.stats(r.b, &st);
        for (int d = 0; d < ndev; d++) filter[ndev] += st.filter_s[d];
        rig_close(&r);
    }
    virtual_time = 0;
    topology_scale(&topo, 50.0);
    /* within 1%: the paths' latency */
    assert_true(fabs(trans[1] - up) < 1e-2 * up && fabs(trans[2] - up) < 1e-2 * up && fabs(trans[4] - 2 * up) < 1e-2 * up);
    /* the same rows filtered in all: with four devices each filter has a quarter of the host */
    assert_true(fabs(filter[4] - 4 * filter[1]) < 1e-9 * filter[4] && filter[1] > 0);
}

#define C 5 /* matmul input width; output width F */

static void check_matmul(int ndev, int p, int k, int pipe)
{
    static float w[C * F], dy[N * F], y[N * F], ry[N * F], da[N * C], rda[N * C], dw[C * F], rdw[C * F];
    tu_fill(w, C * F, 5);
    tu_fill(dy, N * F, 6);
    k_gemm(0, 0, N, F, C, x, w, ry, 0);
    k_gemm(0, 1, N, C, F, dy, w, rda, 0);
    k_gemm(1, 0, C, F, N, x, dy, rdw, 0);
    stream_knobs_t kn = {pipe, k, SEL_OFF, 0, MD_RING, MP_STREAM, EDGE_STREAM, SO_COLUMN};
    rig_t r;
    /* without pipelining, the least cap: blocks of rows shrink to fit it */
    uint64_t cap = pipe ? 0 : streamer_matmul_working_set(N, p, k, C, F);
    rig_open(&r, ndev, cap, p, &kn, 1);
    gs_err_t err;
    char what[64];
    snprintf(what, sizeof what, "matmul dev=%d P=%d k=%d pipe=%d", ndev, p, k, pipe);
    matmul_call_t mc = mm_call(x, C, w, F);
    mc.out = (xtensor_t){2, y, N, F};
    if (streamer_matmul(&r.s, &mc, &err)) fail_msg("%s: %s", what, err.msg);
    assert_near(y, ry, N * F, 0, what); /* rows are independent: bitwise */
    mc = mm_call(x, C, w, F);
    mc.dy = (xtensor_t){3, dy, N, F}, mc.da = (xtensor_t){4, da, N, C}, mc.dw = dw;
    if (streamer_matmul_bwd(&r.s, &mc, &err)) fail_msg("%s: %s", what, err.msg);
    assert_near(da, rda, N * C, 0, what);
    assert_near(dw, rdw, C * F, 1e-5, what); /* block sums, then the ring: reassociated */
    /* adding mode: both gradients add to what is there */
    mc.acc_a = mc.acc_w = 1;
    if (streamer_matmul_bwd(&r.s, &mc, &err)) fail_msg("%s: %s", what, err.msg);
    for (int i = 0; i < N * C; i++) rda[i] *= 2;
    for (int i = 0; i < C * F; i++) rdw[i] *= 2;
    assert_near(da, rda, N * C, 1e-6, what);
    assert_near(dw, rdw, C * F, 1e-5, what);
    backend_stats_t st;
    backend_cpu.stats(r.b, &st);
    for (int d = 0; d < ndev && cap; d++) assert_true(st.high_water[d] <= cap);
    if (ndev > 1) assert_true(st.bytes[1][LANE_D2D] > 0); /* the all-reduce ran device to device */
    rig_close(&r);
}

static void test_matmul_and_gradient_allreduce_match_gemm(void **state)
{
    (void)state;
    for (int ndev = 1; ndev <= 4; ndev++)
        for (int pipe = 0; pipe < 2; pipe++) check_matmul(ndev, ndev == 3 ? 2 : 4, 2, pipe);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_knob_combination_matches_in_memory),
        cmocka_unit_test(test_row_order_matches_in_memory),
        cmocka_unit_test(test_device_cap_is_never_exceeded),
        cmocka_unit_test(test_fused_passes_fit_their_need),
        cmocka_unit_test(test_selective_and_chain_move_fewer_bytes),
        cmocka_unit_test(test_ring_streams_only_read_blocks),
        cmocka_unit_test(test_empty_blocks_take_no_slot),
        cmocka_unit_test(test_edge_chunks_travel_and_stay),
        cmocka_unit_test(test_selective_threshold_is_aggregate),
        cmocka_unit_test(test_profile_is_per_layer),
        cmocka_unit_test(test_matmul_and_gradient_allreduce_match_gemm),
    };
    return cmocka_run_group_tests_name("streamer", tests, setup, teardown);
}
