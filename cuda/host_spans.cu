/* host_spans.cu - the streaming backend's spans when CUPTI is unavailable
 * (no libcupti in a container, another profiler attached): a host function
 * queued before a piece of work and one queued after it stamp
 * CLOCK_MONOTONIC as the stream reaches them, so the span is when its
 * stream started and finished the work. Coarser than CUPTI's device clocks
 * (each stamp lags by the driver's host-callback latency, microseconds),
 * but busy times, the swap heuristic's profile and the timeline keep
 * working. Sinks are called one at a time, as CUPTI's flush thread calls
 * them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.h"
#include "base/mono_clock.h"

struct host_span {
    gpu_span_t span;
    gpu_span_hook_t sink;
    void *user;
};

static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;

static void CUDART_CB stamp_start(void *p) { ((host_span_t *)p)->span.t0 = gs_mono_s(); }

static void CUDART_CB stamp_end(void *p)
{
    host_span_t *s = (host_span_t *)p;
    s->span.t1 = gs_mono_s();
    pthread_mutex_lock(&sink_lock);
    s->sink(s->user, &s->span);
    pthread_mutex_unlock(&sink_lock);
    free(s);
}

host_span_t *cu_span_open(cudaStream_t st, int dev, lane_t lane, chunk_tag_t tag, const char *name, double bytes,
                          gpu_span_hook_t sink, void *user)
{
    host_span_t *s = (host_span_t *)calloc(1, sizeof *s);
    if (!s) return NULL; /* the span is lost, the work is not */
    s->span.dev = dev, s->span.lane = lane, s->span.tag = tag, s->span.bytes = bytes;
    snprintf(s->span.name, sizeof s->span.name, "%s", name);
    s->sink = sink, s->user = user;
    if (cudaLaunchHostFunc(st, stamp_start, s) != cudaSuccess) {
        cudaGetLastError();
        free(s);
        return NULL;
    }
    return s;
}

void cu_span_close(cudaStream_t st, host_span_t *s)
{
    if (s && cudaLaunchHostFunc(st, stamp_end, s) != cudaSuccess) {
        cudaGetLastError(); /* stamp_start is queued and reads s: it cannot be freed here; the span leaks */
    }
}
