/* stage_fill.cu - the host's side of a staged copy on several threads
 * (cuda_common.h). A copy between pageable host memory and the GPU goes
 * through a pinned staging buffer, filled or drained by a host function in
 * stream order (staging.cu); one thread's memcpy (about 4 GB/s on an
 * H200 host) then bounds every transfer, far under PCIe's 55 GB/s. Here the
 * host function hands each fill to a small pool of worker threads, which
 * split it (bytes, or listed rows) and copy their parts at once; the
 * calling host function waits for them, so stream order is unchanged.
 * Limits: one fill at a time (concurrent host functions of other streams
 * wait for the pool); fills under FILL_SPLIT_BYTES run on the caller alone;
 * the pool is sized once (half the cores, at most FILL_MAX_THREADS) and its
 * threads live until the process exits. No CUDA call is made here. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "cuda_common.h"

#define FILL_MAX_THREADS 8
#define FILL_SPLIT_BYTES (1u << 20)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t serve = PTHREAD_MUTEX_INITIALIZER; /* one fill at a time */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER, done_cv = PTHREAD_COND_INITIALIZER;
static int nthreads;      /* workers started, besides the caller */
static cu_fill_t cur;        /* the fill being served */
static int nparts, next_part, parts_done;
static uint64_t generation;

/* Part k of nparts of fill f. */
static void copy_part(const cu_fill_t *f, int k, int parts)
{
    if (!f->rows) {
        /* parts of whole 64-byte lines, rounded up so that they cover n */
        size_t step = ((f->n + (size_t)parts - 1) / (size_t)parts + 63) & ~(size_t)63, lo = step * (size_t)k;
        size_t hi = lo + step < f->n ? lo + step : f->n;
        if (lo < hi) memcpy((char *)f->dst + lo, (const char *)f->src + lo, hi - lo);
        return;
    }
    int64_t lo = f->nrows * k / parts, hi = f->nrows * (k + 1) / parts;
    for (int64_t r = lo; r < hi; r++)
        memcpy((char *)f->dst + (size_t)r * f->row_bytes, (const char *)f->src + (size_t)f->rows[r] * f->row_bytes, f->row_bytes);
}

/* Takes parts of the current fill until none is left; lock held on entry and exit. */
static void take_parts(void)
{
    while (next_part < nparts) {
        int k = next_part++;
        cu_fill_t f = cur;
        int parts = nparts;
        pthread_mutex_unlock(&lock);
        copy_part(&f, k, parts);
        pthread_mutex_lock(&lock);
        if (++parts_done == nparts) pthread_cond_broadcast(&done_cv);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (generation == seen) pthread_cond_wait(&work_cv, &lock);
        seen = generation;
        take_parts();
    }
    return NULL; /* not reached: the workers live as long as the process */
}

static void start_pool(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int want = cores > 1 ? (int)(cores / 2) : 0;
    if (want > FILL_MAX_THREADS) want = FILL_MAX_THREADS;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (int i = 0; i < want; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker, NULL) != 0) break;
        nthreads++;
    }
    pthread_attr_destroy(&attr);
}

void cu_fill(const cu_fill_t *f)
{
    size_t bytes = f->rows ? (size_t)f->nrows * f->row_bytes : f->n;
    pthread_once(&once, start_pool);
    if (nthreads == 0 || bytes < FILL_SPLIT_BYTES) {
        copy_part(f, 0, 1);
        return;
    }
    pthread_mutex_lock(&serve);
    pthread_mutex_lock(&lock);
    cur = *f, nparts = nthreads + 1, next_part = 0, parts_done = 0;
    generation++;
    pthread_cond_broadcast(&work_cv);
    take_parts(); /* the caller works too */
    while (parts_done < nparts) pthread_cond_wait(&done_cv, &lock);
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&serve);
}
