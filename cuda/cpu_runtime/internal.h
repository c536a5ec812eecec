/* internal.h - what the CPU test double's files share (cuda_runtime.h):
 * the error bookkeeping, the memory registry that tells device memory from
 * host memory, and the streams' queue. Not seen by the plugin. */
#ifndef GS_CPURT_INTERNAL_H
#define GS_CPURT_INTERNAL_H

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "cuda_runtime.h"

#define CPURT_MAX_DEV 16

/* Sets the calling thread's last error (cudaGetLastError) and returns e. */
cudaError_t cpurt_fail(cudaError_t e);
/* A kernel's fault: sticky, returned by every later synchronisation. */
void cpurt_fail_async(cudaError_t e);
cudaError_t cpurt_sticky(void);
/* 0 when the double may answer (GNNSCOPE_CUDA_TEST_DOUBLE=1), else why not. */
cudaError_t cpurt_ready(void);
int cpurt_device_count(void);
int cpurt_current_device(void);

/* Where a pointer range lies. */
typedef enum { MEM_PAGEABLE, MEM_PINNED, MEM_DEVICE, MEM_BAD } mem_kind_t;
/* MEM_DEVICE when [p, p + n) lies inside one live device allocation,
 * MEM_BAD when it starts in one and runs past its end, MEM_PINNED for a
 * live pinned block, else MEM_PAGEABLE. */
mem_kind_t cpurt_classify(const void *p, size_t n);
/* The device whose allocation holds p, or -1 (host memory, pinned or not). */
int cpurt_device_of(const void *p);

/* An in-order queue run by its own thread (cudaStream_t). */
struct cpurt_stream {
    int dev;
    unsigned flags;
    std::mutex lock;
    std::condition_variable wake, idle;
    std::deque<std::function<void()>> queue;
    bool running = false, stop = false;
    std::thread worker;
};
/* Queues op on st (the legacy default stream 0 runs it now, in the
 * caller, after the blocking streams have drained). */
void cpurt_enqueue(cudaStream_t st, std::function<void()> op);
/* Waits until st has run everything queued so far. */
void cpurt_drain(cudaStream_t st);

#endif
