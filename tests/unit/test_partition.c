/* test_partition.c - vertex orders (none, random, METIS incl. the P = 1
 * case METIS itself crashes on) and the 2D chunk grid: every edge lands in
 * exactly one chunk, in both its CSC and CSR forms, with sources in the
 * row interval and destinations in the column interval. The partitioners
 * (ROC §4): Table 2's features on ROC's own example, equal-edge cuts,
 * the least-squares fit recovering a linear cost exactly, roc cuts
 * whose predicted parts are equal to within one vertex, and a learned
 * model's file: written and read back bit for bit, a bad one refused
 * naming its line and field. */
/* run-under: asan */
#include "test_util.h"

#include "datasets/generator.h"
#include "engine/graph/order.h"
#include "engine/partition/part_model_file.h"
#include "engine/partition/partitioner.h"
#include "engine/stream/chunk_grid.h"

static int interval(const int64_t *b, int p, int64_t v)
{
    for (int i = 0; i < p; i++)
        if (v >= b[i] && v < b[i + 1]) return i;
    return -1;
}

static void check_grid(const graph_t *g, int p, const int64_t *bounds)
{
    chunk_grid_t cg;
    gs_err_t err;
    assert_int_equal(grid_build(&cg, g, p, bounds, &err), GS_OK);
    char *seen_csc = calloc((size_t)g->m, 1), *seen_csr = calloc((size_t)g->m, 1);
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            const chunk_t *ch = &cg.chunk[i * p + j];
            int64_t nd = bounds[j + 1] - bounds[j], ns = bounds[i + 1] - bounds[i], used = 0;
            assert_int_equal(ch->csc_ptr[nd], ch->nnz);
            assert_int_equal(ch->csr_ptr[ns], ch->nnz);
            for (int64_t d = 0; d < nd; d++)
                for (int64_t k = ch->csc_ptr[d]; k < ch->csc_ptr[d + 1]; k++) {
                    int64_t e = ch->csc_eid[k];
                    assert_int_equal(g->in_dst[e], bounds[j] + d);
                    assert_int_equal(g->in_src[e], ch->csc_src[k]);
                    assert_int_equal(interval(bounds, p, ch->csc_src[k]), i);
                    if (k > ch->csc_ptr[d]) assert_true(ch->csc_src[k] > ch->csc_src[k - 1]);
                    assert_false(seen_csc[e]);
                    seen_csc[e] = 1;
                }
            for (int64_t s = 0; s < ns; s++) {
                used += ch->csr_ptr[s + 1] > ch->csr_ptr[s];
                for (int64_t k = ch->csr_ptr[s]; k < ch->csr_ptr[s + 1]; k++) {
                    int64_t e = ch->csr_eid[k];
                    assert_int_equal(g->in_src[e], bounds[i] + s);
                    assert_int_equal(g->in_dst[e], ch->csr_dst[k]);
                    assert_int_equal(interval(bounds, p, ch->csr_dst[k]), j);
                    assert_false(seen_csr[e]);
                    seen_csr[e] = 1;
                }
            }
            assert_int_equal(used, ch->nsrc_used);
        }
    for (int64_t e = 0; e < g->m; e++) assert_true(seen_csc[e] && seen_csr[e]);
    free(seen_csc), free(seen_csr);
    grid_free(&cg);
}

static void test_grid_covers_every_edge_once(void **state)
{
    (void)state;
    dataset_t d;
    graph_t g;
    gs_err_t err;
    tu_random_dataset(&d, 97, 400, 2, 2, 0, 5);
    assert_int_equal(graph_build(&g, &d, &err), GS_OK);
    for (int p = 1; p <= 5; p++) {
        int64_t b[6];
        order_even_bounds(g.n, p, b);
        check_grid(&g, p, b);
    }
    int64_t uneven[4] = {0, 3, 90, 97}; /* METIS-style unequal intervals */
    check_grid(&g, 3, uneven);
    graph_free(&g);
    dataset_free(&d);
}

static int64_t cut_edges(const graph_t *g, const int32_t *perm, const int64_t *bounds, int p)
{
    int32_t *inv = malloc(sizeof(int32_t) * (size_t)g->n);
    for (int64_t k = 0; k < g->n; k++) inv[perm[k]] = (int32_t)k;
    int64_t cut = 0;
    for (int64_t e = 0; e < g->m; e++)
        cut += interval(bounds, p, inv[g->in_src[e]]) != interval(bounds, p, inv[g->in_dst[e]]);
    free(inv);
    return cut;
}

static void assert_permutation(const int32_t *perm, int64_t n)
{
    char *seen = calloc((size_t)n, 1);
    for (int64_t k = 0; k < n; k++) {
        assert_true(perm[k] >= 0 && perm[k] < n);
        assert_false(seen[perm[k]]);
        seen[perm[k]] = 1;
    }
    free(seen);
}

static void test_orders(void **state)
{
    (void)state;
    gen_params_t gp = {.nodes = 4000, .avg_degree = 8, .feats = 2, .classes = 8, .seed = 9};
    dataset_t d;
    graph_t g;
    gs_err_t err;
    assert_int_equal(gen_graph(&d, &gp, &err), GS_OK);
    assert_int_equal(graph_build(&g, &d, &err), GS_OK);
    int32_t *perm = malloc(sizeof(int32_t) * 4000), *perm2 = malloc(sizeof(int32_t) * 4000);
    int64_t b[9], b2[9];
    assert_int_equal(order_vertices(&g, ORDER_NONE, 4, 1, perm, b, &err), GS_OK);
    for (int v = 0; v < 4000; v++) assert_int_equal(perm[v], v);
    assert_int_equal(order_vertices(&g, ORDER_RANDOM, 4, 1, perm, b, &err), GS_OK);
    assert_permutation(perm, 4000);
    assert_int_equal(order_vertices(&g, ORDER_RANDOM, 4, 1, perm2, b2, &err), GS_OK);
    assert_memory_equal(perm, perm2, sizeof(int32_t) * 4000);
    int64_t random_cut = cut_edges(&g, perm, b, 4);
    /* METIS with one part must not reach METIS (it raises SIGFPE there) */
    assert_int_equal(order_vertices(&g, ORDER_METIS, 1, 1, perm, b, &err), GS_OK);
    assert_int_equal(b[1], 4000);
    assert_int_equal(order_vertices(&g, ORDER_METIS, 4, 1, perm, b, &err), GS_OK);
    assert_permutation(perm, 4000);
    assert_int_equal(b[0], 0);
    assert_int_equal(b[4], 4000);
    int64_t metis_cut = cut_edges(&g, perm, b, 4);
    assert_true(metis_cut * 2 < random_cut); /* METIS cuts far fewer edges */
    assert_int_equal(order_vertices(&g, ORDER_METIS, 0, 1, perm, b, &err), GS_EINPUT);
    free(perm), free(perm2);
    graph_free(&g);
    dataset_free(&d);
}

/* A graph given by its in-lists (CSC), enough for the partitioner. */
static graph_t csc_graph(int64_t n, int64_t *ptr, int32_t *src)
{
    graph_t g;
    memset(&g, 0, sizeof g);
    g.n = g.nsrc = n, g.m = ptr[n], g.in_ptr = ptr, g.in_src = src;
    return g;
}

static roc_model_t one_layer_model(int64_t d_in)
{
    roc_model_t m;
    memset(&m, 0, sizeof m);
    m.nlayers = 1, m.d_in[0] = d_in, m.w[0][0] = 1;
    return m;
}

static void test_roc_features(void **state)
{
    (void)state;
    /* ROC's example: v1's neighbours {3, 4, 6, 8} form 3 runs; v0 has 40
     * consecutive neighbours (2 warps); v2 none */
    int64_t ptr[4] = {0, 40, 44, 44};
    int32_t src[44];
    for (int i = 0; i < 40; i++) src[i] = 10 + i;
    src[40] = 3, src[41] = 4, src[42] = 6, src[43] = 8;
    graph_t g = csc_graph(3, ptr, src);
    roc_model_t m = one_layer_model(64);
    roc_features_t f;
    gs_err_t err;
    assert_int_equal(roc_features_build(&f, &g, &m, &err), GS_OK);
    double want[3][5] = {{1, 40, 1, 2, 80}, {1, 4, 3, 3, 4 + 2 + 2}, {1, 0, 0, 0, 0}}; /* x5: ceil(40*64/32) = 80 */
    for (int v = 0; v < 3; v++) {
        for (int i = 0; i < 4; i++) assert_float_equal(f.pre[i][v + 1] - f.pre[i][v], want[v][i], 0);
        assert_float_equal(f.pre5[0][v + 1] - f.pre5[0][v], want[v][4], 0);
    }
    roc_features_free(&f);
    roc_model_free(&m);
}

static void test_equal_edge_split(void **state)
{
    (void)state;
    /* vertex 0 has 60 in-edges, the other 9 have 5 each: 105 in all */
    int64_t ptr[11];
    int32_t src[105];
    ptr[0] = 0, ptr[1] = 60;
    for (int v = 1; v < 10; v++) ptr[v + 1] = ptr[v] + 5;
    for (int e = 0; e < 105; e++) src[e] = e % 10;
    graph_t g = csc_graph(10, ptr, src);
    int64_t b[4];
    gs_err_t err;
    assert_int_equal(partition_split(PART_EQUAL_EDGE, &g, NULL, NULL, 3, b, &err), GS_OK);
    /* cuts nearest 35 and 70 edges: after vertex 0 (60), after vertex 2 (70) */
    assert_int_equal(b[0], 0);
    assert_int_equal(b[1], 1);
    assert_int_equal(b[2], 3);
    assert_int_equal(b[3], 10);
    assert_int_equal(partition_split(PART_EQUAL_VERTEX, &g, NULL, NULL, 3, b, &err), GS_OK);
    assert_true(b[1] == 3 || b[1] == 4);
    assert_int_equal(partition_split(PART_EQUAL_EDGE, &g, NULL, NULL, 11, b, &err), GS_EINPUT);
    /* every part keeps a vertex even when one vertex holds most edges */
    int64_t b9[10];
    assert_int_equal(partition_split(PART_EQUAL_EDGE, &g, NULL, NULL, 9, b9, &err), GS_OK);
    for (int k = 0; k < 9; k++) assert_true(b9[k + 1] > b9[k]);
}

static void test_roc_fit_and_split(void **state)
{
    (void)state;
    gen_params_t gp = {.nodes = 3000, .avg_degree = 12, .feats = 2, .classes = 4, .seed = 5, .hubs = GEN_HUBS_FIRST};
    dataset_t d;
    graph_t g;
    gs_err_t err;
    assert_int_equal(gen_graph(&d, &gp, &err), GS_OK);
    assert_int_equal(graph_build(&g, &d, &err), GS_OK);
    roc_model_t m = one_layer_model(16);
    roc_features_t f;
    assert_int_equal(roc_features_build(&f, &g, &m, &err), GS_OK);
    /* a machine whose part time is 2 us a vertex plus 0.1 us a neighbour */
    double truth[5] = {2e-6, 1e-7, 0, 0, 0};
    m.w[0][0] = 0;
    int64_t b[5];
    for (int round = 0; round < 3; round++) { /* three splits measured, as three epochs would */
        int64_t cuts[3][5] = {{0, 750, 1500, 2250, 3000}, {0, 100, 900, 2000, 3000}, {0, 40, 300, 1200, 3000}};
        for (int j = 0; j < 4; j++) {
            double x[5], y = 0;
            for (int i = 0; i < 4; i++) x[i] = f.pre[i][cuts[round][j + 1]] - f.pre[i][cuts[round][j]];
            for (int i = 0; i < 4; i++) y += truth[i] * x[i];
            assert_int_equal(roc_model_add(&m, &f, 0, cuts[round][j], cuts[round][j + 1], y), 0);
        }
    }
    roc_model_fit(&m);
    for (int64_t lo = 0; lo < 3000; lo += 500) {
        double want = truth[0] * (f.pre[0][lo + 500] - f.pre[0][lo]) + truth[1] * (f.pre[1][lo + 500] - f.pre[1][lo]);
        assert_float_equal(roc_predict(&m, &f, lo, lo + 500), want, 1e-3 * want);
    }
    for (int i = 0; i < 5; i++) assert_true(m.w[0][i] >= 0);
    assert_int_equal(partition_split(PART_ROC, &g, &m, &f, 4, b, &err), GS_OK);
    /* the predicted parts are equal to within the heaviest vertex */
    double part[4], heaviest = 0;
    for (int j = 0; j < 4; j++) part[j] = roc_predict(&m, &f, b[j], b[j + 1]);
    for (int64_t v = 0; v < 3000; v++) {
        double c = roc_predict(&m, &f, v, v + 1);
        heaviest = c > heaviest ? c : heaviest;
    }
    for (int j = 1; j < 4; j++) assert_true(fabs(part[j] - part[0]) <= 2 * heaviest);
    assert_true(b[1] < 750); /* hubs first: the first part is narrower than equal-vertex's */
    roc_features_free(&f);
    roc_model_free(&m);
    graph_free(&g);
    dataset_free(&d);
}

/* Writes path with text; returns path. */
static const char *put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_model_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/gs-partmodel-XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.model", dir);
    gs_err_t err;
    roc_model_t m = one_layer_model(16), back = one_layer_model(16);
    m.nlayers = back.nlayers = 2, m.d_in[1] = back.d_in[1] = 8;
    double w[2][ROC_NFEAT] = {{3.3e-8, 5.9e-10, 0, 1.0 / 3, 1.49e-10}, {2.36e-8, 1.8e-10, 0, 0, 7e-12}};
    memcpy(m.w, w, sizeof w);
    assert_int_equal(part_model_write(&m, path, &err), GS_OK);
    assert_int_equal(part_model_read(&back, path, &err), GS_OK);
    assert_true(back.fitted);
    assert_memory_equal(back.w, w, sizeof w); /* %.17g: every bit back */
    roc_model_t three = one_layer_model(16);
    three.nlayers = 3;
    assert_int_equal(part_model_read(&three, path, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "m.model:2: layers: the model was learned for 2 layers, this run's program has 3"));
    const char *cases[][2] = {
        {"not a model\n", ":1: header:"},
        {"gnnscope-partition-model 1\nlayers two\n", ":2: layers:"},
        {"gnnscope-partition-model 1\nlayers 2\nlayer 0 d_in 16 w 1 2 3 4 5\nlayer 1 d_in 8 w 1 2 -3 4 5\n", ":4: w:"},
        {"gnnscope-partition-model 1\nlayers 2\nlayer 1 d_in 16 w 1 2 3 4 5\n", ":3: layer:"},
        {"gnnscope-partition-model 1\nlayers 2\nlayer 0 d_in 1.5 w 1 2 3 4 5\n", ":3: d_in:"},
        {"gnnscope-partition-model 1\nlayers 2\nlayer 0 d_in 16 w 1 2 3 4 5\n", ":3: layer: fewer layers"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        roc_model_t t = one_layer_model(16);
        t.nlayers = 2;
        assert_int_equal(part_model_read(&t, put(path, cases[i][0]), &err), GS_EINPUT);
        if (!strstr(err.msg, cases[i][1])) fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i][1]);
    }
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_covers_every_edge_once),
        cmocka_unit_test(test_orders),
        cmocka_unit_test(test_roc_features),
        cmocka_unit_test(test_equal_edge_split),
        cmocka_unit_test(test_roc_fit_and_split),
        cmocka_unit_test(test_model_file),
    };
    return cmocka_run_group_tests_name("partition", tests, NULL, NULL);
}
