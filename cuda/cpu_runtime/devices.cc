/* devices.cc - the CPU test double's devices, errors and memory
 * (cuda_runtime.h): GPU models by name, a per-device cap, and a registry of
 * every allocation so copies can tell device memory from host memory and
 * refuse a bad pointer as the runtime does. Each device block is followed
 * by a guard: poisoned for ASan, checked by cudaFree otherwise. Fresh
 * device memory is filled with 0xff bytes (NaN as floats), so a read of
 * memory nothing wrote shows, as it may on a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <iterator>
#include <map>

#include "internal.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define GUARD 64
#define GUARD_BYTE 0xa5

CPURT_TLS uint3 blockIdx, threadIdx;
CPURT_TLS dim3 blockDim, gridDim;

typedef struct {
    const char *key, *name;
    double mem_gib;
    int sms, major, minor;
    double bw_GBs, tflops;
} gpu_model_t;

/* published figures of each model's PCIe (or its only) variant */
static const gpu_model_t models[] = {
    {"p100", "Tesla P100-PCIE-16GB", 16, 56, 6, 0, 732, 9.3},
    {"v100", "Tesla V100-PCIE-16GB", 16, 80, 7, 0, 900, 14.0},
    {"t4", "Tesla T4", 16, 40, 7, 5, 320, 8.1},
    {"rtx3090", "NVIDIA GeForce RTX 3090", 24, 82, 8, 6, 936, 35.6},
    {"a100", "NVIDIA A100-PCIE-40GB", 40, 108, 8, 0, 1555, 19.5},
    {"h100", "NVIDIA H100 PCIe", 80, 114, 9, 0, 2000, 51.2},
};

static struct {
    std::once_flag once;
    cudaError_t ready;
    const gpu_model_t *model;
    int ndev;
    size_t cap;
    std::mutex lock; /* the registry and the use counts */
    std::map<uintptr_t, struct block_t> *blocks;
    size_t used[CPURT_MAX_DEV];
} rt;

struct block_t {
    size_t n;
    int dev; /* -1: pinned host memory */
};

static CPURT_TLS cudaError_t last_error = cudaSuccess;
static CPURT_TLS int current_dev = 0;

cudaError_t cpurt_fail(cudaError_t e)
{
    if (e != cudaSuccess) last_error = e;
    return e;
}

/* A fault inside a kernel, as a GPU's: sticky for the process (every
 * synchronising call and every later kernel sees it). */
static std::atomic<int> sticky_error{cudaSuccess};

void cpurt_fail_async(cudaError_t e)
{
    int none = cudaSuccess;
    sticky_error.compare_exchange_strong(none, (int)e);
}

cudaError_t cpurt_sticky(void) { return (cudaError_t)sticky_error.load(); }

static void setup(void)
{
    const char *on = getenv("GNNSCOPE_CUDA_TEST_DOUBLE"), *gpu = getenv("GNNSCOPE_CPU_GPU"), *mem = getenv("GNNSCOPE_CPU_GPU_MEM");
    const char *count = getenv("GNNSCOPE_CPU_GPUS");
    rt.blocks = new std::map<uintptr_t, block_t>();
    rt.ready = on && !strcmp(on, "1") ? cudaSuccess : cudaErrorNoDevice;
    rt.model = &models[1];
    for (const gpu_model_t &m : models)
        if (gpu && !strcmp(gpu, m.key)) rt.model = &m;
    if (gpu && strcmp(gpu, rt.model->key)) {
        fprintf(stderr, "gnnscope: GNNSCOPE_CPU_GPU=%s: not a GPU model of the CPU test double (p100 v100 t4 rtx3090 a100 h100)\n", gpu);
        rt.ready = cudaErrorInitializationError;
    }
    rt.cap = (size_t)(rt.model->mem_gib * 1073741824.0);
    char *end = NULL;
    if (mem && *mem) {
        unsigned long long v = strtoull(mem, &end, 10);
        if (*end || v == 0) {
            fprintf(stderr, "gnnscope: GNNSCOPE_CPU_GPU_MEM=%s: not a positive number of bytes\n", mem);
            rt.ready = cudaErrorInitializationError;
        }
        rt.cap = (size_t)v;
    }
    rt.ndev = 1;
    if (count && *count) {
        long v = strtol(count, &end, 10);
        if (*end || v < 1 || v > CPURT_MAX_DEV) {
            fprintf(stderr, "gnnscope: GNNSCOPE_CPU_GPUS=%s: not a count from 1 to %d\n", count, CPURT_MAX_DEV);
            rt.ready = cudaErrorInitializationError;
        }
        rt.ndev = (int)v;
    }
}

cudaError_t cpurt_ready(void)
{
    std::call_once(rt.once, setup);
    return rt.ready;
}

int cpurt_device_count(void) { return cpurt_ready() == cudaSuccess ? rt.ndev : 0; }
int cpurt_current_device(void) { return current_dev; }

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 0;
    if (cpurt_ready() != cudaSuccess) return cpurt_fail(rt.ready);
    *count = rt.ndev;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int dev)
{
    if (cpurt_ready() != cudaSuccess) return cpurt_fail(rt.ready);
    if (dev < 0 || dev >= rt.ndev) return cpurt_fail(cudaErrorInvalidDevice);
    current_dev = dev;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *dev)
{
    *dev = current_dev;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev)
{
    if (cpurt_ready() != cudaSuccess) return cpurt_fail(rt.ready);
    if (dev < 0 || dev >= rt.ndev) return cpurt_fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s (CPU test double, not a GPU)", rt.model->name);
    p->totalGlobalMem = rt.cap;
    p->multiProcessorCount = rt.model->sms, p->major = rt.model->major, p->minor = rt.model->minor;
    p->maxThreadsPerBlock = 1024, p->warpSize = 32;
    p->memoryBandwidthGBs = rt.model->bw_GBs, p->fp32TFLOPs = rt.model->tflops;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    if (cpurt_ready() != cudaSuccess) return cpurt_fail(rt.ready);
    std::lock_guard<std::mutex> g(rt.lock);
    *total_bytes = rt.cap, *free_bytes = rt.cap - rt.used[current_dev];
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e != cudaSuccess ? e : cpurt_sticky();
}

cudaError_t cudaPeekAtLastError(void) { return last_error != cudaSuccess ? last_error : cpurt_sticky(); }

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected (CPU test double: set GNNSCOPE_CUDA_TEST_DOUBLE=1)";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    }
    return "unknown error";
}

/* ---------------- memory ---------------- */

static cudaError_t block_alloc(void **out, size_t n, int dev)
{
    *out = NULL;
    if (cpurt_ready() != cudaSuccess) return cpurt_fail(rt.ready);
    std::unique_lock<std::mutex> g(rt.lock);
    if (dev >= 0 && (n > rt.cap || rt.used[dev] > rt.cap - n)) return cpurt_fail(cudaErrorMemoryAllocation);
    void *p = NULL;
    if (posix_memalign(&p, 256, n + GUARD)) return cpurt_fail(cudaErrorMemoryAllocation);
    memset(p, dev >= 0 ? 0xff : 0, n);
    memset((char *)p + n, GUARD_BYTE, GUARD);
    POISON((char *)p + n, GUARD);
    (*rt.blocks)[(uintptr_t)p] = block_t{n, dev};
    if (dev >= 0) rt.used[dev] += n;
    *out = p;
    return cudaSuccess;
}

static cudaError_t block_free(void *p, int pinned)
{
    if (!p) return cudaSuccess;
    std::unique_lock<std::mutex> g(rt.lock);
    auto it = rt.blocks->find((uintptr_t)p);
    if (it == rt.blocks->end() || (it->second.dev < 0) != (pinned != 0)) return cpurt_fail(cudaErrorInvalidValue);
    block_t b = it->second;
    rt.blocks->erase(it);
    if (b.dev >= 0) rt.used[b.dev] -= b.n;
    g.unlock();
    UNPOISON((char *)p + b.n, GUARD);
    for (size_t i = 0; i < GUARD; i++)
        if (((unsigned char *)p)[b.n + i] != GUARD_BYTE) {
            fprintf(stderr, "CPU CUDA runtime: a write past the end of a %zu-byte block at %p\n", b.n, p);
            free(p);
            return cpurt_fail(cudaErrorIllegalAddress);
        }
    free(p);
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t bytes) { return block_alloc(p, bytes, current_dev); }
cudaError_t cudaFree(void *p) { return block_free(p, 0); }
cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned flags)
{
    (void)flags;
    return block_alloc(p, bytes, -1);
}
cudaError_t cudaMallocHost(void **p, size_t bytes) { return block_alloc(p, bytes, -1); }
cudaError_t cudaFreeHost(void *p) { return block_free(p, 1); }

/* The last block starting at or below p (it may end before p), or end();
 * rt.lock held. */
static std::map<uintptr_t, block_t>::iterator block_below(const void *p)
{
    auto it = rt.blocks->upper_bound((uintptr_t)p);
    return it == rt.blocks->begin() ? rt.blocks->end() : std::prev(it);
}

int cpurt_device_of(const void *p)
{
    std::lock_guard<std::mutex> g(rt.lock);
    auto it = block_below(p);
    return it != rt.blocks->end() && (uintptr_t)p < it->first + it->second.n ? it->second.dev : -1;
}

/* Whether [p, p + bytes] ends inside (or one past) one live block. */
static int within_block(const void *p, size_t bytes)
{
    std::lock_guard<std::mutex> g(rt.lock);
    auto it = block_below(p);
    return it != rt.blocks->end() && (uintptr_t)p + bytes <= it->first + it->second.n;
}

int cpurt_kernel_reachable(const void *p) { return !p || within_block(p, 0); }
int cpurt_range_ok(const void *p, size_t bytes) { return !p || !bytes || within_block(p, bytes); }

void cpurt_bad_read(const char *kernel, const char *what, const void *p, size_t bytes)
{
    fprintf(stderr, "cuda test double: kernel %s: %s [%p, +%zu bytes) leaves its device buffer (a GPU faults there)\n", kernel, what,
            p, bytes);
}

void cpurt_bad_kernel_arg(const char *name, int index)
{
    fprintf(stderr, "cuda test double: kernel %s: argument %d points outside device and pinned memory (a GPU faults there)\n",
            name, index);
    cpurt_fail(cudaErrorIllegalAddress);
}

mem_kind_t cpurt_classify(const void *p, size_t n)
{
    std::lock_guard<std::mutex> g(rt.lock);
    auto it = block_below(p);
    if (it == rt.blocks->end()) return MEM_PAGEABLE;
    uintptr_t a = it->first, q = (uintptr_t)p;
    if (q >= a + it->second.n + (it->second.n == 0)) return MEM_PAGEABLE;
    if (q + n > a + it->second.n) return MEM_BAD;
    return it->second.dev < 0 ? MEM_PINNED : MEM_DEVICE;
}
