/* test_profiler.c - the SPSC ring under a real producer and consumer
 * thread (nothing lost or reordered when it has room, drops counted when
 * it has none), and the profiler's totals, history and trace output. */
/* run-under: asan tsan */
#include "test_util.h"

#include <pthread.h>

#include "profiler/profiler.h"

#define COUNT 200000

static prof_ring_t ring;

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 0; i < COUNT; i++) {
        prof_event_t e = {.t0 = (uint64_t)i};
        while (!prof_ring_push(&ring, &e)) {
        } /* spin: the consumer keeps up */
    }
    return NULL;
}

static void test_spsc_ring_threads(void **state)
{
    (void)state;
    assert_int_equal(prof_ring_init(&ring, 1000), 0);
    assert_int_equal(ring.mask, 1023);
    pthread_t th;
    pthread_create(&th, NULL, producer, NULL);
    uint64_t next = 0;
    prof_event_t e;
    while (next < COUNT)
        if (prof_ring_pop(&ring, &e)) {
            assert_int_equal(e.t0, next);
            next++;
        }
    pthread_join(th, NULL);
    assert_int_equal(prof_ring_pop(&ring, &e), 0);
    /* full ring: pushes fail and are counted, nothing blocks */
    size_t before = atomic_load(&ring.dropped);
    for (int i = 0; i < 1100; i++) prof_ring_push(&ring, &e);
    assert_int_equal(atomic_load(&ring.dropped) - before, 1100 - 1024);
    prof_ring_free(&ring);
}

static void test_profiler_totals_history_trace(void **state)
{
    (void)state;
    prof_t p;
    gs_err_t err;
    char *dir = tu_mkdtemp(), path[4200];
    snprintf(path, sizeof path, "%s/t.json", dir);
    assert_int_equal(prof_init(&p, &err), GS_OK);
    assert_int_equal(prof_trace_start(&p, path, &err), GS_OK);
    assert_int_equal(prof_trace_start(&p, path, &err), GS_EINPUT); /* one trace at a time */
    uint64_t t = prof_now_ns();
    for (int i = 0; i < 10; i++) {
        prof_event_t e = {t + (uint64_t)i * 1000, t + (uint64_t)i * 1000 + 500, 64, 0, (int16_t)(i % 2), 0, PL_H2D, PH_FWD, 0, i, 0, 0, "h2d"};
        prof_record(&p, &e);
    }
    prof_totals_t tot;
    prof_take_totals(&p, &tot);
    assert_int_equal(tot.events, 10);
    assert_true(tot.bytes[1][PL_H2D] == 5 * 64.0 && tot.bytes[2][PL_H2D] == 5 * 64.0);
    assert_true(tot.busy_s[1][PL_H2D] > 2.4e-6 && tot.busy_s[1][PL_H2D] < 2.6e-6);
    prof_take_totals(&p, &tot);
    assert_int_equal(tot.events, 0); /* taken totals reset */
    prof_event_t h[16];
    assert_int_equal(prof_history(&p, h, 16), 10);
    assert_int_equal(h[9].row, 9);
    assert_int_equal(prof_trace_stop(&p, &err), GS_OK);
    prof_shutdown(&p);
    char cmd[4400];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import json,sys; d=json.load(open('%s')); x=[e for e in d['traceEvents'] if e['ph']=='X'];"
             " sys.exit(0 if len(x)==10 and {e['pid'] for e in x}=={1,2} and x[0]['args']['row']==0 else 1)\"",
             path);
    assert_int_equal(system(cmd), 0);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spsc_ring_threads),
        cmocka_unit_test(test_profiler_totals_history_trace),
    };
    return cmocka_run_group_tests_name("profiler", tests, NULL, NULL);
}
