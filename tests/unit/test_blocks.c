/* test_blocks.c - vertex sets (docs/ARCHITECTURE.md, "Vertex sets"): every
 * model run on the blocks of a few target vertices' L-hop in-neighbourhood
 * computes what the full graph computes for them, forward (dropout on) and
 * backward (parameter gradients of a loss on the targets alone), in plain
 * SAGA-NN form (edge tensors on the blocks) and fused; blocks
 * that lack a needed in-neighbour, or sets that are not nested, are
 * refused with a message. */
#include "test_util.h"

#include <math.h>

#include "engine/graph/blocks.h"
#include "engine/exec/exec.h"
#include "engine/program/fuse.h"
#include "engine/program/models/model.h"

#define NV 300
#define FX 6
#define NT 25

static dataset_t ds;
static graph_t gr;
static int32_t targets[NT];

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < NT; i++) targets[i] = (int32_t)((i * 97 + 13) % NV); /* distinct: 97 is prime to 300 */
    return tu_random_graph(&ds, &gr, NV, 700, FX, 3, 1, 7);
}

static int teardown(void **state)
{
    (void)state;
    tu_random_graph_free(&ds, &gr);
    return 0;
}

static void check_model(const char *name, int fuse)
{
    gs_err_t err;
    program_t prog;
    model_cfg_t mc = {FX, 3, 5, 2, 2, 0.3f};
    if (model_build(&prog, model_find(name), &mc, gr.ntypes, &err)) fail_msg("%s: %s", name, err.msg);
    fuse_report_t fr;
    if (fuse) fuse_rewrite(&prog, 1, &fr);
    params_t ps;
    exec_t full, part;
    assert_int_equal(params_init(&ps, &prog, 3, kplace_host(), &err), GS_OK);
    assert_int_equal(exec_init(&full, &prog, kplace_host(), &ps, 9, &err), GS_OK);
    assert_int_equal(exec_bind_graph(&full, &gr, &err), GS_OK);
    assert_int_equal(exec_init(&part, &prog, kplace_host(), &ps, 9, &err), GS_OK);
    blockset_t bs;
    if (blocks_khop(&gr, part.nhops, targets, NT, &bs, &err)) fail_msg("%s: %s", name, err.msg);
    assert_int_equal(exec_bind(&part, bs.ptr, &err), GS_OK);
    /* the level-0 rows: features of the block's sources */
    tensor_t x = {NV, FX, ds.feat}, xs;
    assert_int_equal(tensor_alloc(&xs, bs.block[1].nsrc, FX, &err), GS_OK);
    for (int64_t r = 0; r < xs.rows; r++) memcpy(xs.data + r * FX, ds.feat + (int64_t)bs.block[1].orig_id[r] * FX, sizeof(float) * FX);
    const tensor_t *yf = exec_forward(&full, &x, 1, 4);
    const tensor_t *yp = exec_forward(&part, &xs, 1, 4);
    assert_int_equal(yp->rows, NT);
    int64_t c = yf->cols;
    for (int i = 0; i < NT; i++)
        for (int64_t j = 0; j < c; j++) {
            float a = yf->data[(int64_t)targets[i] * c + j], b = yp->data[i * c + j];
            if (fabsf(a - b) > 1e-5f * (1 + fabsf(a))) fail_msg("%s: target %d class %lld: blocks %g, graph %g", name, targets[i], (long long)j, b, a);
        }
    /* backward: a loss on the targets alone gives the same parameter gradients */
    tensor_t df, dp;
    assert_int_equal(tensor_alloc(&df, yf->rows, c, &err), GS_OK);
    assert_int_equal(tensor_alloc(&dp, NT, c, &err), GS_OK);
    for (int i = 0; i < NT; i++) {
        tu_fill(dp.data + i * c, c, 100 + (uint64_t)i);
        memcpy(df.data + (int64_t)targets[i] * c, dp.data + i * c, sizeof(float) * (size_t)c);
    }
    params_t gp;
    assert_int_equal(params_init(&gp, &prog, 3, kplace_host(), &err), GS_OK); /* a copy of the full graph's gradients */
    exec_backward(&full, &df);
    for (int k = 0; k < ps.n; k++) memcpy(gp.g[k].data, ps.g[k].data, tensor_bytes(&ps.g[k]));
    exec_backward(&part, &dp);
    for (int k = 0; k < ps.n; k++)
        for (int64_t j = 0; j < tensor_numel(&ps.g[k]); j++) {
            float a = gp.g[k].data[j], b = ps.g[k].data[j];
            if (fabsf(a - b) > 1e-4f * (1 + fabsf(a))) fail_msg("%s: d %s[%lld]: blocks %g, graph %g", name, ps.names[k], (long long)j, b, a);
        }
    tensor_free(&xs), tensor_free(&df), tensor_free(&dp);
    params_free(&gp);
    blocks_free(&bs);
    exec_free(&full), exec_free(&part);
    params_free(&ps);
    prog_free(&prog);
}

static void test_every_model_on_blocks_matches_the_graph(void **state)
{
    (void)state;
    for (const model_def_t *const *m = model_all(); *m; m++) check_model((*m)->name, 0), check_model((*m)->name, 1);
}

static void test_bad_sets_are_refused(void **state)
{
    (void)state;
    gs_err_t err;
    blockset_t bs;
    /* one hop whose sources are only the targets: their other in-neighbours are missing */
    const int32_t *sets[2] = {targets, targets};
    int64_t n[2] = {NT, NT};
    assert_int_equal(blocks_build(&gr, 1, sets, n, NULL, NULL, &bs, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "not among the block's sources"));
    /* destinations that are not a prefix of the sources */
    int32_t rev[NT];
    for (int i = 0; i < NT; i++) rev[i] = targets[NT - 1 - i];
    const int32_t *sets2[2] = {rev, targets};
    assert_int_equal(blocks_build(&gr, 1, sets2, n, NULL, NULL, &bs, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "prefix"));
    /* mirrors appended as extra sources make the block complete */
    assert_int_equal(blocks_khop(&gr, 1, targets, NT, &bs, &err), GS_OK);
    int64_t nmirror = bs.block[1].nsrc - NT;
    int32_t *mirror = malloc(sizeof(int32_t) * (size_t)nmirror);
    for (int64_t i = 0; i < nmirror; i++) mirror[i] = bs.block[1].orig_id[NT + i]; /* the graph is not renumbered */
    blocks_free(&bs);
    const int32_t *extra[1] = {mirror};
    int64_t nextra[1] = {nmirror};
    assert_int_equal(blocks_build(&gr, 1, sets, n, extra, nextra, &bs, &err), GS_OK);
    assert_int_equal(bs.block[1].nsrc, NT + nmirror);
    blocks_free(&bs);
    free(mirror);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_model_on_blocks_matches_the_graph),
        cmocka_unit_test(test_bad_sets_are_refused),
    };
    return cmocka_run_group_tests_name("blocks", tests, setup, teardown);
}
