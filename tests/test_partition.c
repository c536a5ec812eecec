/* test_partition.c - vertex orders (none, random, METIS incl. the P = 1
 * case METIS itself crashes on) and the 2D chunk grid: every edge lands in
 * exactly one chunk, in both its CSC and CSR forms, with sources in the
 * row interval and destinations in the column interval. */
#include "test_util.h"

#include "../datasets/generator.h"
#include "../engine/partition.h"

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
        grid_even_bounds(g.n, p, b);
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
    assert_int_equal(partition_order(&g, ORDER_NONE, 4, 1, perm, b, &err), GS_OK);
    for (int v = 0; v < 4000; v++) assert_int_equal(perm[v], v);
    assert_int_equal(partition_order(&g, ORDER_RANDOM, 4, 1, perm, b, &err), GS_OK);
    assert_permutation(perm, 4000);
    assert_int_equal(partition_order(&g, ORDER_RANDOM, 4, 1, perm2, b2, &err), GS_OK);
    assert_memory_equal(perm, perm2, sizeof(int32_t) * 4000);
    int64_t random_cut = cut_edges(&g, perm, b, 4);
    /* METIS with one part must not reach METIS (it raises SIGFPE there) */
    assert_int_equal(partition_order(&g, ORDER_METIS, 1, 1, perm, b, &err), GS_OK);
    assert_int_equal(b[1], 4000);
    assert_int_equal(partition_order(&g, ORDER_METIS, 4, 1, perm, b, &err), GS_OK);
    assert_permutation(perm, 4000);
    assert_int_equal(b[0], 0);
    assert_int_equal(b[4], 4000);
    int64_t metis_cut = cut_edges(&g, perm, b, 4);
    assert_true(metis_cut * 2 < random_cut); /* METIS cuts far fewer edges */
    assert_int_equal(partition_order(&g, ORDER_METIS, 0, 1, perm, b, &err), GS_EINPUT);
    free(perm), free(perm2);
    graph_free(&g);
    dataset_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_covers_every_edge_once),
        cmocka_unit_test(test_orders),
    };
    return cmocka_run_group_tests_name("partition", tests, NULL, NULL);
}
