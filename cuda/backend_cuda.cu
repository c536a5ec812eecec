/* backend_cuda.cu - the streaming backend (backend.h) on real GPUs. Logical
 * devices: device d runs on GPU d % (GPUs present), so one GPU can act as
 * several devices, each with its own memory cap (allocations past it fail),
 * its own four streams (H2D, D2H, D2D, compute) and its share of pinned
 * staging buffers. Copies go through the staging buffers, so the DMA runs
 * asynchronously to the host; the host's side of each (an H2D's read of its
 * source, the rows a filtered copy gathers, a D2H's write of its result) is
 * a host function in stream order, so it honours the stream's event waits as
 * backend.h's in-order streams must, and splits its copy over a pool of
 * host threads (stage_fill.cu). Events are CUDA events. Busy times come
 * from CUPTI's records of this backend's streams (cupti_prof.cu), which also
 * feed the task hook; where CUPTI is unavailable, from host functions around
 * each piece of work (host_spans.cu). A chunk's edge structure arrives in
 * device memory like its rows (the streamer's packed copies, within the
 * caps). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_common.h"

#define STAGE_BYTES (16u << 20)
#define NSTAGE 3
#define MAX_EVENTS 65536

/* A host-side copy into or out of a staging buffer, run by a host
 * function in stream order: n bytes from src, or the listed rows of src. */
typedef struct {
    backend_t *b;
    int dev;
    void *dst;
    const void *src;
    size_t n;
    const int32_t *rows; /* non-NULL: copy rows[0..nrows) of row_bytes each */
    int64_t nrows;
    size_t row_bytes;
} stage_job_t;

typedef struct {
    char *buf[NSTAGE];
    cudaEvent_t free_ev[NSTAGE];
    stage_job_t job[NSTAGE];
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
    int ev_gpu[MAX_EVENTS]; /* the GPU each was made on: an event records only on its own GPU's streams */
    int nev, made_ev;
    pthread_mutex_t lock; /* stats, written from CUPTI's flush thread */
    backend_stats_t stats;
    task_hook_t on_task;
    void *hook_user;
    int cupti; /* 1: spans from CUPTI's records, 0: from host functions in stream order */
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

/* Starts the span of the work about to be queued on (dev, lane): a CUPTI
 * tag, or host-function stamps when CUPTI is unavailable. */
static host_span_t *span_begin(backend_t *b, int dev, lane_t lane, chunk_tag_t tag, const char *name, double bytes)
{
    cu_prof_tag(dev, tag, name, on_span, b);
    return b->cupti ? NULL : cu_span_open(b->st[dev][lane], dev, lane, tag, name, bytes, on_span, b);
}

static void span_end(backend_t *b, int dev, lane_t lane, host_span_t *s)
{
    cu_prof_untag();
    if (s) cu_span_close(b->st[dev][lane], s);
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

/* The next staging buffer of a lane, once its previous use has finished. */
static int stage_take(backend_t *b, stage_t *s)
{
    int i = s->next;
    s->next = (i + 1) % NSTAGE;
    cu_note(&b->errs, cudaEventSynchronize(s->free_ev[i]), "staging");
    return i;
}

static double stage_filter_s(stage_job_t *j);

/* The host's side of a staged copy, when the stream reaches it: an H2D
 * reads its host source only after the waits queued before it (another
 * stream's D2H into that memory, say), as backend.h's in-order streams do. */
static void CUDART_CB stage_fill(void *p)
{
    stage_job_t *j = (stage_job_t *)p;
    if (!j->rows) {
        cu_fill_copy(j->dst, j->src, j->n);
        return;
    }
    double t = stage_filter_s(j);
    pthread_mutex_lock(&j->b->lock);
    j->b->stats.filter_s[j->dev] += t;
    pthread_mutex_unlock(&j->b->lock);
}

/* Gathers a job's listed rows into its staging buffer; the host time taken. */
static double stage_filter_s(stage_job_t *j)
{
    double t0 = now_s();
    cu_fill_rows(j->dst, j->src, j->rows, j->nrows, j->row_bytes);
    return now_s() - t0;
}

/* Queues job (for staging buffer i of s) and the DMA of its n bytes between
 * the buffer and device memory dev_ptr, then frees the buffer's turn. */
static void stage_queue(backend_t *b, stage_t *s, int i, cudaStream_t st, void *dev_ptr, size_t n, int to_device, const char *what)
{
    stage_job_t *j = &s->job[i];
    if (to_device) {
        cu_note(&b->errs, cudaLaunchHostFunc(st, stage_fill, j), what);
        cu_note(&b->errs, cudaMemcpyAsync(dev_ptr, s->buf[i], n, cudaMemcpyHostToDevice, st), what);
    } else {
        cu_note(&b->errs, cudaMemcpyAsync(s->buf[i], dev_ptr, n, cudaMemcpyDeviceToHost, st), what);
        cu_note(&b->errs, cudaLaunchHostFunc(st, stage_fill, j), what);
    }
    cu_note(&b->errs, cudaEventRecord(s->free_ev[i], st), "event");
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
        s->job[i] = (stage_job_t){b, dev, s->buf[i], (const char *)src + off, n, NULL, 0, 0};
        stage_queue(b, s, i, st, (char *)dst + off, n, 1, "H2D");
    }
}

static void cb_copy(backend_t *b, int dev, lane_t lane, int peer, void *dst, const void *src, size_t bytes, chunk_tag_t tag)
{
    cudaStream_t st = b->st[dev][lane];
    cudaSetDevice(gpu_of(b, dev));
    host_span_t *span = span_begin(b, dev, lane, tag, lane == LANE_H2D ? "h2d" : lane == LANE_D2H ? "d2h" : "d2d", (double)bytes);
    if (lane == LANE_H2D) {
        h2d_staged(b, dev, dst, src, bytes);
        if (cu_check_on()) cu_check_h2d(dst, src, bytes, tag, "h2d");
    } else if (lane == LANE_D2H) {
        stage_t *s = &b->d2h[dev];
        for (size_t off = 0; off < bytes; off += STAGE_BYTES) {
            size_t n = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
            int i = stage_take(b, s);
            s->job[i] = (stage_job_t){b, dev, (char *)dst + off, s->buf[i], n, NULL, 0, 0};
            stage_queue(b, s, i, st, (char *)src + off, n, 0, "D2H");
        }
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
    host_span_t *span = span_begin(b, dev, LANE_H2D, tag, "h2d_rows", (double)(row_bytes * (size_t)n));
    for (int64_t r0 = 0; r0 < n; r0 += per) {
        int64_t cnt = n - r0 < per ? n - r0 : per;
        int i = stage_take(b, s);
        s->job[i] = (stage_job_t){b, dev, s->buf[i], src, 0, rows + r0, cnt, row_bytes};
        stage_queue(b, s, i, st, (char *)dst + (size_t)r0 * row_bytes, (size_t)cnt * row_bytes, 1, "H2D rows");
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
        h2d_staged(b, dev, (char *)dst + at, parts[i].src, parts[i].bytes);
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
    static const char *const names[] = {"chunk_gather", "zero_acc", "gemm", "add"};
    if (cu_check_on()) cu_check_chunk_call(&c, tag);
    host_span_t *span = span_begin(b, dev, LANE_COMPUTE, tag, names[c.id], 0);
    if (c.id == KERN_GEMM) cu_sgemm(&b->errs, b->blas[dev], c.trans_a, c.trans_b, c.m, c.n, c.k, c.a, c.b, c.out, c.acc);
    else if (c.id == KERN_ADD) cu_add(&b->errs, c.out, c.in, c.m, b->st[dev][LANE_COMPUTE]);
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
    if (b->nev == MAX_EVENTS || event_slot(b, b->nev, gpu_of(b, dev)) != 0) {
        cudaStreamSynchronize(b->st[dev][lane]);
        return -1;
    }
    int id = b->nev++;
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

/* The chunk gather, zeroing, the product and the add; the max gather's
 * chunk kernels are not written for the GPU yet (its gathers stay on the
 * host in a streamed run). */
static int cb_has_kernel(const backend_t *b, kernel_id_t id)
{
    (void)b;
    return id == KERN_CHUNK_GATHER || id == KERN_ZERO || id == KERN_GEMM || id == KERN_ADD;
}

const backend_ops_t cu_backend = {
    "cuda",       cb_open, cb_close, cb_ndev,  cb_capacity, cb_alloc,        cb_free,       cb_copy,
    cb_copy_rows, cb_copy_parts, cb_launch, cb_record, cb_wait, cb_sync,     cb_stats, cb_reset_stats,
    cb_has_kernel, NULL, /* copy_rows_out: only the edge scatter uses it */
};
