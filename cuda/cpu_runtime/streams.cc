/* streams.cc - the CPU test double's streams, events, copies and launches
 * (cuda_runtime.h). Each stream is a queue run in order by its own host
 * thread; an event is a count of records and of completions, so a stream
 * that waits on one waits for the record made before the wait, as CUDA's.
 * Copies check their pointers against the kind (a host pointer where device
 * memory is expected is an invalid value, as on a GPU with unified
 * addressing). A launch runs the kernel once per emulated thread, block by
 * block, on its stream's thread. */
#include <string.h>

#include <chrono>
#include <memory>
#include <vector>

#include "internal.h"

/* ---------------- streams ---------------- */

static std::mutex registry_lock;
static std::vector<cudaStream_t> blocking; /* streams the legacy default stream synchronises with */
static std::vector<cudaStream_t> every;    /* every stream: cudaDeviceSynchronize waits for its device's */

static void stream_main(cudaStream_t s)
{
    std::unique_lock<std::mutex> g(s->lock);
    for (;;) {
        s->wake.wait(g, [s] { return s->stop || !s->queue.empty(); });
        if (s->queue.empty()) return; /* stopped and drained */
        std::function<void()> op = std::move(s->queue.front());
        s->queue.pop_front();
        s->running = true;
        g.unlock();
        op();
        g.lock();
        s->running = false;
        if (s->queue.empty()) s->idle.notify_all();
    }
}

void cpurt_drain(cudaStream_t st)
{
    if (!st) {
        std::lock_guard<std::mutex> r(registry_lock);
        for (cudaStream_t b : blocking) cpurt_drain(b);
        return;
    }
    std::unique_lock<std::mutex> g(st->lock);
    st->idle.wait(g, [st] { return st->queue.empty() && !st->running; });
}

void cpurt_enqueue(cudaStream_t st, std::function<void()> op)
{
    if (!st) { /* the legacy default stream: after the blocking streams, in the caller */
        cpurt_drain(NULL);
        op();
        return;
    }
    std::lock_guard<std::mutex> g(st->lock);
    st->queue.push_back(std::move(op));
    st->wake.notify_one();
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *st, unsigned flags)
{
    *st = NULL;
    if (cpurt_ready() != cudaSuccess) return cpurt_fail(cpurt_ready());
    if (flags & ~(unsigned)cudaStreamNonBlocking) return cpurt_fail(cudaErrorInvalidValue);
    cudaStream_t s = new cpurt_stream;
    s->dev = cpurt_current_device(), s->flags = flags;
    s->worker = std::thread(stream_main, s);
    {
        std::lock_guard<std::mutex> r(registry_lock);
        every.push_back(s);
        if (!(flags & cudaStreamNonBlocking)) blocking.push_back(s);
    }
    *st = s;
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *st) { return cudaStreamCreateWithFlags(st, cudaStreamDefault); }

cudaError_t cudaStreamDestroy(cudaStream_t st)
{
    if (!st) return cpurt_fail(cudaErrorInvalidResourceHandle);
    {
        std::lock_guard<std::mutex> r(registry_lock);
        for (std::vector<cudaStream_t> *v : {&blocking, &every})
            for (size_t i = 0; i < v->size(); i++)
                if ((*v)[i] == st) v->erase(v->begin() + (long)i);
    }
    { /* CUDA lets queued work finish after a destroy; so does this */
        std::lock_guard<std::mutex> g(st->lock);
        st->stop = true;
        st->wake.notify_one();
    }
    st->worker.join();
    delete st;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t st)
{
    cpurt_drain(st);
    return cpurt_sticky();
}

cudaError_t cudaDeviceSynchronize(void) /* every stream of the device, non-blocking ones too, as CUDA's */
{
    std::vector<cudaStream_t> mine;
    {
        std::lock_guard<std::mutex> r(registry_lock);
        for (cudaStream_t st : every)
            if (st->dev == cpurt_current_device()) mine.push_back(st);
    }
    for (cudaStream_t st : mine) cpurt_drain(st);
    return cpurt_sticky();
}

cudaError_t cudaLaunchHostFunc(cudaStream_t st, cudaHostFn_t fn, void *user)
{
    if (!fn) return cpurt_fail(cudaErrorInvalidValue);
    cpurt_enqueue(st, [fn, user] { fn(user); });
    return cudaSuccess;
}

/* ---------------- events ---------------- */

struct event_state {
    std::mutex lock;
    std::condition_variable done;
    uint64_t recorded = 0, completed = 0;
    std::chrono::steady_clock::time_point when;
};

struct cpurt_event {
    unsigned flags;
    int dev; /* made on this device: records go to its streams only */
    std::shared_ptr<event_state> s; /* queued records and waits keep it alive past a destroy */
};

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned flags)
{
    *ev = NULL;
    if (cpurt_ready() != cudaSuccess) return cpurt_fail(cpurt_ready());
    *ev = new cpurt_event{flags, cpurt_current_device(), std::make_shared<event_state>()};
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *ev) { return cudaEventCreateWithFlags(ev, cudaEventDefault); }

cudaError_t cudaEventDestroy(cudaEvent_t ev)
{
    if (!ev) return cpurt_fail(cudaErrorInvalidResourceHandle);
    delete ev;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t st)
{
    /* the event and the stream must belong to one device (its context) */
    if (!ev || (st && st->dev != ev->dev) || (!st && ev->dev != cpurt_current_device()))
        return cpurt_fail(cudaErrorInvalidResourceHandle);
    std::shared_ptr<event_state> s = ev->s;
    uint64_t seq;
    {
        std::lock_guard<std::mutex> g(s->lock);
        seq = ++s->recorded;
    }
    cpurt_enqueue(st, [s, seq] {
        std::lock_guard<std::mutex> g(s->lock);
        if (seq > s->completed) s->completed = seq, s->when = std::chrono::steady_clock::now();
        s->done.notify_all();
    });
    return cudaSuccess;
}

/* Blocks until the records made up to now have completed. */
static void event_wait(const std::shared_ptr<event_state> &s, uint64_t upto)
{
    std::unique_lock<std::mutex> g(s->lock);
    s->done.wait(g, [&] { return s->completed >= upto; });
}

cudaError_t cudaEventSynchronize(cudaEvent_t ev)
{
    if (!ev) return cpurt_fail(cudaErrorInvalidResourceHandle);
    uint64_t upto;
    {
        std::lock_guard<std::mutex> g(ev->s->lock);
        upto = ev->s->recorded;
    }
    event_wait(ev->s, upto);
    return cpurt_sticky();
}

cudaError_t cudaEventQuery(cudaEvent_t ev)
{
    if (!ev) return cpurt_fail(cudaErrorInvalidResourceHandle);
    std::lock_guard<std::mutex> g(ev->s->lock);
    return ev->s->completed >= ev->s->recorded ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    if (!a || !b || (a->flags | b->flags) & cudaEventDisableTiming) return cpurt_fail(cudaErrorInvalidResourceHandle);
    if (cudaEventQuery(a) != cudaSuccess || cudaEventQuery(b) != cudaSuccess) return cpurt_fail(cudaErrorNotReady);
    std::lock_guard<std::mutex> ga(a->s->lock);
    if (a != b) b->s->lock.lock();
    *ms = std::chrono::duration<float, std::milli>(b->s->when - a->s->when).count();
    if (a != b) b->s->lock.unlock();
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t st, cudaEvent_t ev, unsigned flags)
{
    if (!ev || flags) return cpurt_fail(!ev ? cudaErrorInvalidResourceHandle : cudaErrorInvalidValue);
    std::shared_ptr<event_state> s = ev->s;
    uint64_t upto;
    {
        std::lock_guard<std::mutex> g(s->lock);
        upto = s->recorded; /* the record made before this wait; later ones do not count */
    }
    cpurt_enqueue(st, [s, upto] { event_wait(s, upto); });
    return cudaSuccess;
}

/* ---------------- copies and memsets ---------------- */

/* Checks both ends of a copy against its kind; sets *pageable_src when a
 * host source is pageable (staged now) and *pageable_dst when a host
 * destination is (the call returns once the data is there). */
static cudaError_t check_copy(void *dst, const void *src, size_t n, cudaMemcpyKind kind, bool *pageable_src, bool *pageable_dst)
{
    mem_kind_t d = cpurt_classify(dst, n), s = cpurt_classify(src, n);
    if (d == MEM_BAD || s == MEM_BAD) return cudaErrorInvalidValue;
    bool dev_dst = d == MEM_DEVICE, dev_src = s == MEM_DEVICE;
    if (kind == cudaMemcpyDefault) kind = dev_src ? (dev_dst ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                                                  : (dev_dst ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    bool want_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool want_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (kind > cudaMemcpyDefault || dev_dst != want_dst || dev_src != want_src) return cudaErrorInvalidValue;
    *pageable_src = s == MEM_PAGEABLE, *pageable_dst = d == MEM_PAGEABLE;
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind kind, cudaStream_t st)
{
    if (cpurt_ready() != cudaSuccess) return cpurt_fail(cpurt_ready());
    if (n == 0) return cudaSuccess;
    bool pg_src = false, pg_dst = false;
    cudaError_t e = check_copy(dst, src, n, kind, &pg_src, &pg_dst);
    if (e != cudaSuccess) return cpurt_fail(e);
    if (pg_src) { /* staged now: the caller may reuse its buffer on return */
        std::shared_ptr<std::vector<char>> stage = std::make_shared<std::vector<char>>((const char *)src, (const char *)src + n);
        cpurt_enqueue(st, [dst, stage, n] { memcpy(dst, stage->data(), n); });
    } else {
        cpurt_enqueue(st, [dst, src, n] { memcpy(dst, src, n); });
    }
    if (pg_dst) cpurt_drain(st);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
    cudaError_t e = cudaMemcpyAsync(dst, src, n, kind, 0);
    return e;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev, size_t n, cudaStream_t st)
{
    int ndev = cpurt_device_count();
    if (dst_dev < 0 || dst_dev >= ndev || src_dev < 0 || src_dev >= ndev) return cpurt_fail(cudaErrorInvalidDevice);
    if (n && (cpurt_device_of(dst) != dst_dev || cpurt_device_of(src) != src_dev)) return cpurt_fail(cudaErrorInvalidValue);
    return cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, st);
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t n, cudaStream_t st)
{
    if (cpurt_ready() != cudaSuccess) return cpurt_fail(cpurt_ready());
    if (n == 0) return cudaSuccess;
    if (cpurt_classify(p, n) != MEM_DEVICE) return cpurt_fail(cudaErrorInvalidValue);
    cpurt_enqueue(st, [p, value, n] { memset(p, value, n); });
    return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int value, size_t n) { return cudaMemsetAsync(p, value, n, 0); }

/* ---------------- launches ---------------- */

void cpurt_enqueue_kernel(const char *name, dim3 grid, dim3 block, size_t shmem, cudaStream_t st, std::function<void()> body,
                          std::function<bool()> reads_ok)
{
    (void)name;
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (cpurt_ready() != cudaSuccess) {
        cpurt_fail(cpurt_ready());
        return;
    }
    if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 2147483647u ||
        grid.y > 65535 || grid.z > 65535 || shmem > 48 * 1024) {
        cpurt_fail(cudaErrorInvalidConfiguration);
        return;
    }
    if (st && st->dev != cpurt_current_device()) { /* a stream belongs to the device it was made on */
        cpurt_fail(cudaErrorInvalidResourceHandle);
        return;
    }
    cpurt_enqueue(st, [grid, block, body, reads_ok] {
        if (cpurt_sticky() != cudaSuccess) return; /* the context is lost: nothing more runs */
        if (!reads_ok()) {
            cpurt_fail_async(cudaErrorIllegalAddress);
            return;
        }
        gridDim = grid, blockDim = block;
        for (unsigned bz = 0; bz < grid.z; bz++)
            for (unsigned by = 0; by < grid.y; by++)
                for (unsigned bx = 0; bx < grid.x; bx++) {
                    blockIdx = uint3{bx, by, bz};
                    for (unsigned tz = 0; tz < block.z; tz++)
                        for (unsigned ty = 0; ty < block.y; ty++)
                            for (unsigned tx = 0; tx < block.x; tx++) {
                                threadIdx = uint3{tx, ty, tz};
                                body();
                            }
                }
    });
}
