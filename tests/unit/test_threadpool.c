/* test_threadpool.c - the pool's parallel-for (base/threadpool.h): every
 * index of every loop runs exactly once whatever the sizes and grains,
 * the pool's workers asleep or spinning when a loop starts; nothing of a
 * loop runs after it returns (each loop's counters are freed at once, so
 * a worker that joined late and touched them would be a use after free
 * under ASan and a race under TSan); and a resize in between keeps that. */
/* run-under: asan tsan */
#include "test_util.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "base/threadpool.h"

typedef struct {
    atomic_int *hits;
    int64_t n;
} loop_t;

/* Counts each index after a little work (so a grain takes microseconds:
 * a worker still inside one when the loop returned would be seen). */
static void count_range(void *ctx, int64_t begin, int64_t end)
{
    loop_t *l = ctx;
    for (int64_t i = begin; i < end; i++) {
        volatile int spin = 0;
        for (int k = 0; k < 100; k++) spin += k;
        atomic_fetch_add_explicit(&l->hits[i], 1, memory_order_relaxed);
    }
}

/* Longer than the pool's spin (200 us): the workers go to sleep. */
static void let_workers_sleep(void)
{
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

/* One loop over n with `grain` on a fresh heap array, checked (the last
 * grains first: a worker's unfinished grain would be among them) and
 * freed as soon as the loop returns. */
static void run_loop(int64_t n, int64_t grain, const char *what)
{
    loop_t l = {calloc((size_t)(n ? n : 1), sizeof(atomic_int)), n};
    assert_non_null(l.hits);
    gs_parallel_for(n, grain, count_range, &l);
    for (int64_t i = n - 1; i >= 0; i--)
        if (atomic_load(&l.hits[i]) != 1) fail_msg("%s: n %lld grain %lld: index %lld ran %d times", what, (long long)n,
                                                   (long long)grain, (long long)i, atomic_load(&l.hits[i]));
    free(l.hits);
}

static void test_every_index_once(void **state)
{
    (void)state;
    for (int threads = 2; threads <= 3; threads++) {
        assert_int_equal(gs_pool_init(threads), 0);
        assert_int_equal(gs_pool_threads(), threads);
        uint64_t h = 5;
        for (int loop = 0; loop < 300; loop++) {
            h = h * 6364136223846793005ULL + 1442695040888963407ULL;
            int64_t n = (int64_t)(h >> 40) % 3000, grain = 1 + (int64_t)(h >> 20) % 64;
            if (loop % 7 == 0) let_workers_sleep(); /* the next loop starts with its workers halted */
            run_loop(n, grain, loop % 7 == 0 ? "after a sleep" : "back to back");
        }
        /* a loop of two grains right after a sleep: the caller may finish before a worker wakes */
        for (int loop = 0; loop < 50; loop++) {
            let_workers_sleep();
            run_loop(2, 1, "two grains");
        }
    }
    assert_int_equal(gs_pool_init(1), 0); /* one thread: the caller alone */
    run_loop(1000, 10, "one thread");
    assert_int_equal(gs_pool_init(2), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_index_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
