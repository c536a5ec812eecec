/* backend_cuda.cu - the streaming backend (backend.h) on real GPUs.
 * Logical devices: device d runs on GPU d % (GPUs present), so one GPU can
 * act as several devices, each with its own memory cap (allocations past
 * it fail), its own four streams (H2D, D2H, D2D, compute) and its share of
 * pinned staging buffers. Copies go through the staging buffers, so the
 * DMA runs asynchronously to the host: H2D sources are read when the copy
 * is enqueued (backend.h's contract), D2H results land in host memory from
 * a host function in stream order. Events are CUDA events. Busy times come
 * from CUPTI's records of this backend's streams (cupti_prof.cu), which
 * also feed the task hook. A chunk's edge structure arrives in device
 * memory like its rows (the streamer's packed copies, within the caps). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_common.h"

#define STAGE_BYTES (16u << 20)
#define NSTAGE 3
#define MAX_EVENTS 65536

typedef struct {
    void *dst;
    const void *src;
    size_t n;
} out_job_t;

typedef struct {
    char *buf[NSTAGE];
    cudaEvent_t free_ev[NSTAGE];
    out_job_t job[NSTAGE];
    int next;
} stage_t;

struct backend {
    cu_errors_t errs; /* the first failure since the last sync */
    int ndev, ngpu;
    uint64_t cap;
    uint64_t used[TOPO_MAX_DEV];
    cudaStream_t st[TOPO_MAX_DEV][LANE__COUNT];
    cublasHandle_t blas[TOPO_MAX_DEV]; /* on the device's compute stream */
    stage_t h2d[TOPO_MAX_DEV], d2h[TOPO_MAX_DEV];
    cudaEvent_t ev[MAX_EVENTS];
    int nev, made_ev;
    pthread_mutex_t lock; /* stats, written from CUPTI's flush thread */
    backend_stats_t stats;
    task_hook_t on_task;
    void *hook_user;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int gpu_of(const backend_t *b, int dev) { return dev % b->ngpu; }

/* CUPTI's record of work on one of this backend's streams. */
static void on_span(void *user, const gpu_span_t *s)
{
    backend_t *b = (backend_t *)user;
    pthread_mutex_lock(&b->lock);
    b->stats.busy_s[s->dev][s->lane] += s->t1 - s->t0;
    pthread_mutex_unlock(&b->lock);
    if (b->on_task) b->on_task(b->hook_user, s->dev, s->lane, s->tag, s->t0, s->t1, s->bytes);
}

static void cb_close(backend_t *b);

static int cb_open(backend_t **out, const backend_cfg_t *cfg, gs_err_t *err)
{
    backend_t *b = (backend_t *)calloc(1, sizeof *b);
    if (!b) return gs_fail(err, GS_EFAIL, "out of memory");
    pthread_mutex_init(&b->lock, NULL);
    cu_errors_init(&b->errs);
    b->ndev = cfg->ndev;
    b->on_task = cfg->on_task, b->hook_user = cfg->hook_user;
    if (cudaGetDeviceCount(&b->ngpu) != cudaSuccess || b->ngpu < 1) {
        free(b);
        return gs_fail(err, GS_EINPUT, "no GPU answers");
    }
    size_t free_b = 0, total_b = 0;
    cudaSetDevice(0);
    cudaMemGetInfo(&free_b, &total_b);
    int per_gpu = (b->ndev + b->ngpu - 1) / b->ngpu;
    uint64_t share = (uint64_t)(free_b * 0.9) / (uint64_t)per_gpu;
    if (cfg->dev_mem && cfg->dev_mem > share) {
        free(b);
        return gs_fail(err, GS_EINPUT, "--device-mem %llu: %d logical devices on a GPU with %llu bytes free leave %llu each",
                       (unsigned long long)cfg->dev_mem, per_gpu, (unsigned long long)free_b, (unsigned long long)share);
    }
    b->cap = cfg->dev_mem ? cfg->dev_mem : share;
    char why[200];
    if (cu_prof_enable(why, sizeof why) != 0) { /* busy times and the swap heuristic's profile come from CUPTI */
        free(b);
        return gs_fail(err, GS_EFAIL, "CUPTI: %s", why);
    }
    *out = b;
    for (int d = 0; d < b->ndev; d++) {
        cudaSetDevice(gpu_of(b, d));
        for (int l = 0; l < LANE__COUNT; l++) {
            if (cudaStreamCreateWithFlags(&b->st[d][l], cudaStreamNonBlocking) != cudaSuccess) goto fail;
        }
        if (cublasCreate(&b->blas[d]) != CUBLAS_STATUS_SUCCESS) goto fail;
        cublasSetStream(b->blas[d], b->st[d][LANE_COMPUTE]);
        cublasSetMathMode(b->blas[d], CUBLAS_PEDANTIC_MATH);
        stage_t *sts[2] = {&b->h2d[d], &b->d2h[d]};
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < NSTAGE; i++)
                if (cudaHostAlloc((void **)&sts[k]->buf[i], STAGE_BYTES, cudaHostAllocPortable) != cudaSuccess ||
                    cudaEventCreateWithFlags(&sts[k]->free_ev[i], cudaEventDisableTiming) != cudaSuccess)
                    goto fail;
    }
    cudaSetDevice(0);
    return GS_OK;
fail:
    cudaGetLastError();
    cb_close(b);
    *out = NULL;
    return gs_fail(err, GS_EFAIL, "cannot create the GPU streams and pinned buffers for %d devices", cfg->ndev);
}

static void cb_close(backend_t *b)
{
    if (!b) return;
    for (int d = 0; d < b->ndev; d++)
        for (int l = 0; l < LANE__COUNT; l++)
            if (b->st[d][l]) cudaStreamSynchronize(b->st[d][l]);
    cu_prof_flush();
    for (int d = 0; d < b->ndev; d++) {
        if (b->blas[d]) cublasDestroy(b->blas[d]);
        for (int l = 0; l < LANE__COUNT; l++)
            if (b->st[d][l]) cudaStreamDestroy(b->st[d][l]);
        stage_t *sts[2] = {&b->h2d[d], &b->d2h[d]};
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < NSTAGE; i++) {
                if (sts[k]->buf[i]) cudaFreeHost(sts[k]->buf[i]);
                if (sts[k]->free_ev[i]) cudaEventDestroy(sts[k]->free_ev[i]);
            }
    }
    for (int i = 0; i < b->made_ev; i++) cudaEventDestroy(b->ev[i]);
    pthread_mutex_destroy(&b->lock);
    cu_errors_free(&b->errs);
    free(b);
}

static int cb_ndev(const backend_t *b) { return b->ndev; }
static uint64_t cb_capacity(const backend_t *b, int dev)
{
    (void)dev;
    return b->cap;
}

static void *cb_alloc(backend_t *b, int dev, size_t bytes)
{
    if (b->used[dev] + bytes > b->cap) return NULL;
    void *p = NULL;
    cudaSetDevice(gpu_of(b, dev));
    if (cudaMalloc(&p, bytes ? bytes : 256) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    b->used[dev] += bytes;
    if (b->used[dev] > b->stats.high_water[dev]) b->stats.high_water[dev] = b->used[dev];
    return p;
}

static void cb_free(backend_t *b, int dev, void *p, size_t bytes)
{
    cudaSetDevice(gpu_of(b, dev));
    cudaFree(p);
    b->used[dev] -= bytes;
}

/* The next staging buffer of a lane, once its previous use has finished. */
static int stage_take(backend_t *b, stage_t *s)
{
    int i = s->next;
    s->next = (i + 1) % NSTAGE;
    cu_note(&b->errs, cudaEventSynchronize(s->free_ev[i]), "staging");
    return i;
}

static void CUDART_CB copy_out(void *p)
{
    out_job_t *j = (out_job_t *)p;
    memcpy(j->dst, j->src, j->n);
}

static void count(backend_t *b, int dev, lane_t lane, double bytes)
{
    pthread_mutex_lock(&b->lock);
    b->stats.bytes[dev][lane] += bytes;
    pthread_mutex_unlock(&b->lock);
}

/* H2D of bytes from pageable host memory through the pinned staging buffers. */
static void h2d_staged(backend_t *b, int dev, void *dst, const void *src, size_t bytes)
{
    cudaStream_t st = b->st[dev][LANE_H2D];
    stage_t *s = &b->h2d[dev];
    for (size_t off = 0; off < bytes; off += STAGE_BYTES) {
        size_t n = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
        int i = stage_take(b, s);
        memcpy(s->buf[i], (const char *)src + off, n);
        cu_note(&b->errs, cudaMemcpyAsync((char *)dst + off, s->buf[i], n, cudaMemcpyHostToDevice, st), "H2D");
        cu_note(&b->errs, cudaEventRecord(s->free_ev[i], st), "event");
    }
}

static void cb_copy(backend_t *b, int dev, lane_t lane, int peer, void *dst, const void *src, size_t bytes, chunk_tag_t tag)
{
    cudaStream_t st = b->st[dev][lane];
    cudaSetDevice(gpu_of(b, dev));
    cu_prof_tag(dev, tag, lane == LANE_H2D ? "h2d" : lane == LANE_D2H ? "d2h" : "d2d", on_span, b);
    if (lane == LANE_H2D) {
        h2d_staged(b, dev, dst, src, bytes);
    } else if (lane == LANE_D2H) {
        stage_t *s = &b->d2h[dev];
        for (size_t off = 0; off < bytes; off += STAGE_BYTES) {
            size_t n = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
            int i = stage_take(b, s);
            s->job[i] = (out_job_t){(char *)dst + off, s->buf[i], n};
            cu_note(&b->errs, cudaMemcpyAsync(s->buf[i], (const char *)src + off, n, cudaMemcpyDeviceToHost, st), "D2H");
            cu_note(&b->errs, cudaLaunchHostFunc(st, copy_out, &s->job[i]), "D2H");
            cu_note(&b->errs, cudaEventRecord(s->free_ev[i], st), "event");
        }
    } else if (gpu_of(b, peer) == gpu_of(b, dev)) {
        cu_note(&b->errs, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st), "D2D");
    } else {
        cu_note(&b->errs, cudaMemcpyPeerAsync(dst, gpu_of(b, dev), src, gpu_of(b, peer), bytes, st), "peer copy");
    }
    cu_prof_untag();
    count(b, dev, lane, (double)bytes);
}

static void cb_copy_rows(backend_t *b, int dev, void *dst, const void *src, size_t row_bytes, const int32_t *rows, int64_t n,
                         chunk_tag_t tag)
{
    cudaStream_t st = b->st[dev][LANE_H2D];
    stage_t *s = &b->h2d[dev];
    int64_t per = (int64_t)(STAGE_BYTES / row_bytes);
    if (per < 1) { /* rows wider than a staging buffer: one plain copy each */
        for (int64_t r = 0; r < n; r++)
            cb_copy(b, dev, LANE_H2D, -1, (char *)dst + (size_t)r * row_bytes, (const char *)src + (size_t)rows[r] * row_bytes,
                    row_bytes, tag);
        return;
    }
    cudaSetDevice(gpu_of(b, dev));
    cu_prof_tag(dev, tag, "h2d_rows", on_span, b);
    double t0 = now_s();
    for (int64_t r0 = 0; r0 < n; r0 += per) {
        int64_t cnt = n - r0 < per ? n - r0 : per;
        int i = stage_take(b, s);
        for (int64_t r = 0; r < cnt; r++)
            memcpy(s->buf[i] + (size_t)r * row_bytes, (const char *)src + (size_t)rows[r0 + r] * row_bytes, row_bytes);
        cu_note(&b->errs, cudaMemcpyAsync((char *)dst + (size_t)r0 * row_bytes, s->buf[i], (size_t)cnt * row_bytes,
                                cudaMemcpyHostToDevice, st),
                "H2D rows");
        cu_note(&b->errs, cudaEventRecord(s->free_ev[i], st), "event");
    }
    cu_prof_untag();
    pthread_mutex_lock(&b->lock);
    b->stats.filter_s[dev] += now_s() - t0;
    pthread_mutex_unlock(&b->lock);
    count(b, dev, LANE_H2D, (double)(row_bytes * (size_t)n));
}

static void cb_copy_parts(backend_t *b, int dev, void *dst, const copy_part_t *parts, int n, chunk_tag_t tag)
{
    cudaSetDevice(gpu_of(b, dev));
    cu_prof_tag(dev, tag, "h2d_chunk", on_span, b);
    size_t at = 0, total = 0;
    for (int i = 0; i < n; i++) {
        h2d_staged(b, dev, (char *)dst + at, parts[i].src, parts[i].bytes);
        at += copy_part_align(parts[i].bytes), total += parts[i].bytes;
    }
    cu_prof_untag();
    count(b, dev, LANE_H2D, (double)total);
}

static void cb_launch(backend_t *b, int dev, const kernel_call_t *call, chunk_tag_t tag)
{
    kernel_call_t c = *call;
    cudaSetDevice(gpu_of(b, dev));
    static const char *const names[] = {"chunk_gather", "zero_acc", "gemm", "add"};
    cu_prof_tag(dev, tag, names[c.id], on_span, b);
    if (c.id == KERN_GEMM) cu_sgemm(&b->errs, b->blas[dev], c.trans_a, c.trans_b, c.m, c.n, c.k, c.a, c.b, c.out, c.acc);
    else if (c.id == KERN_ADD) cu_add(&b->errs, c.out, c.in, c.m, b->st[dev][LANE_COMPUTE]);
    else cu_chunk_gather(&b->errs, &c, b->st[dev][LANE_COMPUTE]);
    cu_prof_untag();
    pthread_mutex_lock(&b->lock);
    b->stats.flops[dev] += c.flops;
    pthread_mutex_unlock(&b->lock);
}

static int cb_record(backend_t *b, int dev, lane_t lane)
{
    if (b->nev == MAX_EVENTS) {
        cudaStreamSynchronize(b->st[dev][lane]);
        return -1;
    }
    int id = b->nev++;
    if (id == b->made_ev) {
        if (cudaEventCreateWithFlags(&b->ev[id], cudaEventDisableTiming) != cudaSuccess) {
            b->nev--;
            cudaStreamSynchronize(b->st[dev][lane]);
            return -1;
        }
        b->made_ev++;
    }
    cu_note(&b->errs, cudaEventRecord(b->ev[id], b->st[dev][lane]), "event");
    return id;
}

static void cb_wait(backend_t *b, int dev, lane_t lane, int event)
{
    if (event < 0) return;
    cu_note(&b->errs, cudaStreamWaitEvent(b->st[dev][lane], b->ev[event], 0), "event wait");
}

static int cb_sync(backend_t *b, gs_err_t *err)
{
    for (int d = 0; d < b->ndev; d++)
        for (int l = 0; l < LANE__COUNT; l++) cu_note(&b->errs, cudaStreamSynchronize(b->st[d][l]), "stream");
    cu_prof_flush(); /* the task hook sees this pass's spans before the caller reads them */
    b->nev = 0;
    return cu_take_error(&b->errs, err);
}

static void cb_stats(backend_t *b, backend_stats_t *out)
{
    pthread_mutex_lock(&b->lock);
    *out = b->stats;
    pthread_mutex_unlock(&b->lock);
}

static void cb_reset_stats(backend_t *b)
{
    pthread_mutex_lock(&b->lock);
    backend_stats_clear(&b->stats);
    pthread_mutex_unlock(&b->lock);
}

const backend_ops_t cu_backend = {
    "cuda",       cb_open, cb_close, cb_ndev,  cb_capacity, cb_alloc,        cb_free,       cb_copy,
    cb_copy_rows, cb_copy_parts, cb_launch, cb_record, cb_wait, cb_sync,     cb_stats, cb_reset_stats,
};
