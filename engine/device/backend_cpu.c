/* backend_cpu.c - the cpu backend: virtual devices that run every kernel
 * for real on the host. Each device has a memory arena with a capacity
 * (allocation past it fails, as on a GPU) and four streams (H2D, D2H, D2D,
 * compute) ordered by events. Copies are real memcpys and kernels real
 * kernels; what they cost in time comes from the interconnect model and
 * the modeled GPU, either on the virtual clock (backend_cpu_virtual.c) or,
 * with --clock wall, in real time (backend_cpu_wall.c). This file has the
 * ops table, the arenas and the real work of a task. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend_cpu.h"
#include "engine/graph/tensor.h"
#include "engine/kernels/kernels_chunk_edge.h"
#include "engine/kernels/kernels_chunk_max.h"
#include "engine/kernels/kernels_fused.h"
#include "base/threadpool.h"
#include "base/mono_clock.h"

/* ---- the real work ---- */

/* A chunk's gather is the generic pull (kernels.h) over the sub-chunk's
 * listed rows, always adding into the column's accumulator. */
static void chunk_gather(const kernel_call_t *c)
{
    k_pull_t p = {.ptr = c->ptr, .orow = c->orow, .nbr = c->lidx, .eid = c->eid, .w = c->w, .etype = c->etype,
                  .typed = c->typed, .x = c->in, .x_stride = c->in_cols, .y = c->out, .y_stride = c->out_cols,
                  .f = c->f, .acc = 1, .att = c->att, .att_k = c->att_k, .att_h = c->att_h,
                  .src_edge = c->id == KERN_CHUNK_EDGE_GATHER};
    k_pull(&p, c->nd);
}

/* The plain programs' edge scatter (kernels_chunk_edge.h). */
static void chunk_scatter(const kernel_call_t *c)
{
    k_chunk_t k = {.ptr = c->ptr, .orow = c->orow, .lidx = c->lidx, .f = c->f, .x_stride = c->in_cols, .y_stride = c->out_cols};
    k_chunk_scatter(&k, c->nd, c->in, c->from_dst, c->w, c->out, c->acc);
}

/* The max gather's sub-chunk kernels (kernels_chunk_max.h). */
static void chunk_max(const kernel_call_t *c)
{
    k_chunk_t k = {.ptr = c->ptr, .orow = c->orow, .lidx = c->lidx, .f = c->f, .x_stride = c->in_cols, .y_stride = c->out_cols};
    if (c->id == KERN_CHUNK_MAX) k_chunk_max(&k, c->nd, c->in, c->ids, c->in_base, c->out, c->win);
    else k_chunk_max_bwd(&k, c->nd, c->in, c->win_in, c->out_base, c->out);
}

/* The fused gather's sub-chunk kernel: the in-memory kernel's rows over
 * the sub-chunk's listed rows, the other side's rows as lidx numbers them. */
static void chunk_fused(const kernel_call_t *c)
{
    fused_edges_t x = {c->ptr, c->orow, c->lidx, c->w, c->nd};
    k_fused_rows(&c->fused, &x, c->backward);
}

static void run_kernel(const kernel_call_t *c)
{
    switch (c->id) {
    case KERN_ZERO: memset(c->out, 0, sizeof(float) * (size_t)(c->nd * c->out_cols)); break;
    case KERN_GEMM: k_gemm(c->trans_a, c->trans_b, c->m, c->n, c->k, c->a, c->b, c->out, c->acc); break;
    case KERN_ADD:
        for (int64_t i = 0; i < c->m; i++) c->out[i] += c->in[i];
        break;
    case KERN_CHUNK_GATHER:
    case KERN_CHUNK_ATTN:
    case KERN_CHUNK_EDGE_GATHER: chunk_gather(c); break;
    case KERN_CHUNK_SCATTER: chunk_scatter(c); break;
    case KERN_CHUNK_FUSED: chunk_fused(c); break;
    case KERN_EW: kops_cpu.ew_forward(NULL, &c->ew); break;
    case KERN_MAX_INIT: k_chunk_max_init(c->out, c->win, c->nd, c->out_cols); break;
    case KERN_MAX_FINISH: k_chunk_max_finish(c->out, c->win, c->nd, c->out_cols); break;
    case KERN_CHUNK_MAX:
    case KERN_CHUNK_MAX_BWD: chunk_max(c); break;
    case KERN__COUNT: break;
    }
}

double cpu_run_task(const task_t *t)
{
    if (t->kind == TASK_KERNEL) {
        run_kernel(&t->call);
        return 0;
    }
    if (t->kind != TASK_COPY) return 0;
    if (t->nparts) {
        size_t at = 0;
        for (int i = 0; i < t->nparts; i++) {
            memcpy((char *)t->dst + at, t->parts[i].src, t->parts[i].bytes);
            at += copy_part_align(t->parts[i].bytes);
        }
        return 0;
    }
    if (!t->rows) {
        memcpy(t->dst, t->src, t->bytes);
        return 0;
    }
    double f0 = gs_mono_s(); /* the host-side filter of selective scheduling, or the unpacking of an edge scatter */
    for (size_t r = 0; r < t->bytes / t->row_bytes; r++)
        if (t->scatter) memcpy((char *)t->dst + (size_t)t->rows[r] * t->row_bytes, (const char *)t->src + r * t->row_bytes, t->row_bytes);
        else memcpy((char *)t->dst + r * t->row_bytes, (const char *)t->src + (size_t)t->rows[r] * t->row_bytes, t->row_bytes);
    return gs_mono_s() - f0;
}

/* A new event id, or -1 when the table cannot grow (the caller then
 * drains the stream instead, so nothing needs to wait for an event). */
int cpu_event_new(struct backend *b)
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

/* A task for (dev, lane): run and logged on the virtual clock, or queued on the stream's thread. */
static void issue(struct backend *b, int dev, lane_t lane, const task_t *t)
{
    if (b->cfg.clock) virt_issue(b, dev, lane, t);
    else wall_enqueue(b, dev, lane, t);
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
    if (cfg->topo) b->topo = *cfg->topo, b->use_links = 1;
    b->cfg.topo = cfg->topo ? &b->topo : NULL;
    pthread_mutex_init(&b->mem_lock, NULL);
    pthread_mutex_init(&b->ev_lock, NULL);
    pthread_mutex_init(&b->st_lock, NULL);
    if (!cfg->clock) {
        int rc = wall_start(b, err);
        if (rc) {
            cpu_close(b);
            return rc;
        }
    }
    *out = b;
    return GS_OK;
}

static void cpu_close(backend_t *b)
{
    if (!b) return;
    if (b->cfg.clock) virt_free(b);
    else wall_stop(b);
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
    issue(b, dev, lane, &t);
}

static void cpu_copy_rows(backend_t *b, int dev, void *dst, const void *src, size_t row_bytes, const int32_t *rows,
                          int64_t n, chunk_tag_t tag)
{
    task_t t = {.kind = TASK_COPY, .dst = dst, .src = src, .bytes = row_bytes * (size_t)n, .rows = rows,
                .row_bytes = row_bytes, .tag = tag};
    if (b->use_links) t.path = &b->topo.h2d[dev];
    issue(b, dev, LANE_H2D, &t);
}

static void cpu_copy_rows_out(backend_t *b, int dev, void *dst, const void *src, size_t row_bytes, const int32_t *rows,
                              int64_t n, chunk_tag_t tag)
{
    task_t t = {.kind = TASK_COPY, .dst = dst, .src = src, .bytes = row_bytes * (size_t)n, .rows = rows,
                .row_bytes = row_bytes, .scatter = 1, .tag = tag};
    if (b->use_links) t.path = &b->topo.d2h[dev];
    issue(b, dev, LANE_D2H, &t);
}

static void cpu_copy_parts(backend_t *b, int dev, void *dst, const copy_part_t *parts, int n, chunk_tag_t tag)
{
    task_t t = {.kind = TASK_COPY, .dst = dst, .nparts = n, .tag = tag};
    for (int i = 0; i < n && i < GS_COPY_MAX_PARTS; i++) t.parts[i] = parts[i], t.bytes += parts[i].bytes;
    if (b->use_links) t.path = &b->topo.h2d[dev];
    issue(b, dev, LANE_H2D, &t);
}

static void cpu_launch(backend_t *b, int dev, const kernel_call_t *call, chunk_tag_t tag)
{
    task_t t = {.kind = TASK_KERNEL, .call = *call, .tag = tag};
    issue(b, dev, LANE_COMPUTE, &t);
}

static int cpu_record(backend_t *b, int dev, lane_t lane)
{
    task_t t = {.kind = TASK_RECORD, .event = cpu_event_new(b)};
    if (t.event < 0) { /* out of event ids: finish the stream's work now instead */
        if (!b->cfg.clock) wall_drain(b, dev, lane);
        return -1;
    }
    issue(b, dev, lane, &t);
    return t.event;
}

static void cpu_wait(backend_t *b, int dev, lane_t lane, int event)
{
    if (event < 0) return; /* nothing to wait for (see cpu_record) */
    task_t t = {.kind = TASK_WAIT, .event = event};
    issue(b, dev, lane, &t);
}

static int cpu_sync(backend_t *b, gs_err_t *err)
{
    (void)err; /* the host's copies and kernels do not fail once issued */
    if (b->cfg.clock) {
        virt_sync(b);
        return GS_OK;
    }
    for (int d = 0; d < b->cfg.ndev; d++)
        for (int l = 0; l < LANE__COUNT; l++) wall_drain(b, d, (lane_t)l);
    pthread_mutex_lock(&b->ev_lock);
    b->nev = 0; /* every recorded event has fired; ids can be reused */
    pthread_mutex_unlock(&b->ev_lock);
    return GS_OK;
}

/* The per-link byte counters: the online model's, or the replays'. */
static double *link_counters(backend_t *b, pthread_mutex_t **lock)
{
    *lock = b->cfg.clock ? &b->st_lock : &b->links.lock;
    return b->cfg.clock ? b->link_bytes : b->links.link_bytes;
}

static void cpu_stats(backend_t *b, backend_stats_t *out)
{
    pthread_mutex_lock(&b->st_lock);
    *out = b->st;
    pthread_mutex_unlock(&b->st_lock);
    if (!b->use_links) return;
    pthread_mutex_t *lock;
    double *bytes = link_counters(b, &lock);
    pthread_mutex_lock(lock);
    memcpy(out->link_bytes, bytes, sizeof out->link_bytes);
    pthread_mutex_unlock(lock);
}

static void cpu_reset_stats(backend_t *b)
{
    pthread_mutex_lock(&b->st_lock);
    backend_stats_clear(&b->st);
    pthread_mutex_unlock(&b->st_lock);
    if (!b->use_links) return;
    pthread_mutex_t *lock;
    double *bytes = link_counters(b, &lock);
    pthread_mutex_lock(lock);
    memset(bytes, 0, sizeof(double) * TOPO_MAX_LINKS);
    pthread_mutex_unlock(lock);
}

/* Every kernel of backend.h runs here. */
static int cpu_has_kernel(const backend_t *b, kernel_id_t id)
{
    (void)b;
    return id < KERN__COUNT;
}

const backend_ops_t backend_cpu = {
    "cpu",     cpu_open, cpu_close,  cpu_ndev, cpu_capacity, cpu_alloc,      cpu_free,
    cpu_copy,  cpu_copy_rows, cpu_copy_parts, cpu_launch, cpu_record, cpu_wait, cpu_sync, cpu_stats, cpu_reset_stats,
    cpu_has_kernel, cpu_copy_rows_out,
};
