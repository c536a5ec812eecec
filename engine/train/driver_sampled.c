/* driver_sampled.c - the sampled mini-batch driver (driver.h, --batch-size):
 * the training vertices in an order keyed by (seed, epoch), cut into
 * batches; each batch sampled and looked up (sampler.h), then one step on
 * its blocks (forward, loss on the targets, backward, optimiser); then
 * full-neighbourhood evaluation on the whole graph, as full-batch training
 * evaluates. Batch b+1 is prepared on a second thread while batch b
 * trains (the thread pool runs one loop at a time, so the two share it),
 * except with --prepro blocking, which prepares each batch after the
 * previous step (the modes' emulated timelines: prepro_sched.h). The epoch's time is the emulated timeline of prepro_sched.h: the
 * steps are charged as the emulated GPU's kernels (the topology's
 * roofline, or with --kernel-time measured their CPU time scaled to the
 * GPU), the preprocessing as the modeled host's. Runs in memory on
 * the host only (not streamed, not distributed, not on the CUDA place). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/mono_clock.h"
#include "driver.h"
#include "base/threadpool.h"
#include "engine/kernels/host_rate.h"
#include "engine/machine/vclock.h"
#include "engine/sample/prepro_sched.h"
#include "engine/sample/sampler.h"
#include "engine/program/op_table.h"

struct sampled_run {
    sampler_t sampler;
    batch_t batch[2];
    int32_t *order;   /* the epoch's training vertices */
    int64_t norder;
    vclock_t clock;   /* the emulated GPU: steps and evaluation */
    prepro_sched_t sched;
    topology_t topo;
    int fanout[BLOCKS_MAX_HOPS];
    int64_t stepping; /* the batch whose step runs (-1: evaluation), for the ops' spans */
};

static int sampled_check(const train_cfg_t *c, int nhops, gs_err_t *err)
{
    if (c->stream) return gs_fail(err, GS_EINPUT, "--batch-size: sampled training runs in host memory; it does not stream (drop the device and streaming flags)");
    if (c->dist) return gs_fail(err, GS_EINPUT, "--batch-size: sampled training runs in one process (drop --ranks)");
    if (c->device == DEVICE_CUDA)
        return gs_fail(err, GS_EINPUT, "--batch-size: sampled training runs on the cpu backend (the CUDA place has no batch upload yet)");
    if (nhops < 1) return gs_fail(err, GS_EINPUT, "--batch-size: this model has no neighbourhood to sample (no gather)");
    if (c->fanout.n > nhops)
        return gs_fail(err, GS_EINPUT, "--fanout: %d values for a model of %d hops (give at most one per hop, the targets' own first)",
                       c->fanout.n, nhops);
    return GS_OK;
}

static void sampled_close(trainer_t *t)
{
    struct sampled_run *s = t->sampled;
    if (!s) return;
    sampler_free(&s->sampler);
    batch_free(&s->batch[0]), batch_free(&s->batch[1]);
    free(s->order);
    free(s);
    t->sampled = NULL;
}

static int sampled_open(trainer_t *t, gs_err_t *err)
{
    t->bind = (exec_binding_t){0};
    return trainer_exec_open(t, err);
}

/* The driver's state, from its first epoch. */
static int sampled_state(trainer_t *t, gs_err_t *err)
{
    if (t->sampled) return GS_OK;
    struct sampled_run *s = calloc(1, sizeof *s);
    if (!s) return gs_fail(err, GS_EFAIL, "out of memory for sampled training");
    t->sampled = s;
    if (topology_get(t->cfg.topology, &s->topo)) return gs_fail(err, GS_EINPUT, "--topology %s: unknown", t->cfg.topology);
    int64_t n = t->data.split_n[SPLIT_TRAIN];
    s->order = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    if (!s->order) return gs_fail(err, GS_EFAIL, "out of memory for sampled training");
    s->norder = n;
    int rc = sampler_init(&s->sampler, &t->data.g, err);
    /* the steps run on the emulated GPU: its roofline prices them, or their
     * CPU time scaled by this host's sgemm rate to the GPU's */
    int threads = gs_pool_threads();
    double core = t->cfg.ktime == KTIME_MEASURED ? host_probe_flops() / threads : s->topo.host_flops;
    vclock_init(&s->clock, &s->topo, t->cfg.ktime, core, threads, gs_mono_s());
    s->clock.ops_on_gpu = 1;
    return rc;
}

typedef struct {
    trainer_t *t;
    const int32_t *targets;
    int64_t nt, index;
    batch_t *b;
    int nhops; /* read before the thread starts: the step may reopen the executor meanwhile */
    double wall_s; /* the preparation's host time */
    int rc;
    gs_err_t err;
} prepare_t;

/* S, R and K of one batch (on the pipelined run's second thread). */
static void *prepare(void *arg)
{
    prepare_t *p = arg;
    trainer_t *t = p->t;
    struct sampled_run *s = t->sampled;
    double w0 = gs_mono_s();
    p->rc = sampler_sample(&s->sampler, p->targets, p->nt, p->nhops, s->fanout, t->cfg.seed, t->epoch, p->index, p->b, &p->err);
    if (!p->rc) p->rc = sampler_lookup(p->b, &t->data.x, t->data.label_k, &p->err);
    p->wall_s = gs_mono_s() - w0;
    return NULL;
}

/* The executor's op spans, as the step's (or the evaluation's) spans on
 * the emulated device. */
static void step_op(void *user, const instr_t *in, int phase, double t0, double t1, double flops)
{
    trainer_t *t = user;
    stage_span_t sp = {STAGE_COMPUTE, 0, phase, in ? in->layer : -1, t->sampled->stepping, t0, t1, 0, flops,
                       in ? op_name(in->op) : "adam"};
    t->env.on_stage(t->env.observer, &sp);
}

/* DKP decided for batch b's blocks (Table I with n_src != n_dst, as
 * GraphTensor's Cost-DKP decides on each batch's dimensions): each
 * layer's gather sizes. */
static int dkp_for_blocks(trainer_t *t, const batch_t *b, gs_err_t *err)
{
    dkp_shape_t by_layer[PROG_MAX_LAYERS] = {{0, 0, 0}};
    const program_t *p = &t->model.prog;
    for (int i = 0; i < p->ncode; i++) {
        const instr_t *in = &p->code[i];
        int h = t->ex.hop[i];
        if (in->op != OP_GATHER || h < 1 || h > b->bs.nhops || in->layer < 0 || in->layer >= PROG_MAX_LAYERS) continue;
        const graph_t *g = &b->bs.block[h];
        by_layer[in->layer] = (dkp_shape_t){g->nsrc, g->n, g->m};
    }
    return trainer_dkp_resize(t, by_layer, err);
}

/* The executor as a step wants it: on the emulated GPU's clock, its ops
 * shown as the step's, DKP's samples taken when fitting; again after a
 * DKP re-decision reopened it (its host seconds so far carried over). */
static void step_env(trainer_t *t, dkp_model_t *samples, double own_s)
{
    t->ex.clock = &t->sampled->clock;
    t->ex.samples = samples;
    t->ex.own_s = own_s;
    if (t->ex.on_op && t->env.on_stage) t->ex.on_op = step_op, t->ex.op_user = t;
}

/* DKP for batch b, then the step's executor (step_env). */
static int step_dkp(trainer_t *t, const batch_t *b, dkp_model_t *samples, double own_s, gs_err_t *err)
{
    int rc = dkp_for_blocks(t, b, err); /* may reopen the executor */
    step_env(t, samples, own_s);
    return rc;
}

/* One step on batch b: returns its loss (mean over its labelled targets). */
static int step(trainer_t *t, batch_t *b, int64_t e, double *loss, gs_err_t *err)
{
    int rc = exec_bind(&t->ex, b->bs.ptr, err);
    if (rc) return rc;
    const tensor_t *out = exec_forward(&t->ex, &b->x, 1, e);
    *loss = trainer_loss(t, out, b->label, b->rows, b->ntargets, b->labelled);
    tensor_t dl = {out->rows, out->cols, t->dlogits.data}; /* the batch's rows of the gradient */
    exec_backward(&t->ex, &dl);
    if (t->ex.failed) {
        *err = t->ex.err;
        return err->code;
    }
    return trainer_optimise(t, err);
}

static int sampled_epoch(trainer_t *t, epoch_stats_t *st, gs_err_t *err)
{
    int rc = sampled_check(&t->cfg, t->ex.nhops, err);
    if (!rc) rc = sampled_state(t, err);
    if (rc) return rc;
    struct sampled_run *s = t->sampled;
    train_data_t *d = &t->data;
    int64_t e = t->epoch, bs = t->cfg.batch_size < s->norder ? t->cfg.batch_size : s->norder;
    int64_t nb = bs > 0 ? (s->norder + bs - 1) / bs : 0;
    if (!nb) return gs_fail(err, GS_EINPUT, "--batch-size: the training split is empty");
    for (int h = 0; h < t->ex.nhops; h++) /* fewer values than hops: the last repeats */
        s->fanout[h] = t->cfg.fanout.v[h < t->cfg.fanout.n ? h : t->cfg.fanout.n - 1];
    sampler_shuffle(d->split_k[SPLIT_TRAIN], s->norder, t->cfg.seed, e, s->order);
    double w0 = gs_mono_s();
    prepare_t job = {.t = t, .targets = s->order, .nt = bs < s->norder ? bs : s->norder, .b = &s->batch[0], .nhops = t->ex.nhops};
    prepare(&job);
    if ((rc = job.rc)) return *err = job.err, rc;
    s->sched.mode = (prepro_mode_t)t->cfg.prepro, s->sched.threads = t->cfg.prepro_threads;
    s->sched.on_span = t->env.on_stage, s->sched.span_user = t->env.observer;
    prepro_sched_init(&s->sched, &s->topo, d->g.n, s->clock.now);
    op_hook_t host_ops = t->ex.on_op;
    void *host_user = t->ex.op_user;
    t->ex.clock = &s->clock; /* the samples' condition reads it */
    dkp_model_t *fit = trainer_dkp_samples(t);
    double t0 = s->clock.now, loss_sum = 0, labelled = 0, flops = 0, agg = 0, edges = 0, end = t0;
    double host_s = job.wall_s, ready = prepro_sched_batch(&s->sched, &s->batch[0], 0, d->x.cols);
    for (int64_t b = 0; b < nb && !rc; b++) {
        batch_t *cur = &s->batch[b % 2];
        int64_t lo = (b + 1) * bs, n_next = b + 1 < nb ? (s->norder - lo < bs ? s->norder - lo : bs) : 0;
        prepare_t next = {.t = t, .targets = s->order + lo, .nt = n_next, .index = b + 1, .b = &s->batch[(b + 1) % 2], .nhops = t->ex.nhops};
        pthread_t th;
        int threaded = n_next && s->sched.mode != PREPRO_BLOCKING && pthread_create(&th, NULL, prepare, &next) == 0;
        /* the step starts when its batch is on the device and the previous step is done */
        s->clock.now = s->sched.step_end > ready ? s->sched.step_end : ready;
        s->stepping = b;
        double c0 = s->clock.now, loss = 0;
        rc = step_dkp(t, cur, fit, b ? t->ex.own_s : 0, err);
        if (!rc) rc = step(t, cur, e, &loss, err);
        double step_s = s->clock.now - c0;
        if (threaded) pthread_join(th, NULL);
        else if (n_next && !rc) prepare(&next);
        if (rc) break;
        loss_sum += loss * (double)cur->labelled, labelled += (double)cur->labelled;
        flops += t->ex.flops;
        for (int h = 1; h <= cur->nhops; h++) edges += (double)cur->bs.block[h].m;
        for (int l = 0; l < PROG_MAX_LAYERS; l++) agg += t->ex.agg_flops[l][0] + t->ex.agg_flops[l][1];
        end = prepro_sched_step(&s->sched, ready, step_s);
        host_s += next.wall_s;
        if (n_next && (rc = next.rc)) *err = next.err;
        else if (n_next) ready = prepro_sched_batch(&s->sched, next.b, b + 1, d->x.cols);
    }
    st->wall_ms = 1e3 * (gs_mono_s() - w0), st->prepro_host_ms = 1e3 * host_s;
    s->clock.now = end; /* evaluation follows the last step on the device */
    s->stepping = -1;
    double own_s = t->ex.own_s;
    if (!rc && fit && (rc = trainer_dkp_refit(t, err)) == GS_OK) step_env(t, NULL, own_s); /* decides from the next batch on */
    t->ex.samples = NULL;
    if (!rc) rc = exec_bind_graph(&t->ex, d->kg, err);
    double e0 = s->clock.now;
    if (!rc) rc = trainer_evaluate(t, exec_forward(&t->ex, &d->x, 0, e), st, err);
    t->ex.on_op = host_ops, t->ex.op_user = host_user;
    if (rc) return rc;
    st->loss = labelled > 0 ? loss_sum / labelled : 0;
    st->epoch_ms = 1e3 * (end - t0);
    st->eval_ms = 1e3 * (s->clock.now - e0);
    st->host_ms = 1e3 * t->ex.own_s;
    st->flops = flops, st->agg_flops = agg;
    st->batches = (double)nb, st->sampled_edges = edges;
    st->sample_ms = 1e3 * s->sched.stage_s[STAGE_SAMPLE], st->reindex_ms = 1e3 * s->sched.stage_s[STAGE_REINDEX];
    st->lookup_ms = 1e3 * s->sched.stage_s[STAGE_LOOKUP], st->batch_copy_ms = 1e3 * s->sched.stage_s[STAGE_TRANSFER];
    st->step_ms = 1e3 * s->sched.stage_s[STAGE_COMPUTE], st->prepro_wait_ms = 1e3 * s->sched.stall_s;
    st->lock_ms = 1e3 * s->sched.lock_s, st->lock_sr_ms = 1e3 * s->sched.lock_sr_s;
    st->edge_bytes = prog_edge_bytes(&t->model.prog, d->g.m);
    return GS_OK;
}

static int sampled_boundary(trainer_t *t, gs_err_t *err)
{
    (void)t, (void)err;
    return GS_OK; /* DKP is decided for each epoch's blocks, in the epoch */
}

const train_driver_t train_driver_sampled = {
    .kind = DRIVER_SAMPLED,
    .check = sampled_check,
    .open = sampled_open,
    .close = sampled_close,
    .apply = trainer_reconfigure,
    .boundary = sampled_boundary,
    .epoch = sampled_epoch,
};
