/* train.c - opening and closing a trainer (train.h): the data, the model,
 * where the tensors live, and the execution engine. */
#include "train.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/device/cuda_plugin.h"
#include "base/threadpool.h"
#include "driver_dist.h"

void train_cfg_defaults(train_cfg_t *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->dataset, sizeof c->dataset, "cora");
    snprintf(c->model, sizeof c->model, "gcn");
    c->layers = 2;
    c->hidden = 16;
    c->heads = 8;
    c->epochs = 200;
    c->lr = 0.01f;
    c->weight_decay = 5e-4f;
    c->dropout = 0.5f;
    c->seed = 42;
    c->threads = 0;
    c->dkp = DKP_AUTO;
    c->fuse = 1;
    c->fanout = (opt_list_t){2, {10, 5}};
    c->prepro = 1; /* pipelined */
    c->feat_norm = FEAT_NORM_AUTO;
    c->devices = 1;
    snprintf(c->topology, sizeof c->topology, "1gpu");
    c->chunks = 0;
    c->order = ORDER_NONE;
    c->knobs = (stream_knobs_t){.pipeline = 1, .subchunks = 2, .selective = SEL_AUTO, .swap = 1, .multidev = MD_CHAIN,
                                .memplan = MP_ROC};
    c->dep = DEP_HYBRID, c->dep_ratio = -1, c->ring = 1, c->overlap = 1;
    snprintf(c->network, sizeof c->network, "eth-10g");
}

/* Picks where the tensors live: the GPU for an in-memory cuda run, else the host. */
static int trainer_place(trainer_t *t, gs_err_t *err)
{
    t->kp = kplace_host();
    if (t->cfg.device != DEVICE_CUDA || t->cfg.stream) return GS_OK;
    const gs_cuda_t *cu = gs_cuda_get(err);
    if (!cu) return err->code;
    kops_ctx_t *cx = cu->kops->open(err);
    if (!cx) return err->code;
    t->kp = (kplace_t){cu->kops, cx};
    return GS_OK;
}

/* The op observer sees host work only: on a device, ops are asynchronous
 * and the device's own profiler (CUPTI) reports them instead. */
static void observe_ops(trainer_t *t)
{
    t->ex.on_op = t->kp.K->device ? NULL : t->cfg.on_op;
    t->ex.op_user = t->cfg.observer;
    if (t->dist) t->ex.on_op = dist_log_op, t->ex.op_user = t->dist; /* a rank's ops go to its log, then to rank 0 */
}

/* A fresh executor over the model's program, bound to the graph, with the
 * engine in use. */
static int exec_open(trainer_t *t, gs_err_t *err)
{
    exec_free(&t->ex);
    int rc = exec_init(&t->ex, &t->model.prog, t->kp, &t->model.params, t->cfg.seed, err);
    if (!rc) rc = t->dist ? exec_bind(&t->ex, t->dist->bs.ptr, err) : exec_bind_graph(&t->ex, t->data.kg, err);
    if (rc) return rc;
    if (t->streaming) t->ex.engine = stream_engine_exec(&t->stream), t->ex.clock = stream_engine_clock(&t->stream);
    if (t->dist) {
        t->ex.engine = dist_engine_exec(&t->dist->engine);
        t->ex.clock = t->dist->virtual_clock ? &t->dist->clock : NULL;
    }
    observe_ops(t);
    return GS_OK;
}

int trainer_rebuild_program(trainer_t *t, gs_err_t *err)
{
    int rc = model_rebuild(&t->model, t->cfg.dkp, t->cfg.fuse, err);
    return rc ? rc : exec_open(t, err);
}

int trainer_dkp_resize(trainer_t *t, const dkp_shape_t *by_layer, gs_err_t *err)
{
    if (!by_layer && !t->model.dkp_sized) return GS_OK;
    int reordered = 0, rc = model_resize_dkp(&t->model, t->cfg.dkp, t->cfg.fuse, by_layer, &reordered, err);
    return rc || !reordered ? rc : exec_open(t, err);
}

void trainer_stream_close(trainer_t *t)
{
    if (!t->streaming) return;
    if (t->ex.clock) t->clock_end = t->ex.clock->now;
    stream_engine_close(&t->stream);
    t->streaming = 0;
    t->ex.engine = (exec_engine_t){&exec_memory_ops, &t->ex.kp};
    t->ex.clock = NULL;
}

/* Opens the devices on plan (the data already in its numbering). */
static int stream_open_on(trainer_t *t, const stream_plan_t *plan, gs_err_t *err)
{
    int rc = stream_engine_open(&t->stream, &t->cfg, &t->data.g, plan, &t->abort_epoch, err);
    if (rc) return rc;
    t->streaming = 1;
    if (t->stream.virtual_clock && t->clock_end > t->stream.clock.now) t->stream.clock.now = t->clock_end; /* time goes on */
    return exec_open(t, err);
}

int trainer_stream_open(trainer_t *t, gs_err_t *err)
{
    if (!t->cfg.stream) return GS_OK;
    stream_plan_t plan;
    int rc = stream_plan(&t->cfg, &t->model.prog, &t->data.g, &plan, err);
    if (rc) return rc;
    if (plan.perm) { /* a new vertex order: the data follows it */
        rc = data_renumber(&t->data, plan.perm, err);
        if (!rc) rc = data_place(&t->data, t->kp, t->cfg.feat_norm, err);
    }
    if (!rc) rc = part_plan(t, plan.p, plan.bounds, err);
    if (!rc) rc = stream_open_on(t, &plan, err);
    stream_plan_free(&plan);
    return rc;
}

int trainer_stream_resplit(trainer_t *t, gs_err_t *err)
{
    if (!t->streaming || !t->part.resplit) return GS_OK;
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
    if (part_plan(t, p, next, &why) == GS_OK) { /* cut by the refit model; a cut the cap refuses keeps the old one */
        trainer_stream_close(t);
        stream_plan_t plan = {p, NULL, next};
        rc = stream_open_on(t, &plan, err);
        if (rc) { /* the old cut opened before: go back to it (equal-vertex keeps the bounds it is given) */
            gs_err_t ignored;
            partitioner_kind_t kind = t->cfg.partitioner;
            trainer_stream_close(t);
            plan.bounds = now, t->cfg.partitioner = PART_EQUAL_VERTEX;
            if (part_plan(t, p, now, &ignored) || stream_open_on(t, &plan, &ignored)) t->cfg.stream = 0;
            t->cfg.partitioner = kind;
        }
    }
    t->part.resplit = 0;
    free(now), free(next);
    return rc;
}

int trainer_open(trainer_t *t, const train_cfg_t *cfg, gs_err_t *err)
{
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    t->best_val = -1;
    int rc;
    if (!model_find(cfg->model)) return gs_fail(err, GS_EINPUT, "--model %s: unknown model (choose %s)", cfg->model, model_names());
    if (cfg->epochs < 0) return gs_fail(err, GS_EINPUT, "--epochs must be >= 0");
    if (!(cfg->lr > 0) || !isfinite(cfg->lr)) return gs_fail(err, GS_EINPUT, "--lr must be > 0");
    if (!(cfg->weight_decay >= 0)) return gs_fail(err, GS_EINPUT, "--weight-decay must be >= 0");
    if (!(cfg->dropout >= 0 && cfg->dropout < 1)) return gs_fail(err, GS_EINPUT, "--dropout must be in [0, 1)");
    int threads = cfg->threads > 0 ? cfg->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (gs_pool_init(threads) != 0) return gs_fail(err, GS_EFAIL, "cannot start %d threads", threads);
    openblas_set_num_threads(threads);
    if ((rc = data_open(&t->data, cfg, &t->warnings, err))) return rc;
    if ((rc = trainer_place(t, err))) return rc;
    const dataset_t *ds = &t->data.ds;
    if ((rc = model_open(&t->model, cfg, ds->f, ds->c, t->data.g.ntypes, t->data.g.n, t->data.g.m, t->kp.K->gather_fused != NULL, err)))
        return rc;
    if (cfg->stream && (rc = stream_cap_check(cfg, &t->model.prog, t->data.g.n, err))) return rc; /* the cap, first */
    if ((rc = model_init_params(&t->model, cfg->seed, t->kp, err))) return rc;
    if ((rc = data_place(&t->data, t->kp, cfg->feat_norm, err))) return rc;
    if (cfg->dist && (rc = trainer_dist_open(t, err))) return rc; /* a rank: its own rows from here on */
    /* streamed: the stream engine opens the executor after renumbering the vertices */
    if ((rc = cfg->stream && !cfg->dist ? trainer_stream_open(t, err) : exec_open(t, err))) return rc;
    if ((rc = trainer_sampled_check(cfg, t->ex.nhops, err))) return rc;
    return place_alloc(t->kp, &t->dlogits, exec_level_rows(&t->ex, t->ex.nhops), ds->c, err);
}

void trainer_close(trainer_t *t)
{
    trainer_stream_close(t);
    trainer_sampled_free(t);
    part_state_free(&t->part);
    trainer_dist_close(t);
    exec_free(&t->ex);
    model_close(&t->model);
    if (t->kp.K) place_free(t->kp, &t->dlogits);
    data_close(&t->data);
    if (t->kp.K && t->kp.K->device) t->kp.K->close(t->kp.cx);
    memset(t, 0, sizeof *t);
}

double train_xent(const tensor_t *logits, const int32_t *label, const int32_t *idx, int64_t n, tensor_t *dlogits)
{
    return kops_cpu.xent(NULL, logits->data, logits->rows, logits->cols, label, idx, n,
                         data_count_labelled(label, idx, n), dlogits ? dlogits->data : NULL);
}
