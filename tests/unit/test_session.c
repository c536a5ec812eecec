/* test_session.c - the workbench session without a terminal: the engine
 * thread trains while commands pause, step, run and change knobs; bad
 * commands and values are refused with a message and change nothing;
 * knob changes reach the trainer at the next epoch; quit stops cleanly. */
/* run-under: tsan */
#include "test_util.h"

#include <time.h>

#include "app/session.h"

static tu_gen_t gen;

static int setup(void **state)
{
    (void)state;
    gen_params_t p = {.nodes = 300, .avg_degree = 6, .feats = 8, .classes = 3, .seed = 2};
    return tu_gen_setup(&gen, &p);
}

static int teardown(void **state)
{
    (void)state;
    tu_gen_cleanup(&gen);
    return 0;
}

/* Waits (bounded) until the engine has served every command so far and
 * waits paused; returns the snapshot then. */
static void wait_idle(session_t *s, session_snapshot_t *snap)
{
    for (int i = 0; i < 6000; i++) {
        session_snapshot(s, snap);
        if (snap->idle || snap->failed) return;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    fail_msg("the engine never went idle");
}

/* Waits (bounded) until the snapshot shows at least n epochs. */
static int wait_epochs(session_t *s, int n)
{
    session_snapshot_t snap;
    for (int i = 0; i < 3000; i++) {
        session_snapshot(s, &snap);
        if (snap.nepochs >= n || snap.failed) return snap.nepochs;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return snap.nepochs;
}

/* The snapshot's row of knob name (the test fails when it is missing). */
static const session_knob_t *knob_row(const session_snapshot_t *snap, const char *name)
{
    for (int i = 0; i < snap->nknobs; i++)
        if (!strcmp(snap->knobs[i].name, name)) return &snap->knobs[i];
    fail_msg("no knob row %s", name);
    return NULL;
}

static void test_commands_drive_the_engine(void **state)
{
    (void)state;
    train_cfg_t cfg;
    train_cfg_defaults(&cfg);
    snprintf(cfg.dataset, sizeof cfg.dataset, "%s", gen.data_dir);
    cfg.threads = 2, cfg.stream = 1, cfg.devices = 2, cfg.chunks = 2, cfg.links_native = 1;
    snprintf(cfg.topology, sizeof cfg.topology, "pcie-4gpu-2switch");
    session_t s;
    gs_err_t err;
    char r[512];
    if (session_open(&s, &cfg, NULL, 0, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
    assert_int_equal(session_command(&s, "pause", r, sizeof r), 0);
    session_snapshot_t snap;
    wait_idle(&s, &snap);
    int before = snap.nepochs;
    assert_int_equal(session_command(&s, "step", r, sizeof r), 0);
    wait_idle(&s, &snap);
    assert_int_equal(snap.nepochs, before + 1);
    /* a bad command, a bad knob and a bad value change nothing */
    assert_int_equal(session_command(&s, "frobnicate", r, sizeof r), GS_EINPUT);
    assert_non_null(strstr(r, "unknown command"));
    assert_int_equal(session_command(&s, "set warp 9", r, sizeof r), GS_EINPUT);
    assert_int_equal(session_command(&s, "set selective sometimes", r, sizeof r), GS_EINPUT);
    assert_non_null(strstr(r, "off|on|auto"));
    assert_int_equal(session_command(&s, "run x", r, sizeof r), GS_EINPUT);
    /* a word too many is refused, not ignored; a line too long is refused, not cut and run */
    assert_int_equal(session_command(&s, "quit now", r, sizeof r), GS_EINPUT);
    assert_non_null(strstr(r, "quit takes no arguments ('now'"));
    assert_int_equal(session_command(&s, "q now", r, sizeof r), GS_EINPUT); /* q is quit (:q), with quit's rules */
    assert_int_equal(session_command(&s, "pause 3", r, sizeof r), GS_EINPUT);
    static char longline[1500];
    char *w = longline + snprintf(longline, sizeof longline, "checkpoint save %s/", gen.work_dir);
    while (w < longline + sizeof longline - 1) *w++ = 'a';
    *w = '\0';
    assert_int_equal(session_command(&s, longline, r, sizeof r), GS_EINPUT);
    assert_non_null(strstr(r, "too long"));
    assert_int_equal(session_command(&s, "get selective", r, sizeof r), 0);
    assert_string_equal(r, "selective = auto");
    /* a value whose mechanism the run leaves idle says so (multidev chain: no swap order; no sampling: no scheduler) */
    assert_int_equal(session_command(&s, "set swap on", r, sizeof r), 0);
    assert_string_equal(r, "swap = on at the next epoch; note: swap reorders the columns of multidev naive only");
    assert_int_equal(session_command(&s, "set prepro pipelined", r, sizeof r), 0);
    assert_non_null(strstr(r, "; note: the sampler and its preprocessing scheduler run with --batch-size only"));
    /* one that can make things slower points at the counter that shows why (chain with selective: the union rows) */
    assert_int_equal(session_command(&s, "set selective auto", r, sizeof r), 0);
    assert_string_equal(r, "selective = auto at the next epoch; note: with selective scheduling a block passed down a switch "
                           "carries the union of its devices' rows, so chain or ring can move more than naive: see uplink_bytes "
                           "and gather_h2d_bytes");
    /* counter NAME explains a counter with its last value; a bad name is refused */
    assert_int_equal(session_command(&s, "counter gather_h2d_bytes", r, sizeof r), 0);
    assert_non_null(strstr(r, "gather_h2d_bytes (B): the Scatter-Gather stage's share of h2d_bytes"));
    assert_non_null(strstr(r, "; last epoch "));
    assert_int_equal(session_command(&s, "counter net_bytes", r, sizeof r), 0);
    assert_non_null(strstr(r, "does not apply to this run"));
    assert_int_equal(session_command(&s, "counter warp", r, sizeof r), GS_EINPUT);
    assert_int_equal(session_command(&s, "counter", r, sizeof r), 0);
    assert_non_null(strstr(r, " edge_h2d_bytes "));
    /* a knob change is pending until the next epoch boundary, then in force */
    assert_int_equal(session_command(&s, "set selective off", r, sizeof r), 0);
    assert_int_equal(session_command(&s, "get selective", r, sizeof r), 0);
    assert_true(strstr(r, "-> off") || !strcmp(r, "selective = off")); /* the paused engine may apply it at once */
    assert_int_equal(session_command(&s, "run 2", r, sizeof r), 0);
    wait_idle(&s, &snap);
    assert_int_equal(snap.nepochs, before + 3);
    /* the workbench's knob rows mark those idle: swap under chain, the sampler without sampling; not the streaming ones */
    const char *idle[] = {"swap", "prepro", "fanout"}, *live[] = {"fuse", "selective", "devices", "multidev", "lr"};
    for (int i = 0; i < 3; i++) assert_int_equal(knob_row(&snap, idle[i])->idle, 1);
    for (int i = 0; i < 5; i++) assert_int_equal(knob_row(&snap, live[i])->idle, 0);
    assert_int_equal(session_command(&s, "get selective", r, sizeof r), 0);
    assert_string_equal(r, "selective = off");
    assert_int_equal(session_command(&s, "set chunks 3", r, sizeof r), 0);
    assert_int_equal(session_command(&s, "step", r, sizeof r), 0);
    wait_idle(&s, &snap);
    assert_int_equal(snap.chunks, 3);
    assert_false(snap.failed);
    char path[4200];
    snprintf(path, sizeof path, "%s/m.csv", gen.work_dir);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "export metrics %s", path);
    assert_int_equal(session_command(&s, cmd, r, sizeof r), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int lines = 0;
    for (int c; (c = fgetc(f)) != EOF;) lines += c == '\n';
    fclose(f);
    assert_int_equal(lines, snap.nepochs + 1); /* header and a row per epoch */
    /* failing commands are refused with a reason, never taken for quit */
    snprintf(cmd, sizeof cmd, "export metrics %s", gen.work_dir); /* a directory */
    int rc = session_command(&s, cmd, r, sizeof r);
    assert_true(rc == GS_EINPUT || rc == GS_EFAIL);
    assert_int_not_equal(rc, SESSION_QUIT);
    assert_non_null(strstr(r, "export:"));
    assert_int_equal(session_command(&s, "trace start /", r, sizeof r), GS_EINPUT);
    assert_int_equal(session_command(&s, "trace stop", r, sizeof r), GS_EINPUT);
    assert_string_equal(r, "trace stop: no trace is being written");
    assert_int_equal(session_command(&s, "checkpoint save /", r, sizeof r), GS_EINPUT);
    assert_int_equal(session_command(&s, "set device-mem 1", r, sizeof r), GS_EINPUT); /* refused when typed */
    assert_int_equal(session_command(&s, "set link-scale 1e-320", r, sizeof r), GS_EINPUT);
    assert_int_equal(session_command(&s, "get device-mem", r, sizeof r), 0);
    assert_null(strstr(r, "->")); /* nothing pending */
    assert_int_equal(session_command(&s, "set dkp off", r, sizeof r), 0);
    assert_int_equal(session_command(&s, "step", r, sizeof r), 0);
    wait_idle(&s, &snap);
    assert_false(snap.failed);
    /* model and load restart the run; bad ones are refused or rolled back */
    assert_int_equal(session_command(&s, "model nope", r, sizeof r), GS_EINPUT);
    assert_int_equal(session_command(&s, "model gat heads 0", r, sizeof r), GS_EINPUT);
    assert_int_equal(session_command(&s, "model gat hidden 4 heads 2", r, sizeof r), 0);
    wait_idle(&s, &snap); /* served while paused: no epoch runs */
    assert_string_equal(snap.model, "gat");
    assert_int_equal(snap.epoch, 0);
    assert_false(snap.failed);
    assert_int_equal(session_command(&s, "step", r, sizeof r), 0);
    wait_idle(&s, &snap);
    int64_t epochs_before = snap.epoch;
    assert_int_equal(session_command(&s, "load /nonexistent/graph", r, sizeof r), 0);
    assert_int_equal(session_command(&s, "step", r, sizeof r), 0);
    wait_idle(&s, &snap);
    assert_non_null(strstr(snap.notice, "/nonexistent/graph")); /* reported... */
    assert_non_null(strstr(snap.notice, "not opened, the run goes on"));
    assert_false(snap.failed);
    assert_string_equal(snap.model, "gat"); /* ...and the run went on as it was */
    assert_int_equal(snap.epoch, epochs_before + 1);
    assert_int_equal(session_command(&s, "quit", r, sizeof r), SESSION_QUIT);
    session_close(&s);
}

/* The losses of epochs [from, to) of cfg, resumed from path when given. */
static void losses(const train_cfg_t *cfg, const char *resume, int to, double *out, int64_t *from)
{
    trainer_t t;
    gs_err_t err;
    if (trainer_open(&t, cfg, NULL, &err) || (resume && trainer_resume(&t, resume, &err))) fail_msg("%s", err.msg);
    *from = t.epoch;
    for (int64_t e = t.epoch; e < to; e++) {
        epoch_stats_t st;
        if (trainer_epoch(&t, &st, &err)) fail_msg("%s", err.msg);
        out[e] = st.loss;
    }
    trainer_close(&t);
}

/* A checkpoint saved from the console while training runs holds one
 * finished epoch: resumed, it trains exactly what the uninterrupted run
 * trains from there on. */
static void test_console_checkpoint_resumes_exactly(void **state)
{
    (void)state;
    train_cfg_t cfg;
    train_cfg_defaults(&cfg);
    snprintf(cfg.dataset, sizeof cfg.dataset, "%s", gen.data_dir);
    cfg.threads = 2, cfg.stream = 1, cfg.devices = 2, cfg.chunks = 2, cfg.links_native = 1;
    cfg.knobs.swap = 0, cfg.knobs.multidev = MD_NAIVE; /* sums in one fixed order: bitwise repeatable */
    snprintf(cfg.topology, sizeof cfg.topology, "pcie-4gpu-2switch");
    enum { E = 200 };
    double ref[E], got[E];
    int64_t from;
    losses(&cfg, NULL, E, ref, &from);
    session_t s;
    gs_err_t err;
    char r[512], path[4200], cmd[4300];
    snprintf(path, sizeof path, "%s/console.ckpt", gen.work_dir);
    train_cfg_t run = cfg;
    if (session_open(&s, &run, NULL, 0, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
    assert_true(wait_epochs(&s, 2) >= 2);
    session_snapshot_t snap;
    session_snapshot(&s, &snap);
    uint64_t seq = snap.notice_seq;
    snprintf(cmd, sizeof cmd, "checkpoint save %s", path);
    assert_int_equal(session_command(&s, cmd, r, sizeof r), GS_OK); /* while the engine trains */
    for (int i = 0; i < 3000 && snap.notice_seq == seq; i++) {
        session_snapshot(&s, &snap);
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    assert_non_null(strstr(snap.notice, "saved to"));
    /* a directory or a missing directory is refused when typed */
    snprintf(cmd, sizeof cmd, "checkpoint save %s", gen.work_dir);
    assert_int_equal(session_command(&s, cmd, r, sizeof r), GS_EINPUT);
    assert_int_equal(session_command(&s, "checkpoint save /nonexistent/dir/x.ckpt", r, sizeof r), GS_EINPUT);
    session_close(&s);
    losses(&cfg, path, E, got, &from);
    assert_true(from >= 2 && from < E);
    for (int64_t e = from; e < E; e++)
        if (got[e] != ref[e]) fail_msg("epoch %lld: resumed %.9g, uninterrupted %.9g", (long long)e + 1, got[e], ref[e]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commands_drive_the_engine),
        cmocka_unit_test(test_console_checkpoint_resumes_exactly),
    };
    return cmocka_run_group_tests_name("session", tests, setup, teardown);
}
