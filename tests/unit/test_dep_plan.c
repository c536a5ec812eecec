/* test_dep_plan.c - NeutronStar's dependency split (engine/dist/dep_plan.h):
 * Algorithm 4 on a path graph against costs worked out by hand (eq. 1-2),
 * both outcomes; on a random graph over 3 ranks, every mode and ratio
 * gives valid nested sets (blocks_build accepts them), DepComm replicates
 * nothing and communicates every remote dependency at every hop, DepCache
 * the reverse with the L-hop neighbourhood, ratios 0 and 1 are those two,
 * Hybrid caches all of layer 1 (t_r = 0), the memory limit holds; and a
 * model run on each rank's blocks, its mirror rows filled with the owners'
 * values, computes for the owned vertices what the whole graph computes. */
#include "test_util.h"

#include <math.h>

#include "engine/graph/blocks.h"
#include "engine/dist/dep_plan.h"
#include "engine/exec/exec.h"
#include "engine/program/fuse.h"
#include "engine/program/models/model.h"

#define NV 300
#define FX 6

static dataset_t ds;
static graph_t gr;

static int setup(void **state)
{
    (void)state;
    return tu_random_graph(&ds, &gr, NV, 500, FX, 3, 0, 11);
}

static int teardown(void **state)
{
    (void)state;
    tu_random_graph_free(&ds, &gr);
    return 0;
}

static dep_params_t params(int nranks, int rank, const int64_t *bounds, int L, dep_mode_t mode, double ratio)
{
    dep_params_t p = {.nranks = nranks, .rank = rank, .bounds = bounds, .nhops = L, .mode = mode, .ratio = ratio,
                      .te = 2e-9, .tc = 4e-9};
    for (int k = 0; k <= L; k++) {
        p.width[k] = 8, p.dim[k] = k == 0 ? FX : 8, p.vcost[k] = p.vback[k] = k == 0 ? 0 : 8e-9;
        p.wgrad[k] = k >= 2 ? 8 : 0; /* hop 1 reads the raw features: no gradient flows back into them */
    }
    return p;
}

static void test_algorithm_4_by_hand(void **state)
{
    (void)state;
    dataset_t path;
    memset(&path, 0, sizeof path);
    int32_t src[5] = {0, 1, 2, 3, 4}, dst[5] = {1, 2, 3, 4, 5};
    path.n = 6, path.f = 1, path.c = 2, path.npairs = 5, path.pair_src = src, path.pair_dst = dst;
    graph_t g;
    gs_err_t err;
    assert_int_equal(graph_build(&g, &path, &err), GS_OK);
    int64_t bounds[3] = {0, 3, 6};
    dep_params_t p = params(2, 0, bounds, 2, DEP_HYBRID, -1);
    p.vcost[1] = p.vback[1] = 10e-9, p.width[1] = 10, p.width[2] = p.wgrad[2] = 10;
    /* D = {3}. A pass of t_r^2(3) = c(1) + indeg(3) T_e w(1) = 10 ns + 3 * 2 ns * 10 = 70 ns; over a training
     * step and an evaluation the forward runs twice and only level 1's vertex ops run backward (the hop-1
     * gather's input, the features, takes no gradient): 2 * 70 + 10 = 150 ns. t_c^2 = T_c (2 w(2) + w(2)) = 30 T_c. */
    p.tc = 7.5e-9; /* t_c^2 = 225 ns: caching is cheaper */
    dep_plan_t plan;
    assert_int_equal(dep_plan(&g, &p, &plan, &err), GS_OK);
    assert_int_equal(plan.nremote, 1);
    assert_int_equal(plan.ncached[1], 1); /* t_r^1 = 0 */
    assert_int_equal(plan.ncached[2], 1);
    assert_true(fabs(plan.t_r[2] - 150e-9) < 1e-15);
    assert_int_equal(plan.nset[2], 3);
    assert_int_equal(plan.nset[1], 4); /* vertex 3 computed at level 1 */
    assert_int_equal(plan.set[1][3], 3);
    assert_int_equal(plan.nset[0], 5); /* and its in-neighbours 3, 4 at level 0 */
    assert_int_equal(plan.nextra[0] + plan.nextra[1], 0);
    /* the replicated rows' compute by level (what --overlap runs beside the messages): vertex 3 at level 1, a pass */
    assert_true(fabs(plan.rep_level[1] - 70e-9) < 1e-15);
    assert_true(plan.rep_level[0] == 0 && plan.rep_level[2] == 0 && plan.rep_cost == plan.rep_level[1]);
    dep_plan_free(&plan);
    p.tc = 6.5e-9; /* t_c^2 = 195 ns: still caching, where a per-pass rule (70 ns against 65) would communicate */
    assert_int_equal(dep_plan(&g, &p, &plan, &err), GS_OK);
    assert_int_equal(plan.ncached[2], 1);
    dep_plan_free(&plan);
    p.tc = 4.5e-9; /* t_c^2 = 135 ns: communicating is cheaper at hop 2 */
    assert_int_equal(dep_plan(&g, &p, &plan, &err), GS_OK);
    assert_int_equal(plan.ncached[2], 0);
    assert_int_equal(plan.ncomm[2], 1);
    assert_int_equal(plan.nextra[1], 1);
    assert_int_equal(plan.extra[1][0], 3);
    assert_int_equal(plan.nset[1], 3);
    assert_int_equal(plan.nset[0], 4); /* vertex 3's features, for hop 1 */
    assert_true(fabs(plan.t_c[2] - 45e-9) < 1e-15); /* a pass's */
    /* the plan's epoch, by hand (in-degrees 2, 3, 3 with self-loops): level 2's rows 2 (8 + 20 d) + 8 + 20 d each,
     * 144 + 204 + 204; level 1's 2 (10 + 20 d) + 10 each, 110 + 150 + 150; the features nothing; the message 135 */
    assert_true(fabs(dep_plan_cost(&plan) - 1097e-9) < 1e-15);
    assert_true(plan.rep_level[1] == 0 && plan.rep_cost == 0);
    dep_plan_free(&plan);
    graph_free(&g);
}

/* Every rank's plan makes valid blocks; returns them in bs[rank]. */
static void plan_all(int nranks, const int64_t *bounds, int L, dep_mode_t mode, double ratio, double mem, dep_plan_t *plan,
                     blockset_t *bs)
{
    gs_err_t err;
    for (int r = 0; r < nranks; r++) {
        dep_params_t p = params(nranks, r, bounds, L, mode, ratio);
        p.mem_limit = mem;
        if (dep_plan(&gr, &p, &plan[r], &err)) fail_msg("%s", err.msg);
        const int32_t *set[DEP_MAX_HOPS + 1], *extra[DEP_MAX_HOPS + 1];
        for (int k = 0; k <= L; k++) set[k] = plan[r].set[k], extra[k] = plan[r].extra[k];
        if (blocks_build(&gr, L, set, plan[r].nset, extra, plan[r].nextra, &bs[r], &err))
            fail_msg("mode %d ratio %g rank %d: %s", mode, ratio, r, err.msg);
        for (int k = 0; k < L; k++) assert_true(plan[r].nset[k] >= plan[r].nset[k + 1]);
    }
}

static void free_all(int nranks, dep_plan_t *plan, blockset_t *bs)
{
    for (int r = 0; r < nranks; r++) dep_plan_free(&plan[r]), blocks_free(&bs[r]);
}

static void test_modes_and_ratios(void **state)
{
    (void)state;
    enum { R = 3, L = 2 };
    int64_t bounds[R + 1] = {0, 100, 200, NV};
    dep_plan_t comm[R], cache[R], plan[R];
    blockset_t bc[R], bk[R], bs[R];
    plan_all(R, bounds, L, DEP_COMM, -1, 0, comm, bc);
    plan_all(R, bounds, L, DEP_CACHE, -1, 0, cache, bk);
    gs_err_t err;
    for (int r = 0; r < R; r++) {
        assert_true(comm[r].nremote > 0);
        for (int k = 0; k <= L; k++) assert_int_equal(comm[r].nset[k], bounds[r + 1] - bounds[r]);
        for (int l = 1; l <= L; l++) assert_int_equal(comm[r].ncomm[l], comm[r].nremote);
        for (int l = 1; l <= L; l++) assert_int_equal(cache[r].ncomm[l], 0);
        blockset_t khop; /* DepCache's level sets are the L-hop neighbourhood */
        assert_int_equal(blocks_khop(&gr, L, comm[r].set[L], comm[r].nset[L], &khop, &err), GS_OK);
        for (int k = 0; k <= L; k++) assert_int_equal(cache[r].nset[k], k == 0 ? khop.block[1].nsrc : khop.block[k].n);
        blocks_free(&khop);
    }
    double ratios[] = {0, 0.3, 1};
    for (int i = 0; i < 3; i++) {
        plan_all(R, bounds, L, DEP_HYBRID, ratios[i], 0, plan, bs);
        for (int r = 0; r < R; r++)
            for (int l = 1; l <= L; l++) {
                int64_t want = (int64_t)ceil(ratios[i] * (double)plan[r].nremote - 1e-9);
                assert_true(plan[r].ncached[l] >= want);
                if (ratios[i] == 0) assert_int_equal(plan[r].ncached[l], 0);
                if (ratios[i] == 1) assert_int_equal(plan[r].nset[l - 1], cache[r].nset[l - 1]);
            }
        free_all(R, plan, bs);
    }
    /* Algorithm 4's own split: layer 1 costs nothing to cache */
    plan_all(R, bounds, L, DEP_HYBRID, -1, 0, plan, bs);
    for (int r = 0; r < R; r++) assert_int_equal(plan[r].ncomm[1], 0);
    double bytes = plan[0].cache_bytes;
    free_all(R, plan, bs);
    /* the memory limit: caching stops before it is passed */
    plan_all(R, bounds, L, DEP_HYBRID, 1.0, bytes / 3, plan, bs);
    assert_true(plan[0].cache_bytes <= bytes / 3);
    assert_true(plan[0].mem_stopped);
    free_all(R, plan, bs);
    free_all(R, comm, bc);
    free_all(R, cache, bk);
}

/* The owners' level values, for filling mirror rows: each rank's exec reads
 * them by original vertex id from the whole graph's run. */
typedef struct {
    kplace_t kp; /* first: the memory engine's ops take self as their place */
    exec_t *full;
} filler_t;

static int fill_mirrors(void *self, exec_t *ex, int v, int hop, int gathered, gs_err_t *err)
{
    (void)err, (void)gathered;
    filler_t *f = self;
    const graph_t *b = ex->block[hop];
    const tensor_t *src = &f->full->val[v];
    int64_t cols = ex->prog->vals[v].cols;
    for (int64_t r = b->nbase; r < b->nsrc; r++) /* the mirrors: rows past those computed here */
        memcpy(ex->val[v].data + r * cols, src->data + (int64_t)b->orig_id[r] * cols, sizeof(float) * (size_t)cols);
    return GS_OK;
}

static void check_forward(const char *model, int L, dep_mode_t mode, double ratio)
{
    enum { R = 3 };
    int64_t bounds[R + 1] = {0, 90, 210, NV};
    gs_err_t err;
    program_t prog;
    model_cfg_t mc = {FX, 3, 5, L, 2, 0.3f};
    if (model_build(&prog, model_find(model), &mc, gr.ntypes, &err)) fail_msg("%s", err.msg);
    fuse_report_t fr;
    fuse_rewrite(&prog, 1, &fr); /* the program the trainer runs */
    params_t ps;
    exec_t full;
    assert_int_equal(params_init(&ps, &prog, 3, kplace_host(), &err), GS_OK);
    assert_int_equal(exec_init(&full, &prog, kplace_host(), &ps, 9, &err), GS_OK);
    assert_int_equal(exec_bind_graph(&full, &gr, &err), GS_OK);
    tensor_t x = {NV, FX, ds.feat};
    const tensor_t *yf = exec_forward(&full, &x, 1, 2);
    dep_plan_t plan[R];
    blockset_t bs[R];
    plan_all(R, bounds, full.nhops, mode, ratio, 0, plan, bs);
    filler_t filler = {kplace_host(), &full};
    exec_engine_ops_t ops = exec_memory_ops;
    ops.src_ready = fill_mirrors;
    for (int r = 0; r < R; r++) {
        exec_t part;
        assert_int_equal(exec_init(&part, &prog, kplace_host(), &ps, 9, &err), GS_OK);
        assert_int_equal(exec_bind(&part, bs[r].ptr, &err), GS_OK);
        part.engine = (exec_engine_t){&ops, &filler};
        tensor_t xs;
        assert_int_equal(tensor_alloc(&xs, bs[r].block[1].nsrc, FX, &err), GS_OK);
        for (int64_t i = 0; i < plan[r].nset[0]; i++) /* features of the rows computed here; mirrors arrive */
            memcpy(xs.data + i * FX, ds.feat + (int64_t)bs[r].block[1].orig_id[i] * FX, sizeof(float) * FX);
        const tensor_t *yp = exec_forward(&part, &xs, 1, 2);
        assert_int_equal(yp->rows, bounds[r + 1] - bounds[r]);
        for (int64_t i = 0; i < yp->rows; i++)
            for (int64_t j = 0; j < yp->cols; j++) {
                float a = yf->data[(bounds[r] + i) * yf->cols + j], b = yp->data[i * yp->cols + j];
                if (fabsf(a - b) > 1e-5f * (1 + fabsf(a)))
                    fail_msg("%s mode %d ratio %g rank %d row %lld: %g vs %g", model, mode, ratio, r, (long long)i, b, a);
            }
        tensor_free(&xs);
        exec_free(&part);
    }
    free_all(R, plan, bs);
    exec_free(&full);
    params_free(&ps);
    prog_free(&prog);
}

static void test_owned_rows_match_the_whole_graph(void **state)
{
    (void)state;
    const char *models[] = {"gcn", "gat", "gin", "resgcn"};
    for (int m = 0; m < 4; m++) {
        check_forward(models[m], 2, DEP_COMM, -1);
        check_forward(models[m], 2, DEP_CACHE, -1);
        check_forward(models[m], 3, DEP_HYBRID, -1);
        check_forward(models[m], 3, DEP_HYBRID, 0.3);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_algorithm_4_by_hand),
        cmocka_unit_test(test_modes_and_ratios),
        cmocka_unit_test(test_owned_rows_match_the_whole_graph),
    };
    return cmocka_run_group_tests_name("dep_plan", tests, setup, teardown);
}
