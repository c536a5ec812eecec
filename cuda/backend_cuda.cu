/* backend_cuda.cu - the streaming backend (backend.h) on real GPUs. Logical
 * devices: device d runs on GPU d % (GPUs present), so one GPU can act as
 * several devices, each with its own memory cap (allocations past it fail),
 * its own four streams (H2D, D2H, D2D, compute) and its share of pinned
 * staging buffers. Copies go through the staging buffers (staging.cu), so
 * the DMA runs asynchronously to the host; the host's side of each (an
 * H2D's read of its source, the rows a filtered copy gathers, a D2H's write
 * of its result) is a host function in stream order, so it honours the
 * stream's event waits as backend.h's in-order streams must, splits its
 * copy over a pool of host threads (stage_fill.cu), and overlaps the DMA
 * of the piece before it. Events are CUDA events. Busy times come
 * from CUPTI's records of this backend's streams (cupti_prof.cu), which also
 * feed the task hook; where CUPTI is unavailable, from host functions around
 * each piece of work (host_spans.cu). A chunk's edge structure arrives in
 * device memory like its rows (the streamer's packed copies, within the
 * caps). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.h"

#define MAX_EVENTS 65536

struct backend {
    cu_errors_t errs; /* the first failure since the last sync */
    int ndev, ngpu;
    uint64_t cap;
    uint64_t used[TOPO_MAX_DEV];
    cudaStream_t st[TOPO_MAX_DEV][LANE__COUNT];
    cublasHandle_t blas[TOPO_MAX_DEV]; /* on the device's compute stream */
    cu_stage_t h2d[TOPO_MAX_DEV], d2h[TOPO_MAX_DEV];
    cudaEvent_t ev[MAX_EVENTS];
    int ev_gpu[MAX_EVENTS]; /* the GPU each was made on: an event records only on its own GPU's streams */
    int nev, made_ev;
    pthread_mutex_t lock; /* stats, written from CUPTI's flush thread */
    backend_stats_t stats;
    task_hook_t on_task;
    void *hook_user;
    int cupti; /* 1: spans from CUPTI's records, 0: from host functions in stream order */
};

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

/* Starts the span of the work about to be queued on (dev, lane): a CUPTI
 * tag, or host-function stamps when CUPTI is unavailable. */
static host_span_t *span_begin(backend_t *b, int dev, lane_t lane, chunk_tag_t tag, const char *name, double bytes)
{
    cu_prof_tag(dev, tag, name, on_span, b);
    return b->cupti ? NULL : cu_span_open(b->st[dev][lane], dev, lane, tag, name, bytes, on_span, b);
}

/* The stream of (dev, lane), once it waits for the pieces its copies left
 * on a staging side stream: an event recorded on it follows all its work. */
static cudaStream_t lane_joined(backend_t *b, int dev, lane_t lane)
{
    if (lane == LANE_H2D) cu_stage_join(&b->h2d[dev], b->st[dev][lane], &b->errs);
    if (lane == LANE_D2H) cu_stage_join(&b->d2h[dev], b->st[dev][lane], &b->errs);
    return b->st[dev][lane];
}

static void span_end(backend_t *b, int dev, lane_t lane, host_span_t *s)
{
    cu_prof_untag();
    if (s) cu_span_close(lane_joined(b, dev, lane), s);
}

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
    b->cupti = cu_prof_enable(why, sizeof why) == 0; /* without it, spans come from host functions (host_spans.cu) */
    *out = b;
    for (int d = 0; d < b->ndev; d++) {
        cudaSetDevice(gpu_of(b, d));
        for (int l = 0; l < LANE__COUNT; l++) {
            if (cudaStreamCreateWithFlags(&b->st[d][l], cudaStreamNonBlocking) != cudaSuccess) goto fail;
        }
        if (cublasCreate(&b->blas[d]) != CUBLAS_STATUS_SUCCESS) goto fail;
        cublasSetStream(b->blas[d], b->st[d][LANE_COMPUTE]);
        cublasSetMathMode(b->blas[d], CUBLAS_PEDANTIC_MATH);
        if (cu_stage_init(&b->h2d[d], 1) != 0 || cu_stage_init(&b->d2h[d], 0) != 0) goto fail;
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
            if (b->st[d][l]) cudaStreamSynchronize(lane_joined(b, d, (lane_t)l));
    cu_prof_flush();
    for (int d = 0; d < b->ndev; d++) {
        if (b->blas[d]) cublasDestroy(b->blas[d]);
        for (int l = 0; l < LANE__COUNT; l++)
            if (b->st[d][l]) cudaStreamDestroy(b->st[d][l]);
        cu_stage_free(&b->h2d[d]);
        cu_stage_free(&b->d2h[d]);
    }
    for (int i = 0; i < b->made_ev; i++)
        if (b->ev[i]) cudaEventDestroy(b->ev[i]);
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
    if (cu_check_on()) cu_check_alloc(p, bytes ? bytes : 256);
    if (b->used[dev] > b->stats.high_water[dev]) b->stats.high_water[dev] = b->used[dev];
    return p;
}

static void cb_free(backend_t *b, int dev, void *p, size_t bytes)
{
    cudaSetDevice(gpu_of(b, dev));
    cudaFree(p);
    if (cu_check_on()) cu_check_free(p);
    b->used[dev] -= bytes;
}

static void count(backend_t *b, int dev, lane_t lane, double bytes)
{
    pthread_mutex_lock(&b->lock);
    b->stats.bytes[dev][lane] += bytes;
    pthread_mutex_unlock(&b->lock);
}

/* bytes between pageable host memory and device memory, through the lane's staging buffers. */
static void copy_staged(backend_t *b, int dev, lane_t lane, void *dst, const void *src, size_t bytes)
{
    cu_stage_job_t job = {{dst, src, 0, NULL, 0, 0}, NULL, NULL};
    if (lane == LANE_H2D) cu_stage_bytes(&b->h2d[dev], b->st[dev][lane], &b->errs, &job, dst, bytes, "H2D");
    else cu_stage_bytes(&b->d2h[dev], b->st[dev][lane], &b->errs, &job, (void *)src, bytes, "D2H");
}

static void cb_copy(backend_t *b, int dev, lane_t lane, int peer, void *dst, const void *src, size_t bytes, chunk_tag_t tag)
{
    cudaStream_t st = b->st[dev][lane];
    cudaSetDevice(gpu_of(b, dev));
    host_span_t *span = span_begin(b, dev, lane, tag, lane == LANE_H2D ? "h2d" : lane == LANE_D2H ? "d2h" : "d2d", (double)bytes);
    if (lane == LANE_H2D || lane == LANE_D2H) {
        copy_staged(b, dev, lane, dst, src, bytes);
        if (lane == LANE_H2D && cu_check_on()) cu_check_h2d(dst, src, bytes, tag, "h2d");
    } else if (gpu_of(b, peer) == gpu_of(b, dev)) {
        cu_note(&b->errs, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st), "D2D");
    } else {
        cu_note(&b->errs, cudaMemcpyPeerAsync(dst, gpu_of(b, dev), src, gpu_of(b, peer), bytes, st), "peer copy");
    }
    span_end(b, dev, lane, span);
    count(b, dev, lane, (double)bytes);
}

static void cb_copy_rows(backend_t *b, int dev, void *dst, const void *src, size_t row_bytes, const int32_t *rows, int64_t n,
                         chunk_tag_t tag)
{
    int64_t per = (int64_t)(STAGE_BYTES / row_bytes);
    if (per < 1) { /* rows wider than a staging buffer: one plain copy each */
        for (int64_t r = 0; r < n; r++)
            cb_copy(b, dev, LANE_H2D, -1, (char *)dst + (size_t)r * row_bytes, (const char *)src + (size_t)rows[r] * row_bytes,
                    row_bytes, tag);
        return;
    }
    cudaSetDevice(gpu_of(b, dev));
    host_span_t *span = span_begin(b, dev, LANE_H2D, tag, "h2d_rows", (double)(row_bytes * (size_t)n));
    for (int64_t r0 = 0; r0 < n; r0 += per) {
        int64_t cnt = n - r0 < per ? n - r0 : per;
        cu_stage_job_t job = {{NULL, src, 0, rows + r0, cnt, row_bytes}, &b->stats.filter_s[dev], &b->lock};
        cu_stage_piece(&b->h2d[dev], b->st[dev][LANE_H2D], &b->errs, &job, (char *)dst + (size_t)r0 * row_bytes,
                       (size_t)cnt * row_bytes, n > per, "H2D rows");
    }
    span_end(b, dev, LANE_H2D, span);
    if (cu_check_on()) cu_check_h2d_rows(dst, src, rows, n, row_bytes, tag);
    count(b, dev, LANE_H2D, (double)(row_bytes * (size_t)n));
}

static void cb_copy_parts(backend_t *b, int dev, void *dst, const copy_part_t *parts, int n, chunk_tag_t tag)
{
    cudaSetDevice(gpu_of(b, dev));
    size_t total = 0;
    for (int i = 0; i < n; i++) total += parts[i].bytes;
    host_span_t *span = span_begin(b, dev, LANE_H2D, tag, "h2d_chunk", (double)total);
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        copy_staged(b, dev, LANE_H2D, (char *)dst + at, parts[i].src, parts[i].bytes);
        if (cu_check_on()) cu_check_h2d((char *)dst + at, parts[i].src, parts[i].bytes, tag, "h2d chunk part");
        at += copy_part_align(parts[i].bytes);
    }
    span_end(b, dev, LANE_H2D, span);
    count(b, dev, LANE_H2D, (double)total);
}

static void cb_launch(backend_t *b, int dev, const kernel_call_t *call, chunk_tag_t tag)
{
    kernel_call_t c = *call;
    cudaSetDevice(gpu_of(b, dev));
    static const char *const names[] = {"chunk_gather", "zero_acc",   "gemm",          "add",       "max_init",
                                        "max_finish",   "chunk_max", "chunk_max_bwd", "chunk_attn"}; /* has_kernel's ids */
    static_assert(KERN_CHUNK_ATTN == 8, "names follow kernel_id_t's order");
    if (cu_check_on()) cu_check_chunk_call(&c, tag);
    host_span_t *span = span_begin(b, dev, LANE_COMPUTE, tag, names[c.id], 0);
    int is_max = c.id == KERN_MAX_INIT || c.id == KERN_MAX_FINISH || c.id == KERN_CHUNK_MAX || c.id == KERN_CHUNK_MAX_BWD;
    if (c.id == KERN_GEMM) cu_sgemm(&b->errs, b->blas[dev], c.trans_a, c.trans_b, c.m, c.n, c.k, c.a, c.b, c.out, c.acc);
    else if (c.id == KERN_ADD) cu_add(&b->errs, c.out, c.in, c.m, b->st[dev][LANE_COMPUTE]);
    else if (is_max) cu_chunk_max(&b->errs, &c, b->st[dev][LANE_COMPUTE]);
    else cu_chunk_gather(&b->errs, &c, b->st[dev][LANE_COMPUTE]);
    span_end(b, dev, LANE_COMPUTE, span);
    pthread_mutex_lock(&b->lock);
    b->stats.flops[dev] += c.flops;
    pthread_mutex_unlock(&b->lock);
}

/* Event slot id made on gpu (remade when an earlier use was on another GPU). */
static int event_slot(backend_t *b, int id, int gpu)
{
    if (id < b->made_ev && b->ev_gpu[id] == gpu) return 0;
    if (id < b->made_ev) cudaEventDestroy(b->ev[id]);
    if (cudaEventCreateWithFlags(&b->ev[id], cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();
        b->ev[id] = NULL, b->ev_gpu[id] = -1;
        return -1;
    }
    b->ev_gpu[id] = gpu;
    if (id == b->made_ev) b->made_ev++;
    return 0;
}

static int cb_record(backend_t *b, int dev, lane_t lane)
{
    cudaSetDevice(gpu_of(b, dev));
    cudaStream_t st = lane_joined(b, dev, lane);
    if (b->nev == MAX_EVENTS || event_slot(b, b->nev, gpu_of(b, dev)) != 0) {
        cudaStreamSynchronize(st);
        return -1;
    }
    int id = b->nev++;
    cu_note(&b->errs, cudaEventRecord(b->ev[id], st), "event");
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
        for (int l = 0; l < LANE__COUNT; l++) cu_note(&b->errs, cudaStreamSynchronize(lane_joined(b, d, (lane_t)l)), "stream");
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

/* The chunk gather, zeroing, the product, the add, the max gather's four
 * and the attention gather; the fused and edge-tensor gathers' chunk
 * kernels are not written for the GPU yet (those gathers stay on the host
 * in a streamed run). */
static int cb_has_kernel(const backend_t *b, kernel_id_t id)
{
    (void)b;
    return id == KERN_CHUNK_GATHER || id == KERN_ZERO || id == KERN_GEMM || id == KERN_ADD || id == KERN_MAX_INIT ||
           id == KERN_MAX_FINISH || id == KERN_CHUNK_MAX || id == KERN_CHUNK_MAX_BWD || id == KERN_CHUNK_ATTN;
}

const backend_ops_t cu_backend = {
    "cuda",       cb_open, cb_close, cb_ndev,  cb_capacity, cb_alloc,        cb_free,       cb_copy,
    cb_copy_rows, cb_copy_parts, cb_launch, cb_record, cb_wait, cb_sync,     cb_stats, cb_reset_stats,
    cb_has_kernel, NULL, /* copy_rows_out: only the edge scatter uses it */
};
