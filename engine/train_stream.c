/* train_stream.c - sets up the streaming engine for a trainer: picks the
 * topology and scales its links, chooses P (--chunks auto: the smallest P
 * whose working set fits --device-mem), renumbers the vertices (--order),
 * and opens the cpu backend's virtual devices and the streamer. Also
 * folds the backend's counters into each epoch's stats. */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "train.h"

#include "cuda_plugin.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Host FLOP/s: best of three 384^3 sgemms on the configured threads. */
static double probe_host_flops(void)
{
    enum { D = 384 };
    float *a = malloc(sizeof(float) * D * D * 3);
    if (!a) return 1e10;
    for (int i = 0; i < D * D * 3; i++) a[i] = (float)(i % 13) * 0.01f;
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = now_s();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, D, D, D, 1.0f, a, D, a + D * D, D, 0.0f, a + 2 * D * D, D);
        double dt = now_s() - t0;
        if (dt < best) best = dt;
    }
    free(a);
    return 2.0 * D * D * D / best;
}

uint64_t trainer_stream_working_set(const program_t *p, int64_t n, int chunks, int k)
{
    uint64_t ws = streamer_working_set(n, chunks, k, 1);
    for (int i = 0; i < p->ncode; i++) {
        const instr_t *in = &p->code[i];
        uint64_t w = 0;
        if (in->op == OP_GATHER || in->op == OP_GATHER_TYPED) {
            int64_t a = p->vals[in->in[0]].cols, o = p->vals[in->out].cols;
            w = streamer_working_set(n, chunks, k, a > o ? a : o);
        } else if (exec_streams_matmul(p, in)) {
            w = streamer_matmul_working_set(n, chunks, k, p->vals[in->in[0]].cols, p->vals[in->out].cols);
        }
        if (w > ws) ws = w;
    }
    return ws;
}

/* Renumbers the dataset and rebuilds the graph; original ids follow, so
 * dropout masks and everything keyed by them are unchanged. */
static int renumber(trainer_t *t, const int32_t *perm, gs_err_t *err)
{
    int64_t n = t->g.n;
    int32_t *orig = malloc(sizeof(int32_t) * (size_t)n);
    if (!orig) return gs_fail(err, GS_EFAIL, "out of memory");
    for (int64_t v = 0; v < n; v++) orig[v] = t->g.orig_id[perm[v]];
    int rc = dataset_permute(&t->ds, perm, err);
    if (!rc) {
        graph_free(&t->g);
        rc = graph_build(&t->g, &t->ds, err);
    }
    if (!rc) memcpy(t->g.orig_id, orig, sizeof(int32_t) * (size_t)n);
    free(orig);
    return rc;
}

/* The backend's task hook: the streamer's profile, then the observer. */
static void task_hook(void *user, int dev, lane_t lane, chunk_tag_t tag, double t0, double t1, double bytes)
{
    trainer_t *t = user;
    streamer_task_hook(&t->streamer, dev, lane, tag, t0, t1, bytes);
    if (t->cfg.on_task) t->cfg.on_task(t->cfg.observer, dev, lane, tag, t0, t1, bytes);
}

int trainer_stream_open(trainer_t *t, gs_err_t *err)
{
    const train_cfg_t *c = &t->cfg;
    int rc;
    if (!c->stream) return GS_OK;
    int real = c->device == DEVICE_CUDA; /* real GPUs: no interconnect model, every device in one group */
    memset(&t->topo, 0, sizeof t->topo);
    if (!real && topology_get(c->topology, &t->topo) != 0)
        return gs_fail(err, GS_EINPUT, "--topology %s: unknown (see gnnscope topologies)", c->topology);
    int maxdev = real ? TOPO_MAX_DEV : t->topo.ndev;
    if (c->devices < 1 || c->devices > maxdev)
        return gs_fail(err, GS_EINPUT, "--devices %d: %s %s has %d device%s", c->devices, real ? "the cuda backend" : "topology",
                       real ? "" : t->topo.name, maxdev, maxdev > 1 ? "s" : "");
    if (!real) {
        t->host_flops = probe_host_flops();
        t->link_scale = c->link_scale > 0 ? c->link_scale : t->host_flops / t->topo.gpu_flops;
        topology_scale(&t->topo, t->link_scale);
    }
    int k = c->knobs.subchunks < 1 ? 1 : c->knobs.subchunks, p = c->chunks;
    int64_t n = t->g.n;
    if (p == 0) {
        p = 1;
        if (c->device_mem) {
            while (p < n && trainer_stream_working_set(&t->prog, n, p, k) > c->device_mem) p++;
            if (trainer_stream_working_set(&t->prog, n, p, k) > c->device_mem)
                return gs_fail(err, GS_EINPUT, "--device-mem %llu: too small for any chunk count of this model",
                               (unsigned long long)c->device_mem);
        }
        /* every device gets the same number of columns */
        if (c->devices > 1 && p % c->devices) p += c->devices - p % c->devices;
        if (p > n) p = (int)n;
    }
    if (p < 1 || p > n) return gs_fail(err, GS_EINPUT, "--chunks %d must be in [1, %lld]", p, (long long)n);
    uint64_t need = trainer_stream_working_set(&t->prog, n, p, k);
    if (c->device_mem && need > c->device_mem)
        return gs_fail(err, GS_EINPUT, "--device-mem %llu is too small for %d chunks (needs %llu bytes); use --chunks auto",
                       (unsigned long long)c->device_mem, p, (unsigned long long)need);
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)n);
    int64_t *bounds = malloc(sizeof(int64_t) * (size_t)(p + 1));
    if (!perm || !bounds) {
        free(perm), free(bounds);
        return gs_fail(err, GS_EFAIL, "out of memory");
    }
    rc = partition_order(&t->g, c->order, p, c->seed, perm, bounds, err);
    if (!rc && c->order == ORDER_NONE) /* back to the original numbering */
        for (int64_t v = 0; v < n; v++) perm[t->g.orig_id[v]] = (int32_t)v;
    int identity = 1;
    for (int64_t v = 0; v < n && identity; v++) identity = perm[v] == v;
    if (!rc && !identity) rc = renumber(t, perm, err);
    backend_cfg_t bc = {c->devices, c->device_mem, c->links_native || real ? NULL : &t->topo, task_hook, t};
    t->bops = &backend_cpu;
    if (!rc && c->device == DEVICE_CUDA) {
        const gs_cuda_t *cu = gs_cuda_get(err);
        if (cu) t->bops = cu->backend;
        else rc = err->code;
    }
    if (!rc) rc = t->bops->open(&t->backend, &bc, err);
    if (!rc) rc = streamer_init(&t->streamer, t->bops, t->backend, real ? NULL : &t->topo, &t->g, p, bounds, &c->knobs, err);
    if (!rc) rc = streamer_probe(&t->streamer, err);
    free(perm), free(bounds);
    if (rc) return rc;
    t->chunks = p;
    t->streamer.abort_flag = &t->abort_epoch;
    t->ex.stream = &t->streamer;
    return GS_OK;
}

void trainer_stream_close(trainer_t *t)
{
    streamer_free(&t->streamer);
    if (t->backend) t->bops->close(t->backend);
    t->backend = NULL;
}

void trainer_stream_epoch_begin(trainer_t *t)
{
    if (!t->backend) return;
    t->bops->reset_stats(t->backend);
    memset(&t->streamer.ctr, 0, sizeof t->streamer.ctr);
    t->streamer.profiling = 1;
    t->streamer.have_profile = t->epoch > 0;
    streamer_mp_epoch_begin(&t->streamer);
}

void trainer_stream_epoch_end(trainer_t *t, epoch_stats_t *st)
{
    if (!t->backend) return;
    t->bops->stats(t->backend, &t->last_stats);
    for (int d = 0; d < t->cfg.devices; d++) {
        st->h2d_bytes += t->last_stats.bytes[d][LANE_H2D];
        st->d2h_bytes += t->last_stats.bytes[d][LANE_D2H];
        st->d2d_bytes += t->last_stats.bytes[d][LANE_D2D];
        st->filter_ms += 1e3 * t->last_stats.filter_s[d];
    }
    const stream_counters_t *k = &t->streamer.ctr;
    st->overlap = k->transfer_s > 0 ? k->hidden_s / k->transfer_s : 0;
    st->kept_bytes = t->streamer.mp.kept_bytes;
    streamer_mp_epoch_end(&t->streamer);
}
