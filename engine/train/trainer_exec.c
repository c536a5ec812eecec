/* trainer_exec.c - the execution part of a trainer (trainer.h): the
 * executor over the model's program, bound as the driver says, and the
 * program's rebuilds. */
#include "trainer.h"

/* The op observer sees host work only: on a device, ops are asynchronous
 * and the device's own profiler (CUPTI) reports them instead. */
static void observe_ops(trainer_t *t)
{
    t->ex.on_op = t->bind.on_op ? t->bind.on_op : t->kp.K->device ? NULL : t->env.on_op;
    t->ex.op_user = t->bind.on_op ? t->bind.op_user : t->env.observer;
}

int trainer_exec_open(trainer_t *t, gs_err_t *err)
{
    exec_free(&t->ex);
    int rc = exec_init(&t->ex, &t->model.prog, t->kp, &t->model.params, t->cfg.seed, err);
    t->ex.share_buffers = !t->bind.engine.ops; /* the in-memory engine keeps no copies of host tensors */
    if (!rc) rc = t->bind.blocks ? exec_bind(&t->ex, t->bind.blocks, err) : exec_bind_graph(&t->ex, t->data.kg, err);
    if (rc) return rc;
    if (t->bind.engine.ops) t->ex.engine = t->bind.engine;
    t->ex.clock = t->bind.clock;
    observe_ops(t);
    if (t->env.tally_ops && (rc = op_tally_start(&t->tally, t->model.prog.ncode, err))) return rc;
    t->ex.tally = t->env.tally_ops ? &t->tally : NULL;
    return GS_OK;
}

int trainer_rebuild_program(trainer_t *t, gs_err_t *err)
{
    int rc = model_rebuild(&t->model, t->cfg.dkp, t->cfg.fuse, err);
    return rc ? rc : trainer_exec_open(t, err);
}

int trainer_dkp_resize(trainer_t *t, const dkp_shape_t *by_layer, gs_err_t *err)
{
    if (!by_layer && !t->model.dkp_sized) return GS_OK;
    int reordered = 0, rc = model_resize_dkp(&t->model, t->cfg.dkp, t->cfg.fuse, by_layer, &reordered, err);
    return rc || !reordered ? rc : trainer_exec_open(t, err);
}

dkp_model_t *trainer_dkp_samples(trainer_t *t)
{
    int measured = !t->ex.clock || t->cfg.ktime == KTIME_MEASURED;
    return measured && t->model.ndkp > 0 && !t->model.dkp_model.fitted ? &t->model.dkp_model : NULL;
}

int trainer_dkp_refit(trainer_t *t, gs_err_t *err)
{
    int reordered = 0, rc = model_fit_dkp(&t->model, t->cfg.dkp, t->cfg.fuse, &reordered, err);
    return rc || !reordered ? rc : trainer_exec_open(t, err);
}

knob_facts_t trainer_knob_facts(const trainer_t *t)
{
    knob_facts_t f = {t->kind, t->data.g.n, t->data.g.m, 0, t->ex.nhops, t->stream.chunks, t->stream.link_scale};
    if (t->data.g.n > 0) /* the planner's own need, at one vertex an interval */
        f.min_device_mem = stream_working_set(&t->model.prog, t->data.g.n, t->data.g.m, (int)t->data.g.n, &t->cfg.knobs);
    return f;
}

void trainer_set_pending(trainer_t *t, const train_cfg_t *want)
{
    t->pending = *want;
    t->has_pending = 1;
}
