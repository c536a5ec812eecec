/* test_train.c - training-level properties: the same seed gives the same
 * losses (also across thread counts), a checkpoint round trip restores the
 * exact state so a resumed run repeats the uninterrupted losses, damaged or
 * mismatched checkpoints are refused, DKP does not change the maths, the
 * per-layer aggregation FLOPs follow DKP's order, and what a trainer
 * remembers of its loss gradient's zero rows is compared by value. */
#include "test_util.h"

#include <math.h>

#include "base/threadpool.h"
#include "engine/train/loss_rows.h"
#include "engine/train/train.h"

static tu_gen_t gen;

static int setup(void **state)
{
    (void)state;
    gen_params_t p = {.nodes = 600, .avg_degree = 8, .feats = 24, .classes = 4, .seed = 11};
    return tu_gen_setup(&gen, &p);
}

static int teardown(void **state)
{
    (void)state;
    tu_gen_cleanup(&gen);
    return 0;
}

static train_cfg_t cfg_for(const char *model)
{
    train_cfg_t c;
    train_cfg_defaults(&c);
    snprintf(c.dataset, sizeof c.dataset, "%s", gen.data_dir);
    snprintf(c.model, sizeof c.model, "%s", model);
    c.threads = 2;
    return c;
}

static void run_losses(const train_cfg_t *c, int epochs, double *loss)
{
    trainer_t t;
    gs_err_t err;
    if (trainer_open(&t, c, NULL, &err)) fail_msg("%s", err.msg);
    for (int i = 0; i < epochs; i++) {
        epoch_stats_t st;
        assert_int_equal(trainer_epoch(&t, &st, &err), GS_OK);
        loss[i] = st.loss;
    }
    trainer_close(&t);
}

static void test_same_seed_same_losses(void **state)
{
    (void)state;
    double a[6], b[6], c[6];
    train_cfg_t cfg = cfg_for("gat");
    run_losses(&cfg, 6, a);
    run_losses(&cfg, 6, b);
    assert_memory_equal(a, b, sizeof a);
    /* another thread count may reassociate sgemm sums (OpenBLAS splits K
     * differently), so only rounding-level differences are allowed */
    cfg.threads = 1;
    run_losses(&cfg, 6, c);
    for (int i = 0; i < 6; i++) assert_true(fabs(a[i] - c[i]) <= 1e-5 * fabs(a[i]));
    cfg.seed = 43;
    run_losses(&cfg, 6, c);
    assert_true(memcmp(a, c, sizeof a) != 0);
    assert_true(a[5] < a[0]); /* it learns */
}

static void test_checkpoint_resume_is_exact(void **state)
{
    (void)state;
    const char *models[] = {"gcn", "ggnn"};
    for (int mi = 0; mi < 2; mi++) {
        train_cfg_t cfg = cfg_for(models[mi]);
        double full[8], resumed[8];
        run_losses(&cfg, 8, full);
        char ck[4200];
        snprintf(ck, sizeof ck, "%s/run.ckpt", gen.work_dir);
        trainer_t t;
        gs_err_t err;
        epoch_stats_t st;
        assert_int_equal(trainer_open(&t, &cfg, NULL, &err), GS_OK);
        for (int i = 0; i < 3; i++) {
            assert_int_equal(trainer_epoch(&t, &st, &err), GS_OK);
            resumed[i] = st.loss;
            assert_int_equal(trainer_save(&t, ck, &err), GS_OK);
        }
        trainer_close(&t);
        cfg.seed = 1234; /* the checkpoint's seed wins, so masks continue */
        assert_int_equal(trainer_open(&t, &cfg, NULL, &err), GS_OK);
        if (trainer_resume(&t, ck, &err)) fail_msg("%s", err.msg);
        assert_int_equal(t.epoch, 3);
        for (int i = 3; i < 8; i++) {
            assert_int_equal(trainer_epoch(&t, &st, &err), GS_OK);
            resumed[i] = st.loss;
        }
        trainer_close(&t);
        assert_memory_equal(full, resumed, sizeof full);
    }
}

static void test_bad_checkpoints_are_refused(void **state)
{
    (void)state;
    train_cfg_t cfg = cfg_for("gcn");
    char ck[4200];
    snprintf(ck, sizeof ck, "%s/bad.ckpt", gen.work_dir);
    trainer_t t;
    gs_err_t err;
    epoch_stats_t st;
    assert_int_equal(trainer_open(&t, &cfg, NULL, &err), GS_OK);
    assert_int_equal(trainer_epoch(&t, &st, &err), GS_OK);
    assert_int_equal(trainer_save(&t, ck, &err), GS_OK);
    trainer_close(&t);
    /* another model shape */
    cfg.hidden = 32;
    assert_int_equal(trainer_open(&t, &cfg, NULL, &err), GS_OK);
    assert_int_equal(trainer_resume(&t, ck, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "--hidden"));
    trainer_close(&t);
    cfg.hidden = 16;
    /* --heads does not shape a GCN: a different value is no mismatch */
    cfg.heads = 4;
    assert_int_equal(trainer_open(&t, &cfg, NULL, &err), GS_OK);
    if (trainer_resume(&t, ck, &err)) fail_msg("%s", err.msg);
    trainer_close(&t);
    cfg.heads = 8;
    /* garbage after the checksum */
    char cmd[8600];
    snprintf(cmd, sizeof cmd, "cp %s %s.orig && printf 'garbage' >> %s", ck, ck, ck);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(trainer_open(&t, &cfg, NULL, &err), GS_OK);
    assert_int_equal(trainer_resume(&t, ck, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "checksum"));
    trainer_close(&t);
    /* a flipped byte in the header is a checksum failure, never a misleading setting */
    snprintf(cmd, sizeof cmd, "cp %s.orig %s", ck, ck);
    assert_int_equal(system(cmd), 0);
    for (long at = 12; at < 80; at += 7) {
        FILE *h = fopen(ck, "r+b");
        fseek(h, at, SEEK_SET);
        int b = fgetc(h);
        fseek(h, at, SEEK_SET);
        fputc(b ^ 0x5a, h);
        fclose(h);
        assert_int_equal(trainer_open(&t, &cfg, NULL, &err), GS_OK);
        assert_int_equal(trainer_resume(&t, ck, &err), GS_EINPUT);
        if (!strstr(err.msg, "checksum")) fail_msg("byte %ld: %s", at, err.msg);
        trainer_close(&t);
        assert_int_equal(system(cmd), 0);
    }
    /* a flipped byte in the weights */
    FILE *f = fopen(ck, "r+b");
    fseek(f, 400, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 400, SEEK_SET);
    fputc(c ^ 0xff, f);
    fclose(f);
    assert_int_equal(trainer_open(&t, &cfg, NULL, &err), GS_OK);
    assert_int_equal(trainer_resume(&t, ck, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "checksum"));
    trainer_close(&t);
    /* truncated */
    assert_int_equal(truncate(ck, 100), 0);
    assert_int_equal(trainer_open(&t, &cfg, NULL, &err), GS_OK);
    assert_int_equal(trainer_resume(&t, ck, &err), GS_EINPUT);
    trainer_close(&t);
    /* the temporary file of an atomic write never survives */
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", ck, (long)getpid());
    assert_int_not_equal(access(tmp, F_OK), 0);
}

static void test_dkp_keeps_the_maths(void **state)
{
    (void)state;
    const char *models[] = {"gcn", "commnet", "resgcn"};
    for (int mi = 0; mi < 3; mi++) {
        train_cfg_t cfg = cfg_for(models[mi]);
        double off[5], on[5];
        cfg.dkp = DKP_OFF;
        run_losses(&cfg, 5, off);
        cfg.dkp = DKP_ON;
        run_losses(&cfg, 5, on);
        for (int i = 0; i < 5; i++)
            if (fabs(off[i] - on[i]) > 1e-4 * fabs(off[i])) fail_msg("%s epoch %d: %.9g vs %.9g", models[mi], i, off[i], on[i]);
    }
}

/* The per-layer aggregation counts follow the order DKP picked: GCN's
 * first layer (24 -> 16) gathers 24 columns forward and none backward
 * aggregation-first (its input needs no gradient), 16 each way
 * combination-first; the second layer (16 -> 4) gathers both ways. */
static void test_dkp_counts_aggregation_flops(void **state)
{
    (void)state;
    train_cfg_t cfg = cfg_for("gcn");
    for (int on = 0; on <= 1; on++) {
        cfg.dkp = on ? DKP_ON : DKP_OFF;
        trainer_t t;
        gs_err_t err;
        epoch_stats_t st;
        if (trainer_open(&t, &cfg, NULL, &err)) fail_msg("%s", err.msg);
        assert_int_equal(trainer_epoch(&t, &st, &err), GS_OK);
        double m2 = 2.0 * (double)t.data.g.m;
        double want[2][2] = {{m2 * (on ? 16 : 24), on ? m2 * 16 : 0}, {m2 * (on ? 4 : 16), m2 * (on ? 4 : 16)}};
        for (int l = 0; l < 2; l++)
            for (int ph = 0; ph < 2; ph++)
                if (t.ex.agg_flops[l][ph] != want[l][ph])
                    fail_msg("dkp %d layer %d phase %d: %.0f, want %.0f", on, l, ph, t.ex.agg_flops[l][ph], want[l][ph]);
        trainer_close(&t);
    }
}

/* loss_rows.h: the same buffer, shape and rows (by value) are known zero
 * elsewhere; other rows at the split's address (a rank's resplit),
 * another shape or buffer, or a forgotten buffer are not. (The checkpoint
 * test covers the trainer's use: a resumed run zeroes every row on its
 * first epoch, the uninterrupted one writes only the listed rows, and
 * their losses agree bit for bit.) */
static void test_loss_rows_compare_by_value(void **state)
{
    (void)state;
    loss_rows_t z = {0};
    float buf[12] = {0};
    int32_t rows[3] = {0, 2, 5}, same[3] = {0, 2, 5};
    assert_false(loss_rows_zero_outside(&z, buf, 6, 2, rows, 3));
    loss_rows_wrote(&z, buf, 6, 2, rows, 3);
    assert_true(loss_rows_zero_outside(&z, buf, 6, 2, same, 3));
    rows[2] = 4; /* rewritten in place */
    assert_false(loss_rows_zero_outside(&z, buf, 6, 2, rows, 3));
    assert_false(loss_rows_zero_outside(&z, buf, 5, 2, same, 3));
    assert_false(loss_rows_zero_outside(&z, buf, 6, 1, same, 3));
    assert_false(loss_rows_zero_outside(&z, buf + 1, 6, 2, same, 3));
    assert_false(loss_rows_zero_outside(&z, buf, 6, 2, same, 2));
    loss_rows_wrote(&z, buf, 6, 2, rows, 3);
    assert_true(loss_rows_zero_outside(&z, buf, 6, 2, rows, 3));
    assert_false(loss_rows_zero_outside(&z, buf, 6, 2, same, 3));
    loss_rows_forget(&z);
    assert_false(loss_rows_zero_outside(&z, buf, 6, 2, rows, 3));
    loss_rows_free(&z);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_same_losses),
        cmocka_unit_test(test_checkpoint_resume_is_exact),
        cmocka_unit_test(test_bad_checkpoints_are_refused),
        cmocka_unit_test(test_dkp_keeps_the_maths),
        cmocka_unit_test(test_dkp_counts_aggregation_flops),
        cmocka_unit_test(test_loss_rows_compare_by_value),
    };
    return cmocka_run_group_tests_name("train", tests, setup, teardown);
}
