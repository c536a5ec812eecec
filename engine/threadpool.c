/* threadpool.c - see threadpool.h. Workers sleep on a condition variable
 * between loops; within a loop they grab grains with an atomic counter. */
#include "threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    pthread_t *workers;
    int nworkers;          /* threads besides the caller */
    uint64_t generation;   /* bumped for every loop */
    int active;            /* workers still inside the current loop */
    int stopping;
    gs_range_fn fn;
    void *ctx;
    int64_t n, grain;
    atomic_llong next;
    pthread_mutex_t run_lock; /* one loop at a time, whichever thread starts it */
} pool_t;

static pool_t pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
                      .run_lock = PTHREAD_MUTEX_INITIALIZER,
                      .wake = PTHREAD_COND_INITIALIZER,
                      .done = PTHREAD_COND_INITIALIZER};

static void run_grains(void)
{
    for (;;) {
        int64_t b = atomic_fetch_add(&pool.next, pool.grain);
        if (b >= pool.n) return;
        int64_t e = b + pool.grain < pool.n ? b + pool.grain : pool.n;
        pool.fn(pool.ctx, b, e);
    }
}

static void *worker_main(void *arg)
{
    (void)arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (!pool.stopping && pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.lock);
        if (pool.stopping) break;
        seen = pool.generation;
        pthread_mutex_unlock(&pool.lock);
        run_grains();
        pthread_mutex_lock(&pool.lock);
        if (--pool.active == 0) pthread_cond_signal(&pool.done);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

void gs_pool_shutdown(void)
{
    if (!pool.workers) return;
    pthread_mutex_lock(&pool.lock);
    pool.stopping = 1;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < pool.nworkers; i++) pthread_join(pool.workers[i], NULL);
    free(pool.workers);
    pool.workers = NULL;
    pool.nworkers = 0;
    pool.stopping = 0;
}

int gs_pool_init(int threads)
{
    if (threads < 1) threads = 1;
    if (pool.workers && pool.nworkers == threads - 1) return 0;
    gs_pool_shutdown();
    if (threads == 1) return 0;
    pool.workers = calloc((size_t)threads - 1, sizeof *pool.workers);
    if (!pool.workers) return -1;
    for (int i = 0; i < threads - 1; i++) {
        if (pthread_create(&pool.workers[i], NULL, worker_main, NULL) != 0) {
            pool.nworkers = i;
            gs_pool_shutdown();
            return -1;
        }
        pool.nworkers = i + 1;
    }
    return 0;
}

int gs_pool_threads(void) { return pool.nworkers + 1; }

void gs_parallel_for(int64_t n, int64_t grain, gs_range_fn fn, void *ctx)
{
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    if (pool.nworkers == 0 || n <= grain) {
        fn(ctx, 0, n);
        return;
    }
    pthread_mutex_lock(&pool.run_lock);
    pthread_mutex_lock(&pool.lock);
    pool.fn = fn;
    pool.ctx = ctx;
    pool.n = n;
    pool.grain = grain;
    atomic_store(&pool.next, 0);
    pool.active = pool.nworkers;
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    run_grains();
    pthread_mutex_lock(&pool.lock);
    while (pool.active > 0) pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.run_lock);
}
