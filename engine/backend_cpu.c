/* backend_cpu.c - the cpu backend: virtual devices that run every kernel
 * for real on the host. Each device has a memory arena with a capacity
 * (allocation past it fails, as on a GPU) and four streams, each a thread
 * with an in-order queue, so copies overlap compute. Copies are real
 * memcpys; with a topology they also take the time the link model gives
 * them (engine/sched/linkmodel.h), sharing links with concurrent copies.
 * Limits: device compute shares the host's thread pool, so two devices'
 * kernels run one after the other (the host has few cores anyway). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "sched/linkmodel.h"
#include "tensor.h"
#include "threadpool.h"

typedef enum { TASK_COPY, TASK_KERNEL, TASK_RECORD, TASK_WAIT } task_kind_t;

typedef struct {
    task_kind_t kind;
    void *dst;
    const void *src;
    size_t bytes;
    const int32_t *rows; /* gathered copy: rows of row_bytes each */
    size_t row_bytes;
    chunk_tag_t tag;
    const topo_path_t *path;
    kernel_call_t call;
    int event;
} task_t;

typedef struct {
    struct backend *b;
    int dev;
    lane_t lane;
    pthread_t thread;
    task_t *q;
    int head, count, cap, busy, stop;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pthread_cond_t ev_cv; /* with the backend's ev_lock: signalled when waiting_ev fires */
    int waiting_ev;       /* the event this stream is blocked on, -1 none */
} stream_t;

struct backend {
    backend_cfg_t cfg;
    topology_t topo;
    int use_links;
    lm_t links;
    pthread_mutex_t mem_lock;
    uint64_t used[TOPO_MAX_DEV];
    stream_t streams[TOPO_MAX_DEV][LANE__COUNT];
    pthread_mutex_t ev_lock;
    uint8_t *ev_done;
    int nev, cap_ev;
    pthread_mutex_t st_lock;
    backend_stats_t st;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- kernels ---- */

/* A chunk's gather is the generic pull (kernels.h) over the sub-chunk's
 * listed rows, always adding into the column's accumulator. */
static void chunk_gather(const kernel_call_t *c)
{
    k_pull_t p = {.ptr = c->ptr, .orow = c->orow, .nbr = c->lidx, .eid = c->eid, .w = c->w, .etype = c->etype,
                  .typed = c->typed, .x = c->in, .x_stride = c->in_cols, .y = c->out, .y_stride = c->out_cols,
                  .f = c->f, .acc = 1};
    k_pull(&p, c->nd);
}

static void run_kernel(const kernel_call_t *c)
{
    switch (c->id) {
    case KERN_ZERO: memset(c->out, 0, sizeof(float) * (size_t)(c->nd * c->out_cols)); break;
    case KERN_GEMM: k_gemm(c->trans_a, c->trans_b, c->m, c->n, c->k, c->a, c->b, c->out, c->acc); break;
    case KERN_ADD:
        for (int64_t i = 0; i < c->m; i++) c->out[i] += c->in[i];
        break;
    case KERN_CHUNK_GATHER: chunk_gather(c); break;
    }
}

/* ---- events ---- */

/* A new event id, or -1 when the table cannot grow (the caller then
 * drains the stream instead, so nothing needs to wait for an event). */
static int ev_new(struct backend *b)
{
    pthread_mutex_lock(&b->ev_lock);
    if (b->nev == b->cap_ev) {
        int cap = b->cap_ev ? b->cap_ev * 2 : 1024;
        uint8_t *n = realloc(b->ev_done, (size_t)cap);
        if (!n) {
            pthread_mutex_unlock(&b->ev_lock);
            return -1;
        }
        memset(n + b->cap_ev, 0, (size_t)(cap - b->cap_ev));
        b->ev_done = n;
        b->cap_ev = cap;
    }
    int id = b->nev++;
    b->ev_done[id] = 0;
    pthread_mutex_unlock(&b->ev_lock);
    return id;
}

/* ---- streams ---- */

static void *stream_main(void *arg)
{
    stream_t *s = arg;
    struct backend *b = s->b;
    if (s->lane == LANE_COMPUTE) gs_thread_compute_priority();
    else gs_thread_copy_priority();
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->stop && s->count == 0) pthread_cond_wait(&s->cv, &s->lock);
        if (s->count == 0 && s->stop) break;
        task_t t = s->q[s->head];
        s->busy = 1;
        pthread_mutex_unlock(&s->lock);
        double t0 = now_s();
        switch (t.kind) {
        case TASK_COPY: {
            uint64_t flow = t.path ? lm_begin(&b->links, t.path, (double)t.bytes) : 0;
            gs_pool_copy_begin(); /* this engine's memcpy gets a core ahead of kernels */
            if (t.rows) { /* the host-side filter of selective scheduling */
                double f0 = now_s();
                for (size_t r = 0; r < t.bytes / t.row_bytes; r++)
                    memcpy((char *)t.dst + r * t.row_bytes, (const char *)t.src + (size_t)t.rows[r] * t.row_bytes, t.row_bytes);
                pthread_mutex_lock(&b->st_lock);
                b->st.filter_s[s->dev] += now_s() - f0;
                pthread_mutex_unlock(&b->st_lock);
            } else
                memcpy(t.dst, t.src, t.bytes);
            gs_pool_copy_end();
            if (t.path) lm_wait(&b->links, flow); /* done at max(memcpy, modeled time) */
            break;
        }
        case TASK_KERNEL: run_kernel(&t.call); break;
        case TASK_RECORD:
            pthread_mutex_lock(&b->ev_lock);
            b->ev_done[t.event] = 1;
            for (int d = 0; d < b->cfg.ndev; d++) /* wake only the streams waiting for this event */
                for (int l = 0; l < LANE__COUNT; l++)
                    if (b->streams[d][l].waiting_ev == t.event) pthread_cond_signal(&b->streams[d][l].ev_cv);
            pthread_mutex_unlock(&b->ev_lock);
            break;
        case TASK_WAIT:
            pthread_mutex_lock(&b->ev_lock);
            s->waiting_ev = t.event;
            while (!b->ev_done[t.event]) pthread_cond_wait(&s->ev_cv, &b->ev_lock);
            s->waiting_ev = -1;
            pthread_mutex_unlock(&b->ev_lock);
            break;
        }
        if (t.kind == TASK_COPY || t.kind == TASK_KERNEL) {
            double t1 = now_s(), dt = t1 - t0;
            if (b->cfg.on_task)
                b->cfg.on_task(b->cfg.hook_user, s->dev, s->lane, t.tag, t0, t1, t.kind == TASK_COPY ? (double)t.bytes : 0);
            pthread_mutex_lock(&b->st_lock);
            b->st.busy_s[s->dev][s->lane] += dt;
            if (t.kind == TASK_COPY) b->st.bytes[s->dev][s->lane] += (double)t.bytes;
            else b->st.flops[s->dev] += t.call.flops;
            pthread_mutex_unlock(&b->st_lock);
        }
        pthread_mutex_lock(&s->lock);
        s->head = (s->head + 1) % s->cap;
        s->count--;
        s->busy = 0;
        if (s->count == 0 || s->count == s->cap - 1) pthread_cond_broadcast(&s->cv); /* drained, or room again */
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void enqueue(struct backend *b, int dev, lane_t lane, const task_t *t)
{
    stream_t *s = &b->streams[dev][lane];
    pthread_mutex_lock(&s->lock);
    if (s->count == s->cap) {
        int cap = s->cap * 2;
        task_t *n = malloc(sizeof *n * (size_t)cap);
        if (n) {
            for (int i = 0; i < s->count; i++) n[i] = s->q[(s->head + i) % s->cap];
            free(s->q);
            s->q = n, s->head = 0, s->cap = cap;
        } else { /* no memory to grow: wait for the stream to make room */
            while (s->count == s->cap) pthread_cond_wait(&s->cv, &s->lock);
        }
    }
    s->q[(s->head + s->count) % s->cap] = *t;
    s->count++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lock);
}

/* ---- the ops table ---- */

static void cpu_close(backend_t *b);

static int cpu_open(backend_t **out, const backend_cfg_t *cfg, gs_err_t *err)
{
    if (cfg->ndev < 1 || cfg->ndev > TOPO_MAX_DEV) return gs_fail(err, GS_EINPUT, "--devices must be in [1, %d]", TOPO_MAX_DEV);
    if (cfg->topo && cfg->ndev > cfg->topo->ndev)
        return gs_fail(err, GS_EINPUT, "--devices %d: topology %s has only %d device%s", cfg->ndev, cfg->topo->name,
                       cfg->topo->ndev, cfg->topo->ndev > 1 ? "s" : "");
    struct backend *b = calloc(1, sizeof *b);
    if (!b) return gs_fail(err, GS_EFAIL, "out of memory");
    b->cfg = *cfg;
    if (cfg->topo) {
        b->topo = *cfg->topo;
        b->use_links = 1;
        lm_init(&b->links, &b->topo);
    }
    pthread_mutex_init(&b->mem_lock, NULL);
    pthread_mutex_init(&b->ev_lock, NULL);
    pthread_mutex_init(&b->st_lock, NULL);
    for (int d = 0; d < cfg->ndev; d++)
        for (int l = 0; l < LANE__COUNT; l++) {
            stream_t *s = &b->streams[d][l];
            s->b = b, s->dev = d, s->lane = (lane_t)l, s->cap = 256;
            s->q = malloc(sizeof *s->q * (size_t)s->cap);
            pthread_mutex_init(&s->lock, NULL);
            pthread_cond_init(&s->cv, NULL);
            pthread_cond_init(&s->ev_cv, NULL);
            s->waiting_ev = -1;
            if (!s->q || pthread_create(&s->thread, NULL, stream_main, s) != 0) {
                s->cap = 0;
                cpu_close(b);
                return gs_fail(err, GS_EFAIL, "cannot start the streams of virtual device %d", d);
            }
        }
    *out = b;
    return GS_OK;
}

static void cpu_close(backend_t *b)
{
    if (!b) return;
    for (int d = 0; d < b->cfg.ndev; d++)
        for (int l = 0; l < LANE__COUNT; l++) {
            stream_t *s = &b->streams[d][l];
            if (!s->cap) continue;
            pthread_mutex_lock(&s->lock);
            s->stop = 1;
            pthread_cond_broadcast(&s->cv);
            pthread_mutex_unlock(&s->lock);
            pthread_join(s->thread, NULL);
            free(s->q);
        }
    if (b->use_links) lm_destroy(&b->links);
    free(b->ev_done);
    free(b);
}

static int cpu_ndev(const backend_t *b) { return b->cfg.ndev; }
static uint64_t cpu_capacity(const backend_t *b, int dev) { (void)dev; return b->cfg.dev_mem; }

static void *cpu_alloc(backend_t *b, int dev, size_t bytes)
{
    pthread_mutex_lock(&b->mem_lock);
    void *p = NULL;
    if (!b->cfg.dev_mem || b->used[dev] + bytes <= b->cfg.dev_mem) {
        p = gs_aligned_alloc(bytes);
        if (p) {
            b->used[dev] += bytes;
            if (b->used[dev] > b->st.high_water[dev]) b->st.high_water[dev] = b->used[dev];
        }
    }
    pthread_mutex_unlock(&b->mem_lock);
    return p;
}

static void cpu_free(backend_t *b, int dev, void *p, size_t bytes)
{
    if (!p) return;
    free(p);
    pthread_mutex_lock(&b->mem_lock);
    b->used[dev] -= bytes;
    pthread_mutex_unlock(&b->mem_lock);
}

static void cpu_copy(backend_t *b, int dev, lane_t lane, int peer, void *dst, const void *src, size_t bytes,
                     chunk_tag_t tag)
{
    task_t t = {.kind = TASK_COPY, .dst = dst, .src = src, .bytes = bytes, .tag = tag};
    if (b->use_links)
        t.path = lane == LANE_H2D ? &b->topo.h2d[dev] : lane == LANE_D2H ? &b->topo.d2h[dev] : &b->topo.d2d[peer][dev];
    enqueue(b, dev, lane, &t);
}

static void cpu_copy_rows(backend_t *b, int dev, void *dst, const void *src, size_t row_bytes, const int32_t *rows,
                          int64_t n, chunk_tag_t tag)
{
    task_t t = {.kind = TASK_COPY, .dst = dst, .src = src, .bytes = row_bytes * (size_t)n, .rows = rows,
                .row_bytes = row_bytes, .tag = tag};
    if (b->use_links) t.path = &b->topo.h2d[dev];
    enqueue(b, dev, LANE_H2D, &t);
}

static void cpu_launch(backend_t *b, int dev, const kernel_call_t *call, chunk_tag_t tag)
{
    task_t t = {.kind = TASK_KERNEL, .call = *call, .tag = tag};
    enqueue(b, dev, LANE_COMPUTE, &t);
}

static void drain_stream(stream_t *s)
{
    pthread_mutex_lock(&s->lock);
    while (s->count > 0 || s->busy) pthread_cond_wait(&s->cv, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

static int cpu_record(backend_t *b, int dev, lane_t lane)
{
    task_t t = {.kind = TASK_RECORD, .event = ev_new(b)};
    if (t.event < 0) { /* out of event ids: finish the stream's work now instead */
        drain_stream(&b->streams[dev][lane]);
        return -1;
    }
    enqueue(b, dev, lane, &t);
    return t.event;
}

static void cpu_wait(backend_t *b, int dev, lane_t lane, int event)
{
    if (event < 0) return; /* nothing to wait for (see cpu_record) */
    task_t t = {.kind = TASK_WAIT, .event = event};
    enqueue(b, dev, lane, &t);
}

static void cpu_sync(backend_t *b)
{
    for (int d = 0; d < b->cfg.ndev; d++)
        for (int l = 0; l < LANE__COUNT; l++) drain_stream(&b->streams[d][l]);
    pthread_mutex_lock(&b->ev_lock);
    b->nev = 0; /* every recorded event has fired; ids can be reused */
    pthread_mutex_unlock(&b->ev_lock);
}

static void cpu_stats(backend_t *b, backend_stats_t *out)
{
    pthread_mutex_lock(&b->st_lock);
    *out = b->st;
    pthread_mutex_unlock(&b->st_lock);
    if (b->use_links) {
        pthread_mutex_lock(&b->links.lock);
        memcpy(out->link_bytes, b->links.link_bytes, sizeof out->link_bytes);
        pthread_mutex_unlock(&b->links.lock);
    }
}

static void cpu_reset_stats(backend_t *b)
{
    pthread_mutex_lock(&b->st_lock);
    backend_stats_clear(&b->st);
    pthread_mutex_unlock(&b->st_lock);
    if (b->use_links) {
        pthread_mutex_lock(&b->links.lock);
        memset(b->links.link_bytes, 0, sizeof b->links.link_bytes);
        pthread_mutex_unlock(&b->links.lock);
    }
}

const backend_ops_t backend_cpu = {
    "cpu",     cpu_open, cpu_close,  cpu_ndev, cpu_capacity, cpu_alloc,      cpu_free,
    cpu_copy,  cpu_copy_rows, cpu_launch, cpu_record, cpu_wait, cpu_sync, cpu_stats, cpu_reset_stats,
};
