/* threadpool.c - see threadpool.h. Between loops a worker spins for up to
 * SPIN_S, then sleeps on a condition variable; the loop's caller waits for
 * the workers the same way. The spin matters on a VM: an idle vCPU halts,
 * and waking it took up to ~0.4 ms on the 2-vCPU machine the roofline
 * report runs on (a 0.4 ms loop then ran on one thread). A spin gives way
 * at once to a copy engine (they get cores first), and there is none when
 * the host's MPI ranks (OMPI_COMM_WORLD_LOCAL_SIZE or MPI_LOCALNRANKS) times
 * the threads exceed its CPUs: a spinning rank would hold a core another
 * rank needs. Within a loop the threads grab grains with an atomic
 * counter. A worker joins a loop only while its caller still has grains to
 * run: once the caller's own share is done it closes the loop and waits
 * for the workers inside, not for one still waking (a small loop then runs
 * on the caller alone instead of waiting out a halted vCPU). */
#include "threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mono_clock.h"

#define LOOP_CLOSED (1LL << 40)
#define SPIN_S 200e-6 /* longer than an op's gap in a training epoch; short against a run's idle time */

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    pthread_t *workers;
    int nworkers;          /* threads besides the caller */
    uint64_t generation;   /* bumped for every loop (written under lock, atomically: spinners read it) */
    atomic_llong in_loop;  /* workers inside the current loop, plus LOOP_CLOSED once its caller closed it */
    int stopping;          /* (the same) */
    gs_range_fn fn;
    void *ctx;
    int64_t n, grain;
    atomic_llong next;
    atomic_int copying;    /* copy engines at work (they get cores first) */
    pthread_mutex_t copy_lock;
    pthread_cond_t copy_done;
    pthread_mutex_t run_lock; /* one loop at a time, whichever thread starts it */
    int spin;                 /* spin before sleeping (set by gs_pool_init) */
} pool_t;

static pool_t pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
                      .run_lock = PTHREAD_MUTEX_INITIALIZER,
                      .copy_lock = PTHREAD_MUTEX_INITIALIZER,
                      .copy_done = PTHREAD_COND_INITIALIZER,
                      .wake = PTHREAD_COND_INITIALIZER,
                      .done = PTHREAD_COND_INITIALIZER};

/* A worker whose core a copy engine holds sleeps until the copy is done
 * (or the loop has no grains left), then rejoins the loop. */
static void pause_for_copies(int worker)
{
    pthread_mutex_lock(&pool.copy_lock);
    while (worker >= pool.nworkers - atomic_load(&pool.copying) && atomic_load(&pool.next) < pool.n)
        pthread_cond_wait(&pool.copy_done, &pool.copy_lock);
    pthread_mutex_unlock(&pool.copy_lock);
}

/* One step of a bounded spin: 0 once SPIN_S has passed since t0 or a copy
 * engine wants a core, then the caller sleeps instead. */
static int keep_spinning(int64_t step, double t0)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (!pool.spin || atomic_load_explicit(&pool.copying, memory_order_relaxed) > 0) return 0;
    return step % 64 != 0 || gs_mono_s() - t0 < SPIN_S;
}

/* worker = -1 for the loop's caller, which never steps out. */
static void run_grains(int worker)
{
    for (;;) {
        if (worker >= 0 && worker >= pool.nworkers - atomic_load_explicit(&pool.copying, memory_order_relaxed))
            pause_for_copies(worker);
        int64_t b = atomic_fetch_add(&pool.next, pool.grain);
        if (b >= pool.n) return;
        int64_t e = b + pool.grain < pool.n ? b + pool.grain : pool.n;
        pool.fn(pool.ctx, b, e);
    }
}

/* Enters the current loop unless its caller has closed it (then the
 * worker has nothing to do there and waits for the next one). */
static int join_loop(void)
{
    long long w = atomic_load(&pool.in_loop);
    while (!(w & LOOP_CLOSED))
        if (atomic_compare_exchange_weak(&pool.in_loop, &w, w + 1)) return 1;
    return 0;
}

static void *worker_main(void *arg)
{
    int worker = (int)(intptr_t)arg;
    gs_thread_compute_priority();
    uint64_t seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        pthread_mutex_unlock(&pool.lock);
        double t0 = gs_mono_s();
        for (int64_t i = 1; __atomic_load_n(&pool.generation, __ATOMIC_ACQUIRE) == seen &&
                            !__atomic_load_n(&pool.stopping, __ATOMIC_RELAXED) && keep_spinning(i, t0);
             i++) {
        }
        pthread_mutex_lock(&pool.lock);
        while (!pool.stopping && pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.lock);
        if (pool.stopping) break;
        seen = pool.generation;
        pthread_mutex_unlock(&pool.lock);
        if (join_loop()) {
            run_grains(worker);
            int last = atomic_fetch_sub(&pool.in_loop, 1) == (LOOP_CLOSED | 1);
            pthread_mutex_lock(&pool.lock);
            if (last) pthread_cond_signal(&pool.done);
        } else
            pthread_mutex_lock(&pool.lock);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

void gs_pool_shutdown(void)
{
    if (!pool.workers) return;
    pthread_mutex_lock(&pool.lock);
    __atomic_store_n(&pool.stopping, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < pool.nworkers; i++) pthread_join(pool.workers[i], NULL);
    free(pool.workers);
    pool.workers = NULL;
    pool.nworkers = 0;
    __atomic_store_n(&pool.stopping, 0, __ATOMIC_RELAXED);
}

/* Whether this process's threads fit the host's CPUs beside its other ranks. */
static int spin_fits(int threads)
{
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (!local) local = getenv("MPI_LOCALNRANKS");
    long ranks = local ? strtol(local, NULL, 10) : 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return (ranks < 1 ? 1 : ranks) * threads <= cpus;
}

int gs_pool_init(int threads)
{
    if (threads < 1) threads = 1;
    if (pool.workers && pool.nworkers == threads - 1) return 0;
    gs_pool_shutdown();
    pool.spin = spin_fits(threads); /* no worker runs */
    if (threads == 1) return 0;
    pool.workers = calloc((size_t)threads - 1, sizeof *pool.workers);
    if (!pool.workers) return -1;
    for (int i = 0; i < threads - 1; i++) {
        if (pthread_create(&pool.workers[i], NULL, worker_main, (void *)(intptr_t)i) != 0) {
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
    atomic_store(&pool.in_loop, 0);
    __atomic_store_n(&pool.generation, pool.generation + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    run_grains(-1);
    if (atomic_load(&pool.copying) > 0) { /* no grains left: wake workers paused for a copy */
        pthread_mutex_lock(&pool.copy_lock);
        pthread_cond_broadcast(&pool.copy_done);
        pthread_mutex_unlock(&pool.copy_lock);
    }
    atomic_fetch_or(&pool.in_loop, LOOP_CLOSED); /* a worker not yet inside stays out */
    double t0 = gs_mono_s();
    for (int64_t i = 1; atomic_load(&pool.in_loop) != LOOP_CLOSED && keep_spinning(i, t0); i++) {
    }
    pthread_mutex_lock(&pool.lock);
    while (atomic_load(&pool.in_loop) != LOOP_CLOSED) pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.run_lock);
}

void gs_pool_copy_begin(void) { atomic_fetch_add(&pool.copying, 1); }
void gs_pool_copy_end(void)
{
    pthread_mutex_lock(&pool.copy_lock);
    atomic_fetch_sub(&pool.copying, 1);
    pthread_cond_broadcast(&pool.copy_done);
    pthread_mutex_unlock(&pool.copy_lock);
}

void gs_thread_compute_priority(void)
{
    /* Raising one's own nice value needs no privilege; failure only costs overlap. */
    pid_t tid = (pid_t)syscall(SYS_gettid);
    int cur = getpriority(PRIO_PROCESS, (id_t)tid);
    if (cur < 19) (void)setpriority(PRIO_PROCESS, (id_t)tid, cur + 5 > 19 ? 19 : cur + 5);
}

/* sched_setattr's argument (linux/sched/types.h); glibc 2.36 has no wrapper. */
struct gs_sched_attr {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
    uint32_t sched_util_min, sched_util_max;
};

void gs_thread_copy_priority(void)
{
#ifdef SYS_sched_setattr
    /* EEVDF (Linux >= 6.12) takes sched_runtime as the thread's time slice:
     * a short slice gives the woken copy engine an early deadline, so it
     * preempts a kernel at once. Older kernels refuse it; nothing else changes. */
    struct gs_sched_attr a = {.size = sizeof a, .sched_policy = 0 /* SCHED_OTHER */, .sched_runtime = 100000};
    (void)syscall(SYS_sched_setattr, 0, &a, 0);
#endif
    /* the link model sleeps until a copy's modeled end: wake on time, not up
     * to 50 us late (the default timer slack) */
    (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
}
