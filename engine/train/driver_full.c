/* driver_full.c - the full-batch driver (driver.h): every epoch is one
 * training step over the whole graph and the evaluation forward, in
 * memory or chunk by chunk on the streaming engine's devices (with
 * --stream, or any device knob), whose counters fold into the epoch's;
 * after each streamed epoch the partitioner learns from the parts' times
 * and may re-cut the intervals at the next boundary. */
#include "driver.h"

static int full_check(const train_cfg_t *c, int nhops, gs_err_t *err)
{
    (void)c, (void)nhops, (void)err;
    return GS_OK;
}

static int full_open(trainer_t *t, gs_err_t *err)
{
    t->bind = (exec_binding_t){0};
    return t->cfg.stream ? trainer_stream_open(t, err) : trainer_exec_open(t, err);
}

static void full_close(trainer_t *t) { trainer_stream_close(t); }

static int full_boundary(trainer_t *t, gs_err_t *err)
{
    int rc = trainer_stream_resplit(t, err);
    return rc ? rc : trainer_dkp_resize(t, NULL, err); /* back from blocks: the whole graph's sizes */
}

static int full_epoch(trainer_t *t, epoch_stats_t *st, gs_err_t *err)
{
    int streaming = t->kind.engine == ENGINE_STREAM;
    if (streaming) stream_engine_epoch_begin(&t->stream, t->epoch > 0);
    int rc = trainer_full_epoch(t, st, NULL, err);
    if (!streaming) return rc;
    stream_engine_epoch_end(&t->stream, st); /* counters cover the training step and the evaluation */
    if (rc) return rc;
    const streamer_t *s = &t->stream.streamer;
    rc = part_online_learn(&t->part, t->cfg.partitioner, &t->data.g, s->p, s->part_s, t->stream.steady, st, err);
    return rc || !t->stream.steady ? rc : trainer_part_save(t, err);
}

const train_driver_t train_driver_full = {
    .kind = DRIVER_FULL,
    .check = full_check,
    .open = full_open,
    .close = full_close,
    .apply = trainer_reconfigure,
    .boundary = full_boundary,
    .epoch = full_epoch,
};
