/* threadpool.h - a fixed pool of pthreads running parallel-for loops.
 * One loop runs at a time; the calling thread takes part. Work is handed
 * out in grains through an atomic counter, so skewed (power-law) rows
 * balance themselves. Loops started from several threads run one after
 * another. Not reentrant: a loop body must not start a loop.
 * Copy engines (the cpu backend's emulated DMA) run on host cores too: while
 * n of them are copying, the last n workers step out of the loop in flight,
 * so a copy overlaps a kernel as it would on a GPU instead of waiting for
 * the OS to give its thread a core. */
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

/* Brackets a copy engine's host work (memcpy), see above. */
void gs_pool_copy_begin(void);
void gs_pool_copy_end(void);
/* Lowers the calling thread below the copy engines (nice +5), so a copy
 * engine woken by an event gets a core at once; called by the pool's
 * workers and the virtual devices' compute streams. */
void gs_thread_compute_priority(void);
/* Gives the calling copy-engine thread a short scheduler slice (where the
 * kernel supports it), so it runs as soon as its event fires. */
void gs_thread_copy_priority(void);

#endif
