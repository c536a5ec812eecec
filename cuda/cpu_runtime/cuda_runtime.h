/* cuda_runtime.h (CPU test double) - the subset of the CUDA runtime that
 * the plugin (the .cu files of cuda/) uses, implemented on the host so the plugin's
 * own code runs where no GPU is (make test-cuda-cpu). It is a test double
 * for the runtime, NOT a GPU and NOT a performance model: nothing it
 * measures says anything about a real device.
 *
 * What it does: device memory is host memory with a per-device cap from a
 * chosen GPU model ($GNNSCOPE_CPU_GPU, $GNNSCOPE_CPU_GPU_MEM), every
 * allocation followed by a poisoned guard (ASan reports a device overrun
 * where it happens; without ASan, cudaFree checks the guard); copies,
 * memsets, host functions and kernel launches queue on in-order streams,
 * each run by its own host thread, so work on different streams really
 * overlaps and a missing event wait is a data race (TSan) or a wrong
 * result; kernels run as written, one emulated thread at a time per launch
 * with its own blockIdx/threadIdx; atomics are real atomics.
 * Limits: 1D-3D grids but no shared memory, warp intrinsics or barriers
 * (the plugin uses none); the legacy default stream (0) runs its work in
 * the caller after waiting for the blocking streams; pageable D2H copies
 * are synchronous as in CUDA, pageable H2D sources are staged at the call.
 * It answers only when GNNSCOPE_CUDA_TEST_DOUBLE=1, so a plugin built on it
 * never stands in for a GPU by accident. */
#ifndef GS_CPU_CUDA_RUNTIME_H
#define GS_CPU_CUDA_RUNTIME_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define CUDART_CB

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
} cudaError_t;

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
} cudaMemcpyKind;

#define cudaStreamDefault 0x0
#define cudaStreamNonBlocking 0x1
#define cudaEventDefault 0x0
#define cudaEventDisableTiming 0x2
#define cudaHostAllocDefault 0x0
#define cudaHostAllocPortable 0x1

typedef struct cpurt_stream *cudaStream_t;
typedef struct cpurt_event *cudaEvent_t;
typedef void (*cudaHostFn_t)(void *user);

struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
struct alignas(16) float4 {
    float x, y, z, w;
};

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    int multiProcessorCount, major, minor, maxThreadsPerBlock, warpSize;
    double memoryBandwidthGBs, fp32TFLOPs; /* the model's published figures (not a CUDA field) */
};

/* the emulated thread's coordinates within the running launch (the
 * initial-exec model: read on every index computation, they must not cost
 * a __tls_get_addr call each, as the dynamic model in a dlopen'ed library does) */
#define CPURT_TLS __attribute__((tls_model("initial-exec"))) __thread
extern CPURT_TLS uint3 blockIdx, threadIdx;
extern CPURT_TLS dim3 blockDim, gridDim;

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int dev);
cudaError_t cudaGetDevice(int *dev);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);

cudaError_t cudaMalloc(void **p, size_t bytes);
template <typename T> static inline cudaError_t cudaMalloc(T **p, size_t bytes) { return cudaMalloc((void **)p, bytes); }
cudaError_t cudaFree(void *p);
cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned flags);
cudaError_t cudaMallocHost(void **p, size_t bytes);
cudaError_t cudaFreeHost(void *p);

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind kind, cudaStream_t st = 0);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev, size_t n, cudaStream_t st = 0);
cudaError_t cudaMemsetAsync(void *p, int value, size_t n, cudaStream_t st = 0);
cudaError_t cudaMemset(void *p, int value, size_t n);

cudaError_t cudaStreamCreate(cudaStream_t *st);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *st, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t st);
cudaError_t cudaStreamSynchronize(cudaStream_t st);
cudaError_t cudaStreamWaitEvent(cudaStream_t st, cudaEvent_t ev, unsigned flags = 0);
cudaError_t cudaLaunchHostFunc(cudaStream_t st, cudaHostFn_t fn, void *user);

cudaError_t cudaEventCreate(cudaEvent_t *ev);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t ev);
cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t st = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t ev);
cudaError_t cudaEventQuery(cudaEvent_t ev);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

/* Queues body (one emulated thread; run grid x block times with the
 * coordinates set) on st; a bad configuration is the launch's error. When
 * the stream reaches it, reads_ok runs first: false fails the kernel as a
 * GPU's out-of-bounds read would (cudaErrorIllegalAddress) and skips it. */
void cpurt_enqueue_kernel(const char *name, dim3 grid, dim3 block, size_t shmem, cudaStream_t st, std::function<void()> body,
                          std::function<bool()> reads_ok);

/* A kernel's pointer must lie in memory a GPU kernel can reach: a live
 * device allocation or pinned host memory (up to one past its end), or be
 * NULL. Pageable host memory and freed blocks, where a GPU faults, work on
 * the CPU; this check makes such a launch fail here as it would there
 * (cudaErrorIllegalAddress, the kernel and argument named on stderr). A
 * structure passed by value names the pointers its kernel reads with an
 * overload of cpurt_arg_ok (cuda_common.h); other arguments pass. */
int cpurt_kernel_reachable(const void *p);
void cpurt_bad_kernel_arg(const char *name, int index);
template <typename T> static inline int cpurt_arg_ok(T *p) { return cpurt_kernel_reachable((const void *)p); }
template <typename T> static inline int cpurt_arg_ok(const T &) { return 1; }

/* Whether [p, p + bytes) lies inside one live device or pinned block. A
 * structure whose kernel reads by index (a chunk gather's edge lists)
 * overloads cpurt_reads_ok to check, when the kernel is about to run and
 * its indices have arrived, that every address it will read or write is
 * inside its buffer; a GPU faults (or silently reads a neighbour) there.
 * On failure it names the buffer on stderr (cpurt_bad_read). */
int cpurt_range_ok(const void *p, size_t bytes);
void cpurt_bad_read(const char *kernel, const char *what, const void *p, size_t bytes);
template <typename T> static inline int cpurt_reads_ok(const char *, const T &) { return 1; }

/* kernel<<<grid, block, shmem, st>>>(args...): the arguments are copied
 * now, as CUDA copies them at the launch, and converted to the kernel's
 * parameter types; a pointer a GPU could not dereference fails the launch. */
template <typename... P, typename... A>
static inline void cpurt_launch(const char *name, void (*kernel)(P...), dim3 grid, dim3 block, size_t shmem, cudaStream_t st,
                                A &&...args)
{
    static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong number of arguments");
    std::tuple<typename std::decay<P>::type...> copy(std::forward<A>(args)...);
    int bad = -1, at = 0;
    std::apply([&](const auto &...a) { ((bad = bad < 0 && !cpurt_arg_ok(a) ? at : bad, at++), ...); }, copy);
    if (bad >= 0) return cpurt_bad_kernel_arg(name, bad);
    auto reads_ok = [name, copy]() {
        return std::apply([name](const auto &...a) { return (... && cpurt_reads_ok(name, a)); }, copy);
    };
    cpurt_enqueue_kernel(name, grid, block, shmem, st, [kernel, copy]() { std::apply(kernel, copy); }, reads_ok);
}

/* atomics: real ones, on the host's memory model (relaxed, as CUDA's) */
template <typename T> static inline T cpurt_cas_add(T *p, T v)
{
    T old, want;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do want = old + v;
    while (!__atomic_compare_exchange(p, &old, &want, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return old;
}
static inline float atomicAdd(float *p, float v) { return cpurt_cas_add(p, v); }
static inline double atomicAdd(double *p, double v) { return cpurt_cas_add(p, v); }
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
static inline int atomicAdd(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }

#endif
