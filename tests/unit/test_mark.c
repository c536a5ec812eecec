/* test_mark.c - the console's mark and compare (app/session_mark.h) on
 * hand-made snapshots: refused before an epoch and without a mark; the
 * knobs that changed named with both values; refused (not read past the
 * epochs) when the run restarted after the mark and no epoch has ended; the counters that moved,
 * the largest ratio first and the ones that woke from zero last, those
 * under 1% and those that do not apply to the run left out; a reply cut
 * only between whole entries. */
/* run-under: asan */
#include "test_util.h"

#include "app/session_mark.h"

static session_snapshot_t snap;

static void epoch(double epoch_ms, double h2d, double filtered, double loss)
{
    epoch_stats_t *e = &snap.epochs[snap.nepochs++];
    memset(e, 0, sizeof *e);
    e->epoch_ms = epoch_ms, e->h2d_bytes = h2d, e->filtered_blocks = filtered, e->loss = loss;
    snap.epoch = snap.nepochs;
}

static void knob(int i, const char *name, const char *value)
{
    snprintf(snap.knobs[i].name, sizeof snap.knobs[i].name, "%s", name);
    snprintf(snap.knobs[i].value, sizeof snap.knobs[i].value, "%s", value);
    if (i >= snap.nknobs) snap.nknobs = i + 1;
}

/* A fresh snapshot of a full-batch run on engine e, and no mark. */
static void fresh(engine_kind_t e, session_mark_t *m)
{
    memset(&snap, 0, sizeof snap);
    snap.kind.driver = DRIVER_FULL, snap.kind.engine = e;
    memset(m, 0, sizeof *m);
}

static void test_mark_then_compare(void **state)
{
    (void)state;
    session_mark_t m;
    fresh(ENGINE_STREAM, &m);
    char r[512];
    assert_int_equal(mark_compare(&m, &snap, r, sizeof r), GS_EINPUT);
    assert_non_null(strstr(r, "no mark"));
    assert_int_equal(mark_take(&m, &snap, r, sizeof r), GS_EINPUT);
    knob(0, "selective", "off");
    knob(1, "pipeline", "on");
    epoch(20.0, 400e6, 0, 1.5);
    assert_int_equal(mark_take(&m, &snap, r, sizeof r), GS_OK);
    assert_non_null(strstr(r, "epoch 1"));
    knob(0, "selective", "on");
    snap.nepochs = 0; /* the run restarted: no epoch since (found by fuzz_console) */
    assert_int_equal(mark_compare(&m, &snap, r, sizeof r), GS_EINPUT);
    assert_non_null(strstr(r, "no epoch has finished"));
    snap.nepochs = 1;
    epoch(10.0, 100e6, 50, 1.505); /* epoch 2x, h2d 4x, filtered from zero, loss +0.3% */
    assert_int_equal(mark_compare(&m, &snap, r, sizeof r), GS_OK);
    assert_non_null(strstr(r, "knobs: selective off -> on"));
    assert_null(strstr(r, "pipeline"));
    char *h2d = strstr(r, "h2d_bytes 400 MB -> 100 MB (4.00x)"), *ep = strstr(r, "epoch_ms 20 ms -> 10 ms (2.00x)");
    char *fb = strstr(r, "filtered_blocks 0 -> 50 (from zero)");
    assert_non_null(h2d);
    assert_non_null(ep);
    assert_non_null(fb);
    assert_true(h2d < ep && ep < fb);
    assert_null(strstr(r, "loss"));          /* under 1% */
    assert_null(strstr(r, "batch_copy_ms")); /* a sampled run's counter */
    char small[96];                           /* whole entries only */
    assert_int_equal(mark_compare(&m, &snap, small, sizeof small), GS_OK);
    assert_non_null(strstr(small, "knobs: selective off -> on"));
    assert_null(strstr(small, "epoch_ms"));
    assert_true(strlen(small) < sizeof small - 1 || small[strlen(small) - 1] == ')');
}

static void test_nothing_moved(void **state)
{
    (void)state;
    session_mark_t m;
    fresh(ENGINE_MEMORY, &m);
    char r[256];
    knob(0, "lr", "0.01");
    epoch(5.0, 0, 0, 1.0);
    assert_int_equal(mark_take(&m, &snap, r, sizeof r), GS_OK);
    epoch(5.02, 0, 0, 1.001);
    assert_int_equal(mark_compare(&m, &snap, r, sizeof r), GS_OK);
    assert_non_null(strstr(r, "knobs: none changed"));
    assert_non_null(strstr(r, "no counter moved by 1%"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mark_then_compare),
        cmocka_unit_test(test_nothing_moved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
