/* test_stream_train.c - the invariant of docs/ARCHITECTURE.md ("Invariants") at the trainer
 * level: on a small generated graph, every combination of streaming knobs
 * in the matrix below trains the same model as the in-memory run (losses
 * within 1e-4 relative for 5 epochs), for GCN and for GG-NN (typed edges:
 * an NN on the source per edge type). The matrix covers P = 1, 2, 4;
 * selective off/on; pipeline with k = 1 and 4; swap off/on; 1, 2 and 4
 * devices with naive, chain and ring; DKP off/on; the three vertex orders;
 * the column, row and stage stream orders; and
 * the three memory plans (stream, lru, roc), which also must move fewer
 * bytes than streaming within the device cap. */
/* run-under: asan tsan */
#include "test_util.h"

#include <math.h>

#include "engine/train/knobs.h"
#include "engine/train/train.h"

static tu_gen_t gen;

static int setup(void **state)
{
    (void)state;
    gen_params_t p = {.nodes = 400, .avg_degree = 6, .feats = 12, .classes = 4, .seed = 5};
    return tu_gen_setup(&gen, &p);
}

static int teardown(void **state)
{
    (void)state;
    tu_gen_cleanup(&gen);
    return 0;
}

static train_cfg_t base(const char *model, dkp_mode_t dkp)
{
    train_cfg_t c;
    train_cfg_defaults(&c);
    snprintf(c.dataset, sizeof c.dataset, "%s", gen.data_dir);
    snprintf(c.model, sizeof c.model, "%s", model);
    c.threads = 2;
    c.hidden = 8;
    c.dkp = dkp;
    c.links_native = 1; /* timing does not change the maths; the multi-device runs model links */
    c.link_scale = 100;
    return c;
}

/* Trains 5 epochs: the losses, and optionally each device's high-water
 * mark and the last epoch's stats. */
static void losses(const train_cfg_t *c, double *out, uint64_t *hw, epoch_stats_t *last)
{
    trainer_t t;
    gs_err_t err;
    if (trainer_open(&t, c, NULL, &err)) fail_msg("%s", err.msg);
    for (int i = 0; i < 5; i++) {
        epoch_stats_t st;
        if (trainer_epoch(&t, &st, &err)) fail_msg("%s", err.msg);
        out[i] = st.loss;
        if (last) *last = st;
    }
    if (hw) {
        for (int d = 0; d < c->devices; d++) hw[d] = t.stream.last_stats.high_water[d];
    }
    trainer_close(&t);
}

static void expect_same(const double *ref, const train_cfg_t *c, const char *what)
{
    double got[5];
    losses(c, got, NULL, NULL);
    for (int i = 0; i < 5; i++)
        if (fabs(got[i] - ref[i]) > 1e-4 * fabs(ref[i]))
            fail_msg("%s: epoch %d loss %.9g, in-memory %.9g", what, i + 1, got[i], ref[i]);
}

static void knob_matrix(clock_kind_t clock)
{
    const char *models[] = {"gcn", "ggnn"};
    int ps[] = {1, 2, 4}, ks[] = {1, 4};
#ifdef __SANITIZE_THREAD__
    int dks = 1; /* DKP reorders the program, not the threads: its half of the matrix runs in the other builds */
#else
    int dks = 2;
#endif
    for (int m = 0; m < 2; m++)
        for (int dk = 0; dk < dks; dk++) {
            train_cfg_t c = base(models[m], dk ? DKP_ON : DKP_OFF);
            c.clock = clock;
            double ref[5];
            losses(&c, ref, NULL, NULL);
            c.stream = 1;
            for (int a = 0; a < 3; a++)
                for (int sel = 0; sel < 2; sel++)
                    for (int k = 0; k < 2; k++)
                        for (int swap = 0; swap < 2; swap++) {
                            c.chunks = ps[a];
                            memplan_kind_t plan = (memplan_kind_t)((a + sel + k + swap) % 3);
                            stream_order_t so = k == 1 && swap == 0 ? (sel ? SO_STAGE : SO_ROW) : SO_COLUMN;
                            c.knobs = (stream_knobs_t){1, ks[k], sel ? SEL_ON : SEL_OFF, swap, MD_NAIVE, plan, (edge_mode_t)((a + swap) % 2), so};
                            c.devices = 1;
                            snprintf(c.topology, sizeof c.topology, "1gpu");
                            char what[160];
                            snprintf(what, sizeof what, "%s dkp=%d P=%d sel=%d k=%d swap=%d memplan=%d order=%d", models[m], dk, ps[a],
                                     sel, ks[k], swap, plan, so);
                            expect_same(ref, &c, what);
                        }
            int devs[] = {2, 4};
            snprintf(c.topology, sizeof c.topology, "pcie-4gpu-2switch");
            for (int a = 0; a < 2; a++)
                for (int md = 0; md < 3; md++)
                    for (int o = 0; o < 3; o++) {
                        c.devices = devs[a];
                        c.links_native = o != 0;
                        c.chunks = 4;
                        c.order = (order_kind_t)o;
                        stream_order_t so = o == 2 ? SO_STAGE : SO_COLUMN;
                        c.knobs = (stream_knobs_t){1, 2, SEL_AUTO, 1, (multidev_t)md, (memplan_kind_t)((md + o) % 3), (edge_mode_t)((md + o) % 2), so};
                        char what[160];
                        snprintf(what, sizeof what, "%s dkp=%d devices=%d multidev=%d order=%d memplan=%d stream-order=%d", models[m], dk,
                                 devs[a], md, o, (md + o) % 3, so);
                        expect_same(ref, &c, what);
                    }
        }
}

/* Both clocks: the virtual one (the default) and the wall clock. Under
 * ThreadSanitizer only the wall clock's (its copy engines are the threads
 * that could race; the virtual clock's matrix runs in the plain and ASan
 * builds), which keeps CI inside its time. */
static void test_knob_matrix_matches_in_memory(void **state)
{
    (void)state;
#ifndef __SANITIZE_THREAD__
    knob_matrix(CLOCK_VIRTUAL);
#endif
    knob_matrix(CLOCK_WALL);
}

static void test_chunks_auto_respects_the_cap(void **state)
{
    (void)state;
    train_cfg_t c = base("gcn", DKP_AUTO);
    c.stream = 1;
    c.devices = 2;
    snprintf(c.topology, sizeof c.topology, "pcie-4gpu-2switch");
    c.device_mem = 40000; /* far below the 400 x 12 x 4 byte feature matrix */
    double l[5];
    uint64_t hw[2];
    losses(&c, l, hw, NULL);
    for (int d = 0; d < 2; d++) {
        assert_true(hw[d] > 0);
        assert_true(hw[d] <= c.device_mem);
    }
    trainer_t t;
    gs_err_t err;
    c.device_mem = 100; /* nothing fits: a clear error, not a crash */
    assert_int_equal(trainer_open(&t, &c, NULL, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "--device-mem"));
    trainer_close(&t);
}

/* One streamed run's last-epoch H2D bytes, device-copy savings, high-water mark and losses. */
typedef struct {
    double h2d, kept, loss[5];
    uint64_t hw;
} plan_run_t;

static plan_run_t plan_run(train_cfg_t c, memplan_kind_t plan)
{
    plan_run_t r = {0};
    epoch_stats_t last;
    c.knobs.memplan = plan;
    losses(&c, r.loss, &r.hw, &last);
    r.h2d = last.h2d_bytes, r.kept = last.kept_bytes;
    return r;
}

static void test_memory_plans_save_transfers_within_the_cap(void **state)
{
    (void)state;
    train_cfg_t c = base("gcn", DKP_OFF);
    c.stream = 1;
    c.chunks = 2;
    c.device_mem = 100000; /* the buffers for P = 2 and room for a few (400, 8) tensors, not all */
    c.knobs.swap = 0; /* block order fixed: sums in the same order, so losses are bitwise equal */
    plan_run_t s = plan_run(c, MP_STREAM), l = plan_run(c, MP_LRU), r = plan_run(c, MP_ROC);
    assert_true(s.kept == 0);
    assert_true(l.kept > 0 && r.kept > 0);
    assert_true(r.h2d < s.h2d && l.h2d < s.h2d);
    if (r.h2d > l.h2d) fail_msg("roc moved %.0f bytes, lru %.0f", r.h2d, l.h2d);
    assert_true(s.hw <= c.device_mem && l.hw <= c.device_mem && r.hw <= c.device_mem);
    for (int i = 0; i < 5; i++) {
        assert_true(l.loss[i] == s.loss[i]); /* same kernels, same order: bitwise */
        assert_true(r.loss[i] == s.loss[i]);
    }
}

/* A cap where the ApplyVertex chains are worth more than what the plan
 * keeps in their room (200-wide features, 8 chunks in 160 KB): with the
 * plan first (the only way until 2026-12-06) roc moved 6.37 MB an epoch,
 * more than streaming all (6.03 MB); it now measures the chains' side in
 * the recorded epoch, gives them the memory first and moves 5.72 MB,
 * keeping some tensors in what they leave, at the same losses. */
static void test_memory_plan_leaves_the_chains_their_room(void **state)
{
    (void)state;
    tu_gen_t wide;
    gen_params_t p = {.nodes = 400, .avg_degree = 6, .feats = 200, .classes = 4, .seed = 5};
    assert_int_equal(tu_gen_setup(&wide, &p), 0);
    train_cfg_t c = base("gcn", DKP_OFF);
    snprintf(c.dataset, sizeof c.dataset, "%s", wide.data_dir);
    c.stream = 1;
    c.chunks = 8;
    c.device_mem = 160 * 1024;
    c.knobs.swap = 0;
    c.knobs.selective = SEL_OFF;
    snprintf(c.topology, sizeof c.topology, "1gpu");
    plan_run_t s = plan_run(c, MP_STREAM), r = plan_run(c, MP_ROC);
    setenv("GNNSCOPE_CACHE_DIR", gen.work_dir, 1); /* tu_gen_setup pointed the cache at wide's */
    tu_gen_cleanup(&wide);
    if (!(r.h2d < s.h2d && r.kept > 0)) fail_msg("roc moved %.0f bytes (kept %.0f), streaming all %.0f", r.h2d, r.kept, s.h2d);
    assert_true(r.hw <= c.device_mem);
    for (int i = 0; i < 5; i++)
        if (fabs(r.loss[i] - s.loss[i]) > 1e-6 * fabs(s.loss[i])) fail_msg("epoch %d: loss %.9g, streamed %.9g", i + 1, r.loss[i], s.loss[i]);
}

/* Two devices under one switch with ROC's plan, chained (the default):
 * each device keeps the tensors, the chain reads a kept input where it is
 * (it had streamed it anyway, 1.44x one device's H2D bytes), and a row
 * another device wrote comes from that device's copy over the switch, not
 * through the shared uplink: no more H2D than one device, some D2D, the
 * same losses. */
static void test_memory_plan_fills_stale_rows_from_a_peer(void **state)
{
    (void)state;
    train_cfg_t c = base("gcn", DKP_OFF);
    c.stream = 1;
    c.chunks = 4;
    c.knobs.swap = 0;
    c.knobs.memplan = MP_ROC;
    snprintf(c.topology, sizeof c.topology, "pcie-4gpu-2switch");
    epoch_stats_t one, two;
    double l1[5], l2[5];
    losses(&c, l1, NULL, &one);
    c.devices = 2;
    c.knobs.multidev = MD_CHAIN;
    losses(&c, l2, NULL, &two);
    if (!(two.h2d_bytes <= 1.05 * one.h2d_bytes && two.d2d_bytes > 0 && two.kept_bytes > 0))
        fail_msg("2 devices: h2d %.0f (one device %.0f), d2d %.0f, kept %.0f", two.h2d_bytes, one.h2d_bytes, two.d2d_bytes,
                 two.kept_bytes);
    for (int i = 0; i < 5; i++)
        if (fabs(l2[i] - l1[i]) > 1e-4 * fabs(l1[i])) fail_msg("epoch %d: loss %.9g, one device %.9g", i + 1, l2[i], l1[i]);
}

static void test_knobs_change_between_epochs(void **state)
{
    (void)state;
    train_cfg_t c = base("gcn", DKP_AUTO);
    c.links_native = 0;
    double ref[6], got[6];
    trainer_t t;
    gs_err_t err;
    epoch_stats_t st;
    {
        train_cfg_t m = c;
        trainer_open(&t, &m, NULL, &err);
        for (int i = 0; i < 6; i++) {
            assert_int_equal(trainer_epoch(&t, &st, &err), GS_OK);
            ref[i] = st.loss;
        }
        trainer_close(&t);
    }
    assert_int_equal(trainer_open(&t, &c, NULL, &err), GS_OK);
    const char *steps[6][2][2] = {
        {{NULL, NULL}},
        {{"chunks", "4"}, {"memplan", "lru"}},
        {{"order", "metis"}, {"topology", "pcie-4gpu-2switch"}},
        {{"devices", "2"}, {"multidev", "ring"}},
        {{"selective", "on"}, {"subchunks", "4"}},
        {{"chunks", "2"}, {"order", "none"}},
    };
    char buf[64];
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 2; j++)
            if (steps[i][j][0]) assert_int_equal(knob_set(&t, steps[i][j][0], steps[i][j][1], &err), GS_OK);
        if (i == 1) { /* pending is visible, current is unchanged until the epoch boundary */
            assert_int_equal(knob_get(&t, "chunks", 1, buf, sizeof buf, &err), 1);
            assert_string_equal(buf, "4");
            assert_false((t.kind.engine == ENGINE_STREAM));
        }
        if (trainer_epoch(&t, &st, &err)) fail_msg("step %d: %s", i, err.msg);
        got[i] = st.loss;
    }
    assert_int_equal(t.stream.chunks, 2);
    assert_int_equal(t.cfg.devices, 2);
    for (int i = 0; i < 6; i++)
        if (fabs(got[i] - ref[i]) > 1e-4 * fabs(ref[i])) fail_msg("epoch %d: %.9g vs %.9g", i + 1, got[i], ref[i]);
    /* bad values change nothing */
    assert_int_equal(knob_set(&t, "chunks", "abc", &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "chunks"));
    assert_int_equal(knob_set(&t, "warp", "9", &err), GS_EINPUT);
    assert_int_equal(knob_get(&t, "chunks", 1, buf, sizeof buf, &err), 0);
    /* a value the run cannot use is refused when set */
    assert_int_equal(knob_set(&t, "device-mem", "100", &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "device-mem"));
    /* a value that fails when applied (too small for the 2 chunks asked for,
     * though enough for more) restores the previous configuration */
    knob_facts_t facts = trainer_knob_facts(&t);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)facts.min_device_mem);
    assert_int_equal(knob_set(&t, "device-mem", buf, &err), GS_OK);
    assert_int_equal(trainer_epoch(&t, &st, &err), GS_EINPUT);
    assert_int_equal(t.cfg.device_mem, 0);
    assert_true((t.kind.engine == ENGINE_STREAM));
    assert_int_equal(trainer_epoch(&t, &st, &err), GS_OK);
    trainer_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_knob_matrix_matches_in_memory),
        cmocka_unit_test(test_chunks_auto_respects_the_cap),
        cmocka_unit_test(test_memory_plans_save_transfers_within_the_cap),
        cmocka_unit_test(test_memory_plan_leaves_the_chains_their_room),
        cmocka_unit_test(test_memory_plan_fills_stale_rows_from_a_peer),
        cmocka_unit_test(test_knobs_change_between_epochs),
    };
    return cmocka_run_group_tests_name("stream_train", tests, setup, teardown);
}
