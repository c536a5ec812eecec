/* test_sampler.c - neighbour sampling (engine/sample/sampler.c) on a random graph:
 * every destination keeps min(degree, fanout) distinct in-edges of the
 * graph, each weighted degree/kept times its full-graph weight; the sets
 * are nested and the blocks' local rows name the sampled edges' ends; a
 * batch reproduces from its key and changes with the epoch; over many
 * epochs each in-neighbour of a high-degree vertex is drawn fanout/degree
 * of the time (uniform without replacement); the lookup copies the set's
 * feature rows and the targets' labels; the shuffle is a permutation. */
#include "test_util.h"

#include <math.h>

#include "engine/sample/sampler.h"

#define NV 400
#define FX 5
#define NT 30

static dataset_t ds;
static graph_t gr;
static int32_t targets[NT];

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < NT; i++) targets[i] = (int32_t)((i * 131 + 7) % NV); /* distinct: 131 is prime to 400 */
    return tu_random_graph(&ds, &gr, NV, 3000, FX, 3, 0, 11);
}

static int teardown(void **state)
{
    (void)state;
    tu_random_graph_free(&ds, &gr);
    return 0;
}

static int64_t degree(int32_t v) { return gr.in_ptr[v + 1] - gr.in_ptr[v]; }

/* Whether u -> v is an edge of the graph; its edge id in *e. */
static int edge_of(int32_t u, int32_t v, int64_t *e)
{
    for (int64_t k = gr.in_ptr[v]; k < gr.in_ptr[v + 1]; k++)
        if (gr.in_src[k] == u) return *e = k, 1;
    return 0;
}

static void test_blocks_keep_fanout_edges(void **state)
{
    (void)state;
    gs_err_t err;
    sampler_t s;
    batch_t b = {0};
    int fanout[2] = {4, 3};
    assert_int_equal(sampler_init(&s, &gr, &err), GS_OK);
    assert_int_equal(sampler_sample(&s, targets, NT, 2, fanout, 5, 0, 0, &b, &err), GS_OK);
    assert_int_equal(b.nhops, 2);
    assert_int_equal(b.nset[2], NT);
    for (int h = 2; h >= 1; h--) {
        const graph_t *blk = &b.bs.block[h];
        int k = fanout[2 - h]; /* the first value is the targets' hop */
        assert_int_equal(blk->n, b.nset[h]);
        assert_int_equal(blk->nsrc, b.nset[h - 1]);
        for (int64_t r = 0; r < b.nset[h]; r++) assert_int_equal(b.set[h - 1][r], b.set[h][r]); /* nested */
        int64_t kept = 0;
        for (int64_t d = 0; d < blk->n; d++) {
            int32_t v = b.set[h][d];
            int64_t want = degree(v) < k ? degree(v) : k, got = blk->in_ptr[d + 1] - blk->in_ptr[d];
            assert_int_equal(got, want);
            for (int64_t j = blk->in_ptr[d]; j < blk->in_ptr[d + 1]; j++) {
                int32_t u = b.set[h - 1][blk->in_src[j]];
                int64_t e = -1;
                assert_true(edge_of(u, v, &e));
                for (int64_t j2 = blk->in_ptr[d]; j2 < j; j2++) assert_int_not_equal(blk->in_src[j2], blk->in_src[j]);
                float scale = (float)degree(v) / (float)got;
                assert_true(fabsf(blk->w_mean[j] - gr.w_mean[e] * scale) <= 1e-6f * fabsf(gr.w_mean[e] * scale));
                assert_true(fabsf(blk->w_norm[j] - gr.w_norm[e] * scale) <= 1e-6f * fabsf(gr.w_norm[e] * scale));
            }
            kept += got;
        }
        assert_int_equal(blk->m, kept);
        assert_int_equal(b.work[h].kept, kept);
        assert_int_equal(b.work[h].dst, b.nset[h]);
        assert_int_equal(b.work[h].added, b.nset[h - 1] - b.nset[h]);
    }
    batch_free(&b);
    sampler_free(&s);
}

/* Same key, same batch; another epoch, another sample. */
static void test_counter_keyed(void **state)
{
    (void)state;
    gs_err_t err;
    sampler_t s;
    batch_t a = {0}, b = {0}, c = {0};
    int fanout[2] = {3, 3};
    assert_int_equal(sampler_init(&s, &gr, &err), GS_OK);
    assert_int_equal(sampler_sample(&s, targets, NT, 2, fanout, 9, 4, 2, &a, &err), GS_OK);
    assert_int_equal(sampler_sample(&s, targets, NT, 2, fanout, 9, 5, 2, &c, &err), GS_OK);
    assert_int_equal(sampler_sample(&s, targets, NT, 2, fanout, 9, 4, 2, &b, &err), GS_OK);
    assert_int_equal(a.nset[0], b.nset[0]);
    assert_memory_equal(a.set[0], b.set[0], sizeof(int32_t) * (size_t)a.nset[0]);
    assert_int_equal(a.bs.block[1].m, b.bs.block[1].m);
    assert_memory_equal(a.bs.block[1].in_src, b.bs.block[1].in_src, sizeof(int32_t) * (size_t)a.bs.block[1].m);
    int differs = a.nset[0] != c.nset[0] || memcmp(a.set[0], c.set[0], sizeof(int32_t) * (size_t)a.nset[0]) != 0;
    assert_true(differs);
    batch_free(&a), batch_free(&b), batch_free(&c);
    sampler_free(&s);
}

/* Over 2000 epochs, each in-neighbour of the highest-degree target is kept
 * k/deg of the time, within 5 standard deviations of the binomial. */
static void test_uniform_without_replacement(void **state)
{
    (void)state;
    gs_err_t err;
    int32_t v = targets[0];
    for (int i = 1; i < NT; i++) v = degree(targets[i]) > degree(v) ? targets[i] : v;
    int64_t deg = degree(v);
    assert_true(deg >= 10);
    int k = 4, epochs = 2000;
    int64_t *hits = calloc((size_t)deg, sizeof(int64_t));
    sampler_t s;
    batch_t b = {0};
    assert_int_equal(sampler_init(&s, &gr, &err), GS_OK);
    for (int ep = 0; ep < epochs; ep++) {
        assert_int_equal(sampler_sample(&s, &v, 1, 1, &k, 3, ep, 0, &b, &err), GS_OK);
        const graph_t *blk = &b.bs.block[1];
        assert_int_equal(blk->m, k);
        for (int64_t j = 0; j < blk->m; j++) {
            int64_t e = -1;
            assert_true(edge_of(b.set[0][blk->in_src[j]], v, &e));
            hits[e - gr.in_ptr[v]]++;
        }
    }
    double p = (double)k / (double)deg, sd = sqrt(epochs * p * (1 - p));
    for (int64_t i = 0; i < deg; i++)
        if (fabs((double)hits[i] - epochs * p) > 5 * sd)
            fail_msg("neighbour %lld of %lld kept %lld times of %d (expected %.0f)", (long long)i, (long long)deg,
                     (long long)hits[i], epochs, epochs * p);
    free(hits);
    batch_free(&b);
    sampler_free(&s);
}

static void test_lookup_and_shuffle(void **state)
{
    (void)state;
    gs_err_t err;
    sampler_t s;
    batch_t b = {0};
    int fanout[1] = {5};
    tensor_t x = {NV, FX, ds.feat};
    assert_int_equal(sampler_init(&s, &gr, &err), GS_OK);
    assert_int_equal(sampler_sample(&s, targets, NT, 2, fanout, 1, 0, 0, &b, &err), GS_OK); /* one value: every hop */
    assert_int_equal(sampler_lookup(&b, &x, ds.label, &err), GS_OK);
    assert_int_equal(b.x.rows, b.nset[0]);
    for (int64_t r = 0; r < b.nset[0]; r++) assert_memory_equal(b.x.data + r * FX, ds.feat + (int64_t)b.set[0][r] * FX, sizeof(float) * FX);
    int64_t labelled = 0;
    for (int i = 0; i < NT; i++) {
        assert_int_equal(b.label[i], ds.label[targets[i]]);
        assert_int_equal(b.rows[i], i);
        labelled += ds.label[targets[i]] >= 0;
    }
    assert_int_equal(b.labelled, labelled);
    int32_t out[NT], again[NT], seen[NV] = {0};
    sampler_shuffle(targets, NT, 7, 3, out);
    sampler_shuffle(targets, NT, 7, 3, again);
    assert_memory_equal(out, again, sizeof out);
    for (int i = 0; i < NT; i++) seen[out[i]]++;
    for (int i = 0; i < NT; i++) assert_int_equal(seen[targets[i]], 1);
    batch_free(&b);
    sampler_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks_keep_fanout_edges),
        cmocka_unit_test(test_counter_keyed),
        cmocka_unit_test(test_uniform_without_replacement),
        cmocka_unit_test(test_lookup_and_shuffle),
    };
    return cmocka_run_group_tests_name("sampler", tests, setup, teardown);
}
