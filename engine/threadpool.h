/* threadpool.h - a fixed pool of pthreads running parallel-for loops.
 * One loop runs at a time; the calling thread takes part. Work is handed
 * out in grains through an atomic counter, so skewed (power-law) rows
 * balance themselves. Loops started from several threads run one after
 * another. Not reentrant: a loop body must not start a loop. */
#ifndef GS_THREADPOOL_H
#define GS_THREADPOOL_H

#include <stdint.h>

typedef void (*gs_range_fn)(void *ctx, int64_t begin, int64_t end);

/* Starts the pool with `threads` workers in total (>= 1, caller included).
 * Returns 0, or -1 if a thread could not be created. Idempotent resize. */
int gs_pool_init(int threads);
int gs_pool_threads(void);
void gs_pool_shutdown(void);

/* Runs fn over [0, n) in pieces of at most `grain`, across the pool. */
void gs_parallel_for(int64_t n, int64_t grain, gs_range_fn fn, void *ctx);

#endif
