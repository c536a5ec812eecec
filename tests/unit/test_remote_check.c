/* test_remote_check.c - what a remote frame may hold (app/remote_check.h)
 * and how frames are taken (app/remote_wire.h): the snapshots, events and
 * window of real runs (in memory, streamed over two devices, with a trace
 * of events) pass; each field a hostile peer could break (a count past its
 * array, an enum past its table, a string without its NUL or with an
 * escape byte, a configuration value no option accepts, a non-finite time)
 * is refused with the field named; requests are held to their kinds'
 * sizes; a header claiming more than its kind may carry is refused before
 * any payload is read, and a frame fed a byte at a time is the frame. */
/* run-under: asan tsan */
#include "test_util.h"

#include <math.h>
#include <time.h>

#include "app/remote_check.h"
#include "app/remote_wire.h"
#include "app/session.h"

static tu_gen_t gen;

static int setup(void **state)
{
    (void)state;
    gen_params_t p = {.nodes = 300, .avg_degree = 6, .feats = 8, .classes = 3, .seed = 4};
    return tu_gen_setup(&gen, &p);
}

static int teardown(void **state)
{
    (void)state;
    tu_gen_cleanup(&gen);
    return 0;
}

/* A session of cfg after two epochs: its snapshot, events and window. */
static void run_two(const train_cfg_t *cfg, session_snapshot_t *snap, prof_event_t *ev, int *nev, prof_window_t *w)
{
    session_t s;
    gs_err_t err;
    char r[512];
    if (session_open(&s, cfg, NULL, 0, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
    for (int i = 0; i < 3000; i++) {
        session_snapshot(&s, snap);
        if (snap->nepochs >= 2 || snap->failed) break;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(session_command(&s, "pause", r, sizeof r), 0);
    session_snapshot(&s, snap);
    assert_false(snap->failed);
    assert_true(snap->nepochs >= 2);
    *nev = prof_history(&s.prof, ev, PROF_HISTORY);
    prof_get_window(&s.prof, w);
    session_command(&s, "quit", r, sizeof r);
    session_close(&s);
}

static void expect_refused(const session_snapshot_t *bad, const char *names)
{
    char why[300];
    assert_int_equal(snapshot_check(bad, why, sizeof why), -1);
    if (!strstr(why, names)) fail_msg("refused for '%s', expected '%s'", why, names);
}

/* Breaks one field of a copy of good at a time: each is refused, naming it. */
static void mutations_refused(const session_snapshot_t *good)
{
    static session_snapshot_t b;
    b = *good, b.nepochs = SESSION_HISTORY + 1, expect_refused(&b, "epochs");
    b = *good, b.nepochs = -1, expect_refused(&b, "epochs");
    b = *good, b.nknobs = SESSION_MAX_KNOBS + 1, expect_refused(&b, "knobs");
    b = *good, b.nlinks = TOPO_MAX_LINKS + 1, expect_refused(&b, "links");
    b = *good, b.kind.devices = PROF_MAX_DEV, expect_refused(&b, "devices");
    b = *good, b.kind.driver = (driver_kind_t)7, expect_refused(&b, "driver");
    b = *good, b.parts.shown = PART_REPORT_MAX + 1, b.parts.p = 99, expect_refused(&b, "parts");
    b = *good, memset(b.dataset, 'A', sizeof b.dataset), expect_refused(&b, "name or message");
    b = *good, snprintf(b.error, sizeof b.error, "\033[2J"), expect_refused(&b, "control bytes");
    b = *good, memset(b.knobs[0].value, 'x', sizeof b.knobs[0].value), expect_refused(&b, "knob 0");
    b = *good, b.cfg.dkp = (dkp_mode_t)99, expect_refused(&b, "dkp");
    b = *good, b.cfg.knobs.multidev = (multidev_t)-1, expect_refused(&b, "multidev");
    b = *good, b.cfg.fanout.n = OPT_LIST_MAX + 1, expect_refused(&b, "fanout");
    b = *good, b.cfg.lr = NAN, expect_refused(&b, "lr");
    b = *good, memset(b.cfg.model, 'g', sizeof b.cfg.model), expect_refused(&b, "model");
    b = *good, b.cfg.device = (device_kind_t)5, expect_refused(&b, "device");
    b = *good, b.epochs[b.nepochs - 1].epoch_ms = INFINITY, expect_refused(&b, "epoch record");
    b = *good, b.failed = 2, expect_refused(&b, "state flag");
}

static void test_real_runs_pass_and_broken_fields_do_not(void **state)
{
    (void)state;
    static session_snapshot_t snap;
    static prof_event_t ev[PROF_HISTORY];
    prof_window_t w;
    int nev;
    char why[300];
    train_cfg_t cfg;
    train_cfg_defaults(&cfg);
    snprintf(cfg.dataset, sizeof cfg.dataset, "%s", gen.data_dir);
    cfg.threads = 2;
    for (int streamed = 0; streamed < 2; streamed++) {
        cfg.stream = streamed, cfg.devices = 2, cfg.chunks = 2, cfg.links_native = !streamed;
        if (streamed) snprintf(cfg.topology, sizeof cfg.topology, "pcie-4gpu-2switch");
        run_two(&cfg, &snap, ev, &nev, &w);
        if (snapshot_check(&snap, why, sizeof why)) fail_msg("a real snapshot refused: %s", why);
        if (streamed) assert_true(nev > 0);
        for (int i = 0; i < nev; i++)
            if (prof_event_check(&ev[i], why, sizeof why)) fail_msg("a real event refused: %s", why);
        assert_int_equal(remote_decode_window((const char *)&w, sizeof w, &w, why, sizeof why), 0);
        assert_true(snap.nknobs > 0);
        mutations_refused(&snap);
    }
    prof_event_t e = ev[0];
    e.device = PROF_MAX_DEV, assert_int_equal(prof_event_check(&e, why, sizeof why), -1);
    e = ev[0], e.lane = PL__COUNT, assert_int_equal(prof_event_check(&e, why, sizeof why), -1);
    e = ev[0], e.t1 = e.t0 - 1, assert_int_equal(prof_event_check(&e, why, sizeof why), -1);
    e = ev[0], memset(e.op, 'z', sizeof e.op), assert_int_equal(prof_event_check(&e, why, sizeof why), -1);
    w.busy[1][0] = 1.5, assert_int_equal(remote_decode_window((const char *)&w, sizeof w, &w, why, sizeof why), -1);
}

static void test_requests_and_replies_sized_by_kind(void **state)
{
    (void)state;
    char why[200], buf[16] = {0};
    assert_int_equal(remote_check_request(K_EVENTS, buf, 8, why, sizeof why), 0);
    assert_int_equal(remote_check_request(K_EVENTS, buf, 7, why, sizeof why), -1);
    assert_int_equal(remote_check_request(K_SNAPSHOT, buf, 1, why, sizeof why), -1);
    assert_int_equal(remote_check_request(K_COMMAND, "step", 4, why, sizeof why), 0);
    assert_int_equal(remote_check_request(K_COMMAND, "st\0p", 4, why, sizeof why), -1);
    assert_int_equal(remote_check_request(K__COUNT, buf, 0, why, sizeof why), -1);
    int32_t rc;
    char text[64];
    assert_int_equal(remote_decode_command("\0\0\0\0fine", 8, &rc, text, sizeof text, why, sizeof why), 0);
    assert_string_equal(text, "fine");
    assert_int_equal(remote_decode_command("\0\0\0\0\033[2J", 8, &rc, text, sizeof text, why, sizeof why), -1);
    assert_int_equal(remote_decode_command("\0\0", 2, &rc, text, sizeof text, why, sizeof why), -1);
    uint64_t seq;
    uint32_t k;
    static prof_event_t out[PROF_HISTORY];
    char head[12] = {0};
    uint32_t claim = PROF_HISTORY + 1;
    memcpy(head + 8, &claim, 4);
    assert_int_equal(remote_decode_events(head, sizeof head, &seq, out, &k, why, sizeof why), -1);
    claim = 0, memcpy(head + 8, &claim, 4);
    assert_int_equal(remote_decode_events(head, sizeof head, &seq, out, &k, why, sizeof why), 0);
    assert_int_equal(k, 0);
}

/* The header of a frame: magic "GSRP", kind, length (little-endian). */
static void head(unsigned char *h, uint32_t kind, uint64_t len)
{
    uint32_t magic = 0x47535250u;
    memcpy(h, &magic, 4), memcpy(h + 4, &kind, 4), memcpy(h + 8, &len, 8);
}

static void test_frames_checked_before_their_payload(void **state)
{
    (void)state;
    wire_rx_t rx;
    char why[200];
    size_t used;
    unsigned char f[16 + 4];
    /* a request claiming 64 MiB: refused at its header */
    wire_rx_init(&rx, WIRE_REQUEST);
    head(f, K_COMMAND, (uint64_t)64 << 20);
    assert_int_equal(wire_rx_feed(&rx, f, 16, &used, why, sizeof why), WIRE_BAD);
    assert_non_null(strstr(why, "claims 67108864 bytes"));
    wire_rx_free(&rx);
    /* a snapshot reply may be a snapshot's size, a request for one carries nothing */
    assert_int_equal(wire_max_payload(WIRE_REPLY, K_SNAPSHOT), sizeof(session_snapshot_t));
    assert_int_equal(wire_max_payload(WIRE_REQUEST, K_SNAPSHOT), 0);
    /* a frame fed a byte at a time, with the next frame's bytes behind it */
    wire_rx_init(&rx, WIRE_REQUEST);
    head(f, K_COMMAND, 4), memcpy(f + 16, "step", 4);
    unsigned char two[40];
    memcpy(two, f, 20), memcpy(two + 20, f, 20);
    int st = WIRE_MORE, at = 0;
    while (st == WIRE_MORE) {
        assert_true(rx.have == 0 || wire_rx_started(&rx));
        st = wire_rx_feed(&rx, two + at, 1, &used, why, sizeof why);
        at += (int)used;
    }
    assert_int_equal(st, WIRE_FRAME);
    assert_int_equal(at, 20); /* nothing of the next frame taken */
    assert_int_equal(rx.kind, K_COMMAND);
    assert_string_equal(rx.payload, "step");
    wire_rx_next(&rx);
    assert_int_equal(wire_rx_feed(&rx, two + 20, 20, &used, why, sizeof why), WIRE_FRAME);
    wire_rx_free(&rx);
    /* a wrong magic and an unknown kind */
    wire_rx_init(&rx, WIRE_REPLY);
    memset(f, 'A', 16);
    assert_int_equal(wire_rx_feed(&rx, f, 16, &used, why, sizeof why), WIRE_BAD);
    wire_rx_free(&rx);
    wire_rx_init(&rx, WIRE_REPLY);
    head(f, K__COUNT, 0);
    assert_int_equal(wire_rx_feed(&rx, f, 16, &used, why, sizeof why), WIRE_BAD);
    wire_rx_free(&rx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_runs_pass_and_broken_fields_do_not),
        cmocka_unit_test(test_requests_and_replies_sized_by_kind),
        cmocka_unit_test(test_frames_checked_before_their_payload),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
