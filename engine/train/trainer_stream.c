/* trainer_stream.c - a trainer's streaming engine (trainer.h): opening the
 * devices under the run's configuration (the vertex order may renumber
 * the data), closing them, re-cutting their intervals when the
 * partitioner asks, and putting a new configuration in force in one
 * process. A reopened engine's clock goes on from where the last one
 * stopped. */
#include "trainer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/partition/part_model_file.h"

stream_cfg_t stream_cfg_of(const trainer_t *t)
{
    const train_cfg_t *c = &t->cfg;
    stream_cfg_t s = {c->device == DEVICE_CUDA, c->devices, c->device_mem, "", c->link_scale, c->links_native, c->clock,
                      c->ktime, c->chunks, c->order, c->seed, c->knobs, t->env.on_task, t->env.observer, c->simulate,
                      stream_edge_fields(&t->model.prog)};
    snprintf(s.topology, sizeof s.topology, "%s", c->topology);
    topology_t tp; /* no --device-mem: each emulated device holds what its GPU model's memory does */
    if (!s.device_mem && !s.real && topology_get(c->topology, &tp) == 0) s.device_mem = (uint64_t)tp.gpu_mem;
    return s;
}

void trainer_stream_close(trainer_t *t)
{
    if (t->kind.engine != ENGINE_STREAM) return;
    if (t->ex.clock) t->clock_end = t->ex.clock->now;
    stream_engine_close(&t->stream);
    t->kind.engine = ENGINE_MEMORY, t->kind.devices = 0;
    t->bind.engine = (exec_engine_t){NULL, NULL}, t->bind.clock = NULL;
    t->ex.engine = (exec_engine_t){&exec_memory_ops, &t->ex.kp};
    t->ex.clock = NULL;
}

/* Opens the devices on plan (the data already in its numbering). */
static int stream_open_on(trainer_t *t, const stream_plan_t *plan, gs_err_t *err)
{
    stream_cfg_t sc = stream_cfg_of(t);
    int rc = stream_engine_open(&t->stream, &sc, &t->data.g, plan, &t->abort_epoch, err);
    if (rc) return rc;
    t->kind.engine = ENGINE_STREAM, t->kind.devices = t->cfg.devices;
    if (t->stream.virtual_clock && t->clock_end > t->stream.clock.now) t->stream.clock.now = t->clock_end; /* time goes on */
    t->bind.engine = stream_engine_exec(&t->stream), t->bind.clock = stream_engine_clock(&t->stream);
    return trainer_exec_open(t, err);
}

int trainer_part_plan(trainer_t *t, int p, int64_t *bounds, gs_err_t *err)
{
    const char *model = t->cfg.partition_model;
    if (model[0] && !t->part.model_read && access(model, F_OK) == 0) { /* a model learned before: its cut from the start */
        int rc = part_online_read_model(&t->part, &t->model.prog, model, err);
        if (rc) return rc;
    }
    int rc = part_online_cut(&t->part, t->cfg.partitioner, &t->data.g, &t->model.prog, p, bounds, err);
    stream_plan_t plan = {p, NULL, bounds, 0};
    stream_cfg_t sc = stream_cfg_of(t);
    if (!rc && !t->cfg.dist) rc = stream_plan_fits(&sc, &t->model.prog, &t->data.g, &plan, err); /* ranks have no device cap */
    return rc ? rc : part_online_adopt(&t->part, p, bounds, err);
}

int trainer_part_save(const trainer_t *t, gs_err_t *err)
{
    if (!t->cfg.partition_model[0] || !t->part.model.fitted) return GS_OK;
    return part_model_write(&t->part.model, t->cfg.partition_model, err);
}

int trainer_stream_open(trainer_t *t, gs_err_t *err)
{
    if (!t->cfg.stream) return GS_OK;
    stream_plan_t plan;
    stream_cfg_t sc = stream_cfg_of(t);
    int rc = stream_plan(&sc, &t->model.prog, &t->data.g, &plan, err);
    if (rc) return rc;
    if (plan.perm) { /* a new vertex order: the data follows it */
        rc = data_renumber(&t->data, plan.perm, err);
        if (!rc) rc = data_place(&t->data, t->kp, t->cfg.feat_norm, err);
    }
    if (!rc) rc = trainer_part_plan(t, plan.p, plan.bounds, err);
    if (!rc) rc = stream_open_on(t, &plan, err);
    stream_plan_free(&plan);
    return rc;
}

/* The old cut opened before: back to it (equal-vertex keeps the bounds it is given). */
static void reopen_old_cut(trainer_t *t, int p, int64_t *old)
{
    gs_err_t ignored;
    partitioner_kind_t kind = t->cfg.partitioner;
    stream_plan_t plan = {p, NULL, old, 0};
    trainer_stream_close(t);
    t->cfg.partitioner = PART_EQUAL_VERTEX;
    if (trainer_part_plan(t, p, old, &ignored) || stream_open_on(t, &plan, &ignored)) t->cfg.stream = 0;
    t->cfg.partitioner = kind;
}

int trainer_stream_resplit(trainer_t *t, gs_err_t *err)
{
    if (t->kind.engine != ENGINE_STREAM || !t->part.resplit) return GS_OK;
    int p = t->part.p;
    int64_t *now = malloc(sizeof(int64_t) * (size_t)(p + 1)), *next = malloc(sizeof(int64_t) * (size_t)(p + 1));
    if (!now || !next) {
        free(now), free(next);
        return gs_fail(err, GS_EFAIL, "out of memory for a new split");
    }
    memcpy(now, t->part.bounds, sizeof(int64_t) * (size_t)(p + 1));
    memcpy(next, now, sizeof(int64_t) * (size_t)(p + 1));
    gs_err_t why;
    int rc = GS_OK;
    if (trainer_part_plan(t, p, next, &why) == GS_OK) { /* cut by the refit model; a cut the cap refuses keeps the old one */
        trainer_stream_close(t);
        stream_plan_t plan = {p, NULL, next, 0};
        rc = stream_open_on(t, &plan, err);
        if (rc) reopen_old_cut(t, p, now);
    }
    t->part.resplit = 0;
    free(now), free(next);
    return rc;
}

/* Closes the streaming engine and opens it again under t->cfg; on failure
 * the engine is closed. */
static int reopen(trainer_t *t, gs_err_t *err)
{
    trainer_stream_close(t);
    int rc = trainer_stream_open(t, err);
    if (rc) trainer_stream_close(t);
    return rc;
}

int trainer_reconfigure(trainer_t *t, const train_cfg_t *old, const train_cfg_t *want, gs_err_t *err)
{
    int rebuild = knob_changed(old, want, WHEN_PROGRAM); /* new gathers: a streamed run re-plans its chunks too */
    if (!knob_changed(old, want, WHEN_REOPEN) && old->stream == want->stream && !(rebuild && want->stream)) {
        t->cfg = *want;
        int rc = rebuild ? trainer_rebuild_program(t, err) : GS_OK;
        if (rc) t->cfg = *old;
        if (t->kind.engine == ENGINE_STREAM) streamer_set_knobs(&t->stream.streamer, &t->cfg.knobs);
        return rc;
    }
    if (t->kp.K->device) /* tensors on a GPU: the streamed engine keeps them on the host */
        return gs_fail(err, GS_EINPUT, "streaming knobs apply to streamed runs; this run trains in GPU memory "
                                       "(restart with --backend cuda and --device-mem or --chunks)");
    t->cfg = *want;
    int rc = rebuild ? trainer_rebuild_program(t, err) : GS_OK;
    if (!rc) rc = reopen(t, err);
    if (rc) { /* put the previous configuration back */
        gs_err_t ignored;
        t->cfg = *old;
        if (rebuild) trainer_rebuild_program(t, &ignored);
        if (reopen(t, &ignored)) t->cfg.stream = 0; /* the old devices no longer open: train in memory */
    }
    return rc;
}
