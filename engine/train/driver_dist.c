/* driver_dist.c - the distributed driver's table and epoch (driver_dist.h):
 * a full-batch step over the rank's blocks on the rank engine, the
 * parameter gradients summed over the ranks before the optimiser, and the
 * epoch's loss, accuracies and counters summed over the ranks within its
 * evaluation time. */
#include <stdlib.h>
#include <string.h>

#include "driver_dist.h"

static int dist_check(const train_cfg_t *c, int nhops, gs_err_t *err)
{
    (void)nhops;
    if (c->batch_size > 0) return gs_fail(err, GS_EINPUT, "--batch-size: sampled training runs in one process (drop --ranks)");
    return GS_OK;
}

/* The rank's cut, plan and routes, then its executor over its blocks on the rank engine. */
static int dist_open(trainer_t *t, gs_err_t *err)
{
    int rc = trainer_dist_open(t, err);
    if (rc) return rc;
    dist_run_t *d = t->dist;
    t->kind.engine = ENGINE_DIST, t->kind.ranks = d->nranks;
    t->bind = (exec_binding_t){d->bs.ptr, dist_engine_exec(&d->engine), d->virtual_clock ? &d->clock : NULL, dist_log_op, d};
    return trainer_exec_open(t, err);
}

/* The parameter gradients summed over the ranks, in one message. */
static int sum_gradients(trainer_t *t, gs_err_t *err)
{
    params_t *ps = &t->model.params;
    int64_t total = params_count(ps), off = 0;
    float *buf = malloc(sizeof(float) * (size_t)(total + 1));
    if (!buf) return gs_fail(err, GS_EFAIL, "out of memory for the gradient all-reduce");
    for (int k = 0; k < ps->n; off += tensor_numel(&ps->g[k]), k++) memcpy(buf + off, ps->g[k].data, tensor_bytes(&ps->g[k]));
    int rc = dist_engine_allreduce(&t->dist->engine, buf, total, 0, err);
    off = 0;
    for (int k = 0; !rc && k < ps->n; off += tensor_numel(&ps->g[k]), k++) memcpy(ps->g[k].data, buf + off, tensor_bytes(&ps->g[k]));
    free(buf);
    return rc;
}

static int dist_epoch(trainer_t *t, epoch_stats_t *st, gs_err_t *err)
{
    memset(&t->dist->engine.ctr, 0, sizeof t->dist->engine.ctr);
    full_epoch_hooks_t h = {sum_gradients, trainer_dist_epoch_end}; /* each rank's share of the whole graph's */
    return trainer_full_epoch(t, st, &h, err);
}

const train_driver_t train_driver_dist = {
    .kind = DRIVER_DIST,
    .check = dist_check,
    .open = dist_open,
    .close = trainer_dist_close,
    .agree = trainer_dist_sync,
    .apply = trainer_dist_apply,
    .boundary = trainer_dist_resplit,
    .epoch = dist_epoch,
};
