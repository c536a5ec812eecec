/* test_kernels.c - every CPU kernel against a naive loop over the edge
 * list, with weights recomputed from degrees here rather than taken from
 * graph.c; graph construction invariants; and bitwise equality of the
 * threaded kernels across thread counts. */
/* run-under: asan */
#include "test_util.h"

#include <float.h>
#include <math.h>

#include "engine/kernels/dropout_rows.h"
#include "engine/kernels/fast_math_v8.h"
#include "engine/kernels/gemm_skinny.h"
#include "engine/graph/tensor.h"
#include "engine/kernels/train_math.h"
#include "engine/kernels/xent_cpu.h"
#include "engine/kernels/kernels.h"
#include "engine/kernels/kops.h"
#include "base/threadpool.h"

#define N 60
#define PAIRS 300
#define F 7

typedef struct {
    dataset_t d;
    graph_t g;
    float w[3][4096]; /* independent weights per mode, CSC order */
} fixture_t;

static int setup(void **state)
{
    fixture_t *fx = calloc(1, sizeof *fx);
    gs_err_t err;
    tu_random_dataset(&fx->d, N, PAIRS, F, 3, 1, 7);
    assert_int_equal(graph_build(&fx->g, &fx->d, &err), GS_OK);
    assert_true(fx->g.m < 4096);
    int64_t indeg[N] = {0}, outdeg[N] = {0};
    for (int64_t e = 0; e < fx->g.m; e++) indeg[fx->g.in_dst[e]]++, outdeg[fx->g.in_src[e]]++;
    for (int64_t e = 0; e < fx->g.m; e++) {
        int u = fx->g.in_src[e], v = fx->g.in_dst[e];
        fx->w[AGG_ONE][e] = 1.0f;
        fx->w[AGG_NORM][e] = (float)(1.0 / sqrt((double)outdeg[u] * (double)indeg[v]));
        fx->w[AGG_MEAN][e] = (float)(1.0 / (double)indeg[v]);
    }
    gs_pool_init(2);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *fx = *state;
    graph_free(&fx->g);
    dataset_free(&fx->d);
    free(fx);
    return 0;
}

static void assert_close(const float *a, const float *b, int64_t n, double tol)
{
    for (int64_t i = 0; i < n; i++) {
        double scale = 1.0 + fabs(a[i]) + fabs(b[i]);
        if (fabs((double)a[i] - (double)b[i]) > tol * scale)
            fail_msg("element %lld: %.7g vs %.7g", (long long)i, (double)a[i], (double)b[i]);
    }
}

static void test_graph_invariants(void **state)
{
    fixture_t *fx = *state;
    const graph_t *g = &fx->g;
    /* dedupe by hand: set of directed pairs */
    static char seen[N][N];
    memset(seen, 0, sizeof seen);
    int64_t expect = 0;
    for (int64_t i = 0; i < fx->d.npairs; i++) {
        int u = fx->d.pair_src[i], v = fx->d.pair_dst[i];
        if (u == v) continue;
        if (!seen[u][v]) seen[u][v] = 1, expect++;
        if (!seen[v][u]) seen[v][u] = 1, expect++;
    }
    assert_int_equal(g->m, expect + N);
    for (int v = 0; v < N; v++) {
        int self = 0;
        for (int64_t e = g->in_ptr[v]; e < g->in_ptr[v + 1]; e++) {
            assert_int_equal(g->in_dst[e], v);
            if (g->in_src[e] == v) self++, assert_int_equal(g->etype[e], 2 * 2);
            else assert_true(seen[g->in_src[e]][v]);
            if (e > g->in_ptr[v]) assert_true(g->in_src[e] > g->in_src[e - 1]);
        }
        assert_int_equal(self, 1);
    }
    for (int u = 0; u < N; u++)
        for (int64_t k = g->out_ptr[u]; k < g->out_ptr[u + 1]; k++) {
            int64_t e = g->out_eid[k];
            assert_int_equal(g->in_src[e], u);
            assert_int_equal(g->in_dst[e], g->out_dst[k]);
            assert_true(g->out_w_norm[k] == g->w_norm[e]);
        }
    for (int64_t e = 0; e < g->m; e++) {
        assert_true(fabsf(g->w_norm[e] - fx->w[AGG_NORM][e]) < 1e-7f);
        assert_true(fabsf(g->w_mean[e] - fx->w[AGG_MEAN][e]) < 1e-7f);
    }
}

static void test_gemm(void **state)
{
    (void)state;
    float a[6 * 5], b[5 * 4], c[6 * 4], ref[6 * 4];
    tu_fill(a, 30, 1);
    tu_fill(b, 20, 2);
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (int acc = 0; acc < 2; acc++) {
                tu_fill(c, 24, 3);
                memcpy(ref, c, sizeof c);
                /* op(A) is (6,5), op(B) is (5,4) */
                for (int i = 0; i < 6; i++)
                    for (int j = 0; j < 4; j++) {
                        double s = 0;
                        for (int k = 0; k < 5; k++) s += (double)(ta ? a[k * 6 + i] : a[i * 5 + k]) * (tb ? b[j * 5 + k] : b[k * 4 + j]);
                        ref[i * 4 + j] = (float)(acc ? ref[i * 4 + j] + s : s);
                    }
                k_gemm(ta, tb, 6, 4, 5, a, b, c, acc);
                assert_close(c, ref, 24, 1e-5);
            }
}

/* C (m x n) = (acc ? C : 0) + op(A) op(B) in double, the reference. */
static void gemm_reference(int ta, int tb, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c, int acc)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = acc ? c[i * n + j] : 0.0;
            for (int64_t q = 0; q < k; q++) s += (double)(ta ? a[q * m + i] : a[i * k + q]) * (tb ? b[j * k + q] : b[q * n + j]);
            c[i * n + j] = (float)s;
        }
}

/* One shape through k_gemm against the reference, with and without
 * accumulation; returns whether the skinny path took it. */
static int gemm_shape_matches(int ta, int tb, int64_t m, int64_t n, int64_t k)
{
    float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(k * n));
    float *c = gs_aligned_alloc(sizeof(float) * (size_t)(m * n)), *ref = malloc(sizeof(float) * (size_t)(m * n));
    assert_non_null(a), assert_non_null(b), assert_non_null(c), assert_non_null(ref);
    tu_fill(a, m * k, 5), tu_fill(b, k * n, 6);
    int skinny = 0;
    for (int acc = 0; acc < 2; acc++) {
        tu_fill(c, m * n, 7);
        memcpy(ref, c, sizeof(float) * (size_t)(m * n));
        gemm_reference(ta, tb, m, n, k, a, b, ref, acc);
        skinny = k_gemm_skinny(ta, tb, m, n, k, a, b, c, acc);
        if (!skinny) k_gemm(ta, tb, m, n, k, a, b, c, acc);
        assert_close(c, ref, m * n, 1e-4 * sqrt((double)k));
    }
    free(a), free(b), free(c), free(ref);
    return skinny;
}

/* The narrow products (gemm_skinny.h) at each of their shapes, around
 * their tiles and blocks: the last layer forward (NN) and the wide NN in
 * panels (row chunks bitwise the whole product), its input gradient
 * (NT, with the non-temporal stores of an output over 16 MB) and its weight
 * gradient (TN, over several 1024-row blocks, the same bits on one thread
 * and on two). */
static void test_gemm_skinny(void **state)
{
    (void)state;
    for (int64_t n = 8; n <= 32; n += 8) {
        assert_true(gemm_shape_matches(0, 0, 37, n, 50));
        assert_true(gemm_shape_matches(1, 0, n == 16 ? 128 : 13, n, 2500));
    }
    assert_true(gemm_shape_matches(0, 1, 37, 64, 5));
    assert_true(gemm_shape_matches(0, 1, 41, 128, 32));
    assert_true(gemm_shape_matches(0, 1, 32768 + 3, 128, 16)); /* 16 MB of output: streamed stores */
    assert_false(gemm_shape_matches(0, 0, 9, 12, 5));          /* not a narrow shape: OpenBLAS */
    assert_true(gemm_shape_matches(0, 0, 101, 64, 50));        /* wide NN: two 32-column panels */
    assert_true(gemm_shape_matches(0, 0, 53, 128, 128));       /* four, over two 48-row blocks and a tail */
    assert_true(gemm_shape_matches(0, 0, 32768 + 5, 128, 16)); /* 16 MB of output: streamed stores */
    assert_false(gemm_shape_matches(0, 0, 20, 160, 8));        /* wider than the panels go: OpenBLAS */
    assert_false(gemm_shape_matches(0, 0, 20, 64, 600));       /* deeper: OpenBLAS */
    { /* a streamed run's row chunks get the whole product's bits (each row summed over k in order) */
        enum { WM = 301, WN = 128, WK = 96 };
        float *wa = malloc(sizeof(float) * WM * WK), *wb = malloc(sizeof(float) * WK * WN);
        float *w1 = malloc(sizeof(float) * WM * WN), *w2 = malloc(sizeof(float) * WM * WN);
        assert_true(wa && wb && w1 && w2);
        tu_fill(wa, WM * WK, 10), tu_fill(wb, WK * WN, 11);
        k_gemm(0, 0, WM, WN, WK, wa, wb, w1, 0);
        for (int64_t r = 0, len = 1; r < WM; r += len, len = len * 3 % 53 + 1)
            k_gemm(0, 0, r + len <= WM ? len : WM - r, WN, WK, wa + r * WK, wb, w2 + r * WN, 0);
        assert_memory_equal(w1, w2, sizeof(float) * WM * WN);
        free(wa), free(wb), free(w1), free(w2);
    }
    enum { M = 128, NN = 16, K = 3000 };
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * NN), c1[M * NN], c2[M * NN];
    tu_fill(a, M * K, 8), tu_fill(b, K * NN, 9);
    gs_pool_init(1);
    assert_true(k_gemm_skinny(1, 0, M, NN, K, a, b, c1, 0));
    gs_pool_init(2);
    assert_true(k_gemm_skinny(1, 0, M, NN, K, a, b, c2, 0));
    assert_memory_equal(c1, c2, sizeof c1);
    free(a), free(b);
}

static void test_gather_sum_all_modes(void **state)
{
    fixture_t *fx = *state;
    const graph_t *g = &fx->g;
    float x[N * F], y[N * F], ref[N * F], dx[N * F], dref[N * F];
    tu_fill(x, N * F, 11);
    for (int mode = 0; mode < 3; mode++) {
        memset(ref, 0, sizeof ref);
        memset(dref, 0, sizeof dref);
        for (int64_t e = 0; e < g->m; e++)
            for (int j = 0; j < F; j++) {
                ref[g->in_dst[e] * F + j] += fx->w[mode][e] * x[g->in_src[e] * F + j];
                dref[g->in_src[e] * F + j] += fx->w[mode][e] * x[g->in_dst[e] * F + j];
            }
        k_gather_sum(g, (agg_weight_t)mode, x, F, y, 0);
        assert_close(y, ref, N * F, 1e-5);
        k_gather_sum_bwd(g, (agg_weight_t)mode, x, F, dx, 0);
        assert_close(dx, dref, N * F, 1e-5);
        /* accumulate mode adds on top */
        k_gather_sum(g, (agg_weight_t)mode, x, F, y, 1);
        for (int i = 0; i < N * F; i++) ref[i] *= 2;
        assert_close(y, ref, N * F, 1e-5);
    }
}

static void test_gather_max(void **state)
{
    fixture_t *fx = *state;
    const graph_t *g = &fx->g;
    float x[N * F], y[N * F], ref[N * F], dy[N * F], dx[N * F], dref[N * F];
    int32_t am[N * F];
    tu_fill(x, N * F, 12);
    tu_fill(dy, N * F, 13);
    for (int i = 0; i < N * F; i++) ref[i] = -FLT_MAX;
    memset(dref, 0, sizeof dref);
    int best[N * F];
    for (int64_t e = 0; e < g->m; e++)
        for (int j = 0; j < F; j++) {
            int v = g->in_dst[e], u = g->in_src[e];
            if (x[u * F + j] > ref[v * F + j]) ref[v * F + j] = x[u * F + j], best[v * F + j] = u;
        }
    for (int v = 0; v < N; v++)
        for (int j = 0; j < F; j++) dref[best[v * F + j] * F + j] += dy[v * F + j];
    k_gather_max(g, x, F, y, am);
    assert_close(y, ref, N * F, 0);
    k_gather_max_bwd(g, am, dy, F, dx, 0);
    assert_close(dx, dref, N * F, 1e-6);
}

static void test_scatter_and_edge_gather(void **state)
{
    fixture_t *fx = *state;
    const graph_t *g = &fx->g;
    int64_t m = g->m;
    float *x = malloc(sizeof(float) * N * F), *ye = malloc(sizeof(float) * (size_t)m * F);
    float *de = malloc(sizeof(float) * (size_t)m * F), *dref_e = malloc(sizeof(float) * (size_t)m * F);
    float y[N * F], ref[N * F];
    tu_fill(x, N * F, 14);
    k_scatter_src(g, x, F, ye);
    for (int64_t e = 0; e < m; e++) assert_close(ye + e * F, x + g->in_src[e] * F, F, 0);
    k_scatter_dst(g, x, F, ye);
    for (int64_t e = 0; e < m; e++) assert_close(ye + e * F, x + g->in_dst[e] * F, F, 0);
    tu_fill(ye, m * F, 15);
    /* scatter backward: sum edge rows into their source / destination */
    memset(ref, 0, sizeof ref);
    for (int64_t e = 0; e < m; e++)
        for (int j = 0; j < F; j++) ref[g->in_src[e] * F + j] += ye[e * F + j];
    k_scatter_src_bwd(g, ye, F, y, 0);
    assert_close(y, ref, N * F, 1e-5);
    memset(ref, 0, sizeof ref);
    for (int64_t e = 0; e < m; e++)
        for (int j = 0; j < F; j++) ref[g->in_dst[e] * F + j] += ye[e * F + j];
    k_scatter_dst_bwd(g, ye, F, y, 0);
    assert_close(y, ref, N * F, 1e-5);
    for (int mode = 0; mode < 3; mode++) {
        memset(ref, 0, sizeof ref);
        for (int64_t e = 0; e < m; e++)
            for (int j = 0; j < F; j++) ref[g->in_dst[e] * F + j] += fx->w[mode][e] * ye[e * F + j];
        k_gather_edge(g, (agg_weight_t)mode, ye, F, y, 0);
        assert_close(y, ref, N * F, 1e-5);
        for (int64_t e = 0; e < m; e++)
            for (int j = 0; j < F; j++) dref_e[e * F + j] = fx->w[mode][e] * x[g->in_dst[e] * F + j];
        k_gather_edge_bwd(g, (agg_weight_t)mode, x, F, de, 0);
        assert_close(de, dref_e, m * F, 1e-6);
    }
    free(x), free(ye), free(de), free(dref_e);
}

static void test_attention_kernels(void **state)
{
    fixture_t *fx = *state;
    const graph_t *g = &fx->g;
    enum { K = 2, H = 3 };
    int64_t m = g->m;
    float l[N * K], r[N * K], x[N * K * H], y[N * K * H], ref[N * K * H], dy[N * K * H];
    float *s = malloc(sizeof(float) * (size_t)m * K), *a = malloc(sizeof(float) * (size_t)m * K);
    float *da = malloc(sizeof(float) * (size_t)m * K), *ds = malloc(sizeof(float) * (size_t)m * K);
    float *eref = malloc(sizeof(float) * (size_t)m * K);
    tu_fill(l, N * K, 16), tu_fill(r, N * K, 17), tu_fill(x, N * K * H, 18), tu_fill(dy, N * K * H, 19);
    k_edge_uaddv(g, l, r, K, s);
    for (int64_t e = 0; e < m; e++)
        for (int k = 0; k < K; k++) eref[e * K + k] = l[g->in_src[e] * K + k] + r[g->in_dst[e] * K + k];
    assert_close(s, eref, m * K, 0);
    k_edge_softmax(g, s, K, a);
    for (int v = 0; v < N; v++)
        for (int k = 0; k < K; k++) {
            double z = 0;
            for (int64_t e = 0; e < m; e++)
                if (g->in_dst[e] == v) z += exp(s[e * K + k]);
            for (int64_t e = 0; e < m; e++)
                if (g->in_dst[e] == v) eref[e * K + k] = (float)(exp(s[e * K + k]) / z);
        }
    assert_close(a, eref, m * K, 1e-6);
    /* softmax backward: dS = A (dA - sum A dA) per destination */
    tu_fill(da, m * K, 20);
    for (int v = 0; v < N; v++)
        for (int k = 0; k < K; k++) {
            double dot = 0;
            for (int64_t e = 0; e < m; e++)
                if (g->in_dst[e] == v) dot += a[e * K + k] * da[e * K + k];
            for (int64_t e = 0; e < m; e++)
                if (g->in_dst[e] == v) eref[e * K + k] = (float)(a[e * K + k] * (da[e * K + k] - dot));
        }
    k_edge_softmax_bwd(g, a, da, K, ds, 0);
    assert_close(ds, eref, m * K, 1e-5);
    /* attention gather and its two backward halves */
    memset(ref, 0, sizeof ref);
    for (int64_t e = 0; e < m; e++)
        for (int k = 0; k < K; k++)
            for (int h = 0; h < H; h++) ref[(g->in_dst[e] * K + k) * H + h] += a[e * K + k] * x[(g->in_src[e] * K + k) * H + h];
    k_gather_attn(g, x, a, K, H, y);
    assert_close(y, ref, N * K * H, 1e-5);
    memset(ref, 0, sizeof ref);
    for (int64_t e = 0; e < m; e++)
        for (int k = 0; k < K; k++)
            for (int h = 0; h < H; h++) ref[(g->in_src[e] * K + k) * H + h] += a[e * K + k] * dy[(g->in_dst[e] * K + k) * H + h];
    k_gather_attn_bwd(g, a, dy, K, H, y, 0);
    assert_close(y, ref, N * K * H, 1e-5);
    for (int64_t e = 0; e < m; e++)
        for (int k = 0; k < K; k++) {
            double dot = 0;
            for (int h = 0; h < H; h++) dot += dy[(g->in_dst[e] * K + k) * H + h] * x[(g->in_src[e] * K + k) * H + h];
            eref[e * K + k] = (float)dot;
        }
    k_sddmm(g, dy, x, K, H, ds, 0);
    assert_close(ds, eref, m * K, 1e-5);
    free(s), free(a), free(da), free(ds), free(eref);
}

static void test_gather_typed(void **state)
{
    fixture_t *fx = *state;
    const graph_t *g = &fx->g;
    int64_t T = g->ntypes, H = 3;
    assert_int_equal(T, 5); /* explicit types 0,1 -> 0..3, self-loop 4 */
    float *z = malloc(sizeof(float) * (size_t)(N * T * H)), *dz = malloc(sizeof(float) * (size_t)(N * T * H));
    float *dref = calloc((size_t)(N * T * H), sizeof(float));
    float y[N * 3], ref[N * 3], dy[N * 3];
    tu_fill(z, N * T * H, 21), tu_fill(dy, N * H, 22);
    for (int mode = 0; mode < 3; mode++) {
        memset(ref, 0, sizeof ref);
        memset(dref, 0, sizeof(float) * (size_t)(N * T * H));
        for (int64_t e = 0; e < g->m; e++)
            for (int h = 0; h < H; h++) {
                int64_t zi = g->in_src[e] * T * H + g->etype[e] * H + h;
                ref[g->in_dst[e] * H + h] += fx->w[mode][e] * z[zi];
                dref[zi] += fx->w[mode][e] * dy[g->in_dst[e] * H + h];
            }
        k_gather_typed(g, (agg_weight_t)mode, z, H, y, 0);
        assert_close(y, ref, N * H, 1e-5);
        k_gather_typed_bwd(g, (agg_weight_t)mode, dy, H, dz, 0);
        assert_close(dz, dref, N * T * H, 1e-5);
    }
    free(z), free(dz), free(dref);
}

/* A row's dropout, forward and backward (with and without accumulation),
 * at width f from unaligned pointers, against gs_drop_scale element by
 * element, bit for bit (signed zeros included). */
static void check_drop_row(uint64_t rowkey, int64_t f, float p, int stream)
{
    enum { W = 1100 };
    static float a[W + 1], dy[W + 1], da[W + 1], acc[W + 1];
    static _Alignas(64) float y[W + 1];
    float *au = a + 1, *yu = stream ? y : y + 1; /* a streamed row is 32-byte aligned; the others need not be */
    for (int64_t j = 0; j < f; j++) au[j] = (float)(j % 7) - 3.0f, dy[j] = 0.25f * (float)(j % 5) - 0.5f, acc[j] = 1.0f;
    gs_drop_apply(yu, au, rowkey, f, p, stream ? GS_DROP_STREAM : GS_DROP_STORE);
    gs_drop_apply(da, dy, rowkey, f, p, GS_DROP_STORE);
    gs_drop_apply(acc, dy, rowkey, f, p, GS_DROP_ADD);
    for (int64_t j = 0; j < f; j++) {
        float s = gs_drop_scale(rowkey, j, p), want[3] = {au[j] * s, dy[j] * s, 1.0f + dy[j] * s}, got[3] = {yu[j], da[j], acc[j]};
        if (memcmp(want, got, sizeof want))
            fail_msg("p %g, width %lld, element %lld: %g %g %g, want %g %g %g", p, (long long)f, (long long)j, got[0], got[1],
                     got[2], want[0], want[1], want[2]);
    }
    if (stream) GS_STREAM_FENCE();
}

/* The dropout mask drawn a register of lanes at a time (dropout_rows.h) is the
 * per-element mask bit for bit at every width (tails included); the
 * host's dropout op applies it (kept elements scaled by 1/(1-p), about p
 * of them dropped), forward and backward alike. */
static void test_dropout_rows_match_the_mask(void **state)
{
    (void)state;
    const float ps[] = {0.1f, 0.5f, 0.7f};
    for (int k = 0; k < 3; k++)
        for (int64_t f = 1; f <= 1100; f += f < 40 ? 1 : 61) {
            check_drop_row(0x1234 + (uint64_t)k, f, ps[k], 0);
            if (f % 8 == 0) check_drop_row(0x99 + (uint64_t)k, f, ps[k], 1);
        }
    enum { ROWS = 50, COLS = 2500 }; /* a row wider than a piece */
    static float a[ROWS * COLS], y[ROWS * COLS], dy[ROWS * COLS], da[ROWS * COLS];
    int32_t orig[ROWS];
    for (int r = 0; r < ROWS; r++) orig[r] = 7 * r + 3;
    for (int i = 0; i < ROWS * COLS; i++) a[i] = (float)(i % 11) + 1.0f, dy[i] = 2.0f;
    graph_t g = {.n = ROWS, .orig_id = orig};
    ew_args_t c = {.op = OP_DROPOUT, .a = a, .out = y, .dy = dy, .da = da, .rows = ROWS, .cols = COLS, .fp = 0.5f, .g = &g, .key = 99};
    kops_cpu.ew_forward(NULL, &c);
    kops_cpu.ew_backward(NULL, &c);
    int dropped = 0;
    for (int r = 0; r < ROWS; r++)
        for (int j = 0; j < COLS; j++) {
            float s = gs_drop_scale(gs_drop_row_key(99, orig, NULL, NULL, 0, r), j, 0.5f);
            assert_true(y[r * COLS + j] == a[r * COLS + j] * s && da[r * COLS + j] == 2.0f * s);
            dropped += s == 0.0f;
        }
    assert_in_range(dropped, ROWS * COLS * 45 / 100, ROWS * COLS * 55 / 100);
    /* an output over 16 MB, written with non-temporal stores: the same values */
    enum { BIG_ROWS = 1024, BIG_COLS = 4104 };
    float *ba = gs_aligned_alloc(sizeof(float) * BIG_ROWS * BIG_COLS), *by = gs_aligned_alloc(sizeof(float) * BIG_ROWS * BIG_COLS);
    int32_t *big_orig = malloc(sizeof(int32_t) * BIG_ROWS);
    assert_non_null(ba), assert_non_null(by), assert_non_null(big_orig);
    tu_fill(ba, (int64_t)BIG_ROWS * BIG_COLS, 12);
    for (int r = 0; r < BIG_ROWS; r++) big_orig[r] = 3 * r + 1;
    graph_t bg = {.n = BIG_ROWS, .orig_id = big_orig};
    ew_args_t big = {.op = OP_DROPOUT, .a = ba, .out = by, .rows = BIG_ROWS, .cols = BIG_COLS, .fp = 0.3f, .g = &bg, .key = 5};
    kops_cpu.ew_forward(NULL, &big);
    for (int r = 0; r < BIG_ROWS; r++) {
        uint64_t rk = gs_drop_row_key(5, big_orig, NULL, NULL, 0, r);
        for (int j = 0; j < BIG_COLS; j++)
            if (by[(int64_t)r * BIG_COLS + j] != ba[(int64_t)r * BIG_COLS + j] * gs_drop_scale(rk, j, 0.3f))
                fail_msg("streamed dropout differs at row %d, column %d", r, j);
    }
    free(ba), free(by), free(big_orig);
}

/* gs_logf within an ulp of libm's log over the positive normal floats, and
 * the eight-lane exp and log give the scalar functions' bits. */
static void test_fast_math_lanes_match_the_scalars(void **state)
{
    (void)state;
    double worst = 0;
    for (float x = 1.2e-38f; x < 3e38f; x *= 1.0009f) {
        float y = gs_logf(x), ref = (float)log((double)x);
        double ulp = (double)nextafterf(fabsf(ref), INFINITY) - (double)fabsf(ref);
        double err = fabs((double)y - log((double)x)) / ulp;
        worst = err > worst ? err : worst;
        gs_v8f lg, ex, v = GS_V8_BCAST(x);
        GS_LOGF_V8(lg, v);
        GS_EXPF_V8(ex, GS_V8_BCAST(logf(x) / 4));
        float exs = gs_expf(logf(x) / 4);
        float lane_lg = lg[5], lane_ex = ex[2];
        if (memcmp(&lane_lg, &y, sizeof y) || memcmp(&lane_ex, &exs, sizeof exs)) fail_msg("lanes differ at x = %g", (double)x);
    }
    assert_true(worst <= 1.0);
    assert_true(isinf(gs_logf(INFINITY)) && isnan(gs_logf(NAN)) && gs_logf(1.0f) == 0.0f);
}

/* The native width's exponential (its clamps by x86's max and min where
 * the build has them) gives gs_expf's bits at the clamps' edges, at zeros
 * of both signs, infinities and NaN, and over a sweep of the floats. */
static void test_native_exp_matches_the_scalar(void **state)
{
    (void)state;
    const float edge[] = {-87.3f, nextafterf(-87.3f, 0), nextafterf(-87.3f, -100), 88.3f, nextafterf(88.3f, 0),
                          nextafterf(88.3f, 100), 0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, -1e30f, 1e30f, 1e-40f, -1e-40f};
    int n_edge = (int)(sizeof edge / sizeof edge[0]), at = 0;
    float sweep = -200.0f;
    while (at < n_edge || sweep < 200.0f) {
        gs_vnf x, y;
        for (int l = 0; l < GS_VN; l++) x[l] = at < n_edge ? edge[at++] : (sweep += 0.0137f);
        GS_EXPF_VN(y, x);
        for (int l = 0; l < GS_VN; l++) {
            float want = gs_expf(x[l]), got = y[l];
            if (memcmp(&want, &got, sizeof want)) fail_msg("exp(%a): %a, the scalar %a", (double)x[l], (double)got, (double)want);
        }
    }
}

/* The host loss (vector rows on the pool) against train_math.h's row
 * function bit for bit and against a double-precision softmax
 * cross-entropy, at widths around the vector's, with unlabelled and
 * unlisted rows, sorted and unsorted lists, one and two threads; again
 * when told the unlisted rows hold zero already (stale listed rows are
 * overwritten, the others left). */
static void test_loss_rows_match_the_reference(void **state)
{
    (void)state;
    enum { ROWS = 3001 }; /* listed rows in several of the pool's ranges */
    static float z[ROWS * 130], d[ROWS * 130], ref[ROWS * 130];
    int32_t label[ROWS], idx[ROWS];
    const int widths[] = {1, 7, 8, 16, 41, 70, 130}; /* 130: a tile too wide for the stack */
    for (int w = 0; w < 7; w++)
        for (int threads = 1; threads <= 2; threads++)
            for (int sorted = 0; sorted < 2; sorted++) {
                int64_t c = widths[w], n = 0, counted = 0;
                gs_pool_init(threads);
                tu_fill(z, ROWS * c, 31 + w);
                for (int64_t i = 0; i < ROWS * c; i++) z[i] *= 8.0f;
                for (int r = 0; r < ROWS; r++) label[r] = r % 9 == 4 ? -1 : (int32_t)((r * 7) % c);
                for (int r = 0; r < ROWS; r++)
                    if (r % 5 != 2 && r < ROWS - 2) idx[n++] = sorted ? r : (int32_t)((r * 37) % ROWS); /* the last rows unlisted */
                memset(ref, 0, sizeof ref);
                double want = 0, block = 0, exact = 0; /* the terms summed by blocks of listed rows, then the blocks */
                for (int64_t i = 0; i < n; i++) counted += label[idx[i]] >= 0;
                for (int64_t i = 0; i < n; i++) {
                    int64_t v = idx[i];
                    if (i % XENT_SUM_ROWS == 0) want += block, block = 0;
                    if (label[v] < 0) continue;
                    block += gs_xent_row(z + v * c, c, label[v], counted, ref + v * c);
                    double mx = z[v * c], s = 0;
                    for (int64_t j = 0; j < c; j++) mx = z[v * c + j] > mx ? z[v * c + j] : mx;
                    for (int64_t j = 0; j < c; j++) s += exp((double)z[v * c + j] - mx);
                    exact += log(s) + mx - z[v * c + label[v]];
                    for (int64_t j = 0; j < c; j++) {
                        double g = (exp((double)z[v * c + j] - mx) / s - (j == label[v])) / (double)counted;
                        assert_true(fabs(ref[v * c + j] - g) <= 1e-6 * fabs(g) + 1e-9);
                    }
                }
                want += block;
                memset(d, 0x7f, sizeof d); /* every row must be written */
                double got = xent_cpu(z, ROWS, c, label, idx, n, counted, d, 0);
                assert_memory_equal(&got, &(double){want / (double)counted}, sizeof got);
                assert_memory_equal(d, ref, sizeof(float) * ROWS * (size_t)c);
                double eval = xent_cpu(z, ROWS, c, label, idx, n, counted, NULL, 0); /* no gradient: the same loss */
                assert_memory_equal(&eval, &got, sizeof got);
                for (int64_t i = 0; i < n; i++) memset(d + idx[i] * c, 0x7f, sizeof(float) * (size_t)c);
                double again = xent_cpu(z, ROWS, c, label, idx, n, counted, d, 1); /* the unlisted rows left as they are */
                assert_memory_equal(&again, &got, sizeof got);
                assert_memory_equal(d, ref, sizeof(float) * ROWS * (size_t)c);
                assert_true(fabs(got - exact / (double)counted) <= 1e-6 * fabs(exact / (double)counted));
            }
    gs_pool_init(2);
}

static void test_threads_bitwise_equal(void **state)
{
    fixture_t *fx = *state;
    float x[N * F], y1[N * F], y2[N * F];
    tu_fill(x, N * F, 23);
    gs_pool_init(1);
    k_gather_sum(&fx->g, AGG_NORM, x, F, y1, 0);
    gs_pool_init(2);
    k_gather_sum(&fx->g, AGG_NORM, x, F, y2, 0);
    assert_memory_equal(y1, y2, sizeof y1);
    k_gather_sum_bwd(&fx->g, AGG_NORM, x, F, y1, 0);
    gs_pool_init(1);
    k_gather_sum_bwd(&fx->g, AGG_NORM, x, F, y2, 0);
    assert_memory_equal(y1, y2, sizeof y1);
    gs_pool_init(2);
}

/* The pull at the widths with kernels of their own (sums in registers up
 * to 64 wide, in the output row beyond) and between them gives the bits
 * of the plain loop in entry order, fresh and accumulating. */
static void test_pull_widths_bitwise(void **state)
{
    fixture_t *fx = *state;
    const graph_t *g = &fx->g;
    const float *w = k_weights_csc(g, AGG_NORM);
    const int64_t widths[] = {8, 16, 24, 32, 64, 128, 136, 256};
    enum { W = 256 };
    static float x[N * W], y[N * W], ref[N * W];
    tu_fill(x, N * W, 17);
    for (int k = 0; k < 8; k++)
        for (int acc = 0; acc < 2; acc++) {
            int64_t f = widths[k];
            tu_fill(y, N * f, 19);
            memcpy(ref, y, sizeof(float) * (size_t)(N * f));
            for (int64_t v = 0; v < g->n; v++)
                for (int64_t j = 0; j < f; j++) {
                    float sum = acc ? ref[v * f + j] : 0.0f;
                    for (int64_t q = g->in_ptr[v]; q < g->in_ptr[v + 1]; q++) sum += w[q] * x[g->in_src[q] * f + j];
                    ref[v * f + j] = sum;
                }
            k_gather_sum(g, AGG_NORM, x, f, y, acc);
            if (memcmp(y, ref, sizeof(float) * (size_t)(N * f))) fail_msg("the pull at width %lld (acc %d) differs", (long long)f, acc);
        }
}

/* Column sums at the widths with kernels of their own (64 and 128 wide,
 * the sums in registers) give the bits of the general loop over the same
 * columns of a wider tensor, on one thread and two. */
static void test_colsum_widths_bitwise(void **state)
{
    (void)state;
    enum { ROWS = 1000, WIDE = 136 };
    static float wide[ROWS * WIDE], narrow[ROWS * 128];
    float all[WIDE], part[128];
    tu_fill(wide, ROWS * WIDE, 23);
    kops_cpu.colsum(NULL, wide, ROWS, WIDE, all, 0);
    for (int threads = 1; threads <= 2; threads++) {
        gs_pool_init(threads);
        for (int64_t cols = 64; cols <= 128; cols += 64) {
            for (int r = 0; r < ROWS; r++) memcpy(narrow + r * cols, wide + r * WIDE, sizeof(float) * (size_t)cols);
            kops_cpu.colsum(NULL, narrow, ROWS, cols, part, 0);
            if (memcmp(part, all, sizeof(float) * (size_t)cols)) fail_msg("column sums at width %lld differ", (long long)cols);
        }
    }
    gs_pool_init(2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_invariants),   cmocka_unit_test(test_gemm), cmocka_unit_test(test_gemm_skinny),
        cmocka_unit_test(test_gather_sum_all_modes), cmocka_unit_test(test_gather_max),
        cmocka_unit_test(test_scatter_and_edge_gather), cmocka_unit_test(test_attention_kernels),
        cmocka_unit_test(test_gather_typed),       cmocka_unit_test(test_threads_bitwise_equal),
        cmocka_unit_test(test_dropout_rows_match_the_mask), cmocka_unit_test(test_fast_math_lanes_match_the_scalars),
        cmocka_unit_test(test_native_exp_matches_the_scalar),
        cmocka_unit_test(test_loss_rows_match_the_reference), cmocka_unit_test(test_pull_widths_bitwise),
        cmocka_unit_test(test_colsum_widths_bitwise),
    };
    return cmocka_run_group_tests_name("kernels", tests, setup, teardown);
}
