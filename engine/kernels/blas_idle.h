/* blas_idle.h - OpenBLAS's worker threads made to idle as the engine's
 * own pool does. After a product, OpenBLAS's workers spin (sched_yield in
 * a loop) for 2^OPENBLAS_THREAD_TIMEOUT cycles before they sleep, 2^28 by
 * default (~0.1 s at 3 GHz), at normal priority, while the engine's pool
 * workers run at nice +5 (threadpool.c) and lose the core to them: over a
 * 25-epoch GCN run on a 120K-vertex graph (2 threads, this 2-core VM)
 * OpenBLAS's one worker took 1.25-2.1 s of CPU, 0.94-0.99 s with a
 * 2^20-cycle spin (~0.35 ms, like the pool's 0.2 ms). Limits: OpenBLAS reads its
 * environment once, when it is loaded, so the timeout is set and then its
 * workers restarted through OpenBLAS's own entry points, found by dlsym (a
 * BLAS without them is left alone); a timeout the user set is kept. Call
 * it first thing in main, before any thread of the program starts (it
 * calls setenv). */
#ifndef GS_BLAS_IDLE_H
#define GS_BLAS_IDLE_H

void gs_blas_idle_briefly(void);

#endif
