/* train.c - see train.h: opening a trainer (the data, the place of its
 * tensors, the model, then its mode's driver), the epoch and its
 * boundary, and closing it. */
#include "train.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/threadpool.h"
#include "driver.h"
#include "engine/device/cuda_plugin.h"

/* Picks where the tensors live: the GPU for an in-memory cuda run, else the host. */
static int trainer_place(trainer_t *t, gs_err_t *err)
{
    t->kp = t->cfg.simulate ? kplace_sim() : kplace_host();
    if (t->cfg.simulate && t->cfg.device == DEVICE_CUDA)
        return gs_fail(err, GS_EINPUT, "--simulate runs on the cpu backend's emulated devices, not the cuda backend");
    if (t->cfg.device != DEVICE_CUDA || t->cfg.stream) return GS_OK;
    const gs_cuda_t *cu = gs_cuda_get(err);
    if (!cu) return err->code;
    kops_ctx_t *cx = cu->kops->open(err);
    if (!cx) return err->code;
    t->kp = (kplace_t){cu->kops, cx};
    t->kind.place = PLACE_CUDA;
    return GS_OK;
}

/* The flags checked before anything is loaded. */
static int check_cfg(const train_cfg_t *cfg, gs_err_t *err)
{
    if (!model_find(cfg->model)) return gs_fail(err, GS_EINPUT, "--model %s: unknown model (choose %s)", cfg->model, model_names());
    if (cfg->epochs < 0) return gs_fail(err, GS_EINPUT, "--epochs must be >= 0");
    if (!(cfg->lr > 0) || !isfinite(cfg->lr)) return gs_fail(err, GS_EINPUT, "--lr must be > 0");
    if (!(cfg->weight_decay >= 0)) return gs_fail(err, GS_EINPUT, "--weight-decay must be >= 0");
    if (!(cfg->dropout >= 0 && cfg->dropout < 1)) return gs_fail(err, GS_EINPUT, "--dropout must be in [0, 1)");
    return GS_OK;
}

/* The model for the loaded data, checked against the device cap before
 * anything of its size is allocated, its parameters, the data in place. */
static int open_model(trainer_t *t, gs_err_t *err)
{
    const train_cfg_t *cfg = &t->cfg;
    const dataset_t *ds = &t->data.ds;
    int rc = model_open(&t->model, cfg, ds->f, ds->c, t->data.g.ntypes, t->data.g.n, t->data.g.m, t->kp.K->gather_fused != NULL,
                        t->kp.K->relu_masks, err);
    stream_cfg_t sc = stream_cfg_of(t);
    if (!rc && cfg->stream) rc = stream_cap_check(&sc, &t->model.prog, t->data.g.n, t->data.g.m, err); /* the cap, first */
    if (!rc) rc = model_init_params(&t->model, cfg->seed, t->kp, err);
    return rc ? rc : data_place(&t->data, t->kp, cfg->feat_norm, err);
}

int trainer_open(trainer_t *t, const train_cfg_t *cfg, const train_env_t *env, gs_err_t *err)
{
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    if (env) t->env = *env;
    t->best_val = -1;
    int rc = check_cfg(cfg, err);
    if (rc) return rc;
    int threads = cfg->threads > 0 ? cfg->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (gs_pool_init(threads) != 0) return gs_fail(err, GS_EFAIL, "cannot start %d threads", threads);
    /* OpenBLAS's threads follow --threads unless OPENBLAS_NUM_THREADS names a count (the TSan runs set 1) */
    if (!getenv("OPENBLAS_NUM_THREADS")) openblas_set_num_threads(threads);
    if ((rc = data_open(&t->data, cfg, &t->warnings, err))) return rc;
    t->kind = (run_kind_t){run_kind_of(cfg, 0).driver, ENGINE_MEMORY, PLACE_HOST, 0, 0};
    if ((rc = trainer_place(t, err)) || (rc = open_model(t, err))) return rc;
    t->driver = train_driver_for(t->kind.driver);
    if ((rc = t->driver->open(t, err))) return rc; /* a streamed run's vertex order renumbers the data first */
    if ((rc = t->driver->check(&t->cfg, t->ex.nhops, err))) return rc;
    return place_alloc(t->kp, &t->dlogits, exec_level_rows(&t->ex, t->ex.nhops), t->data.ds.c, err);
}

void trainer_close(trainer_t *t)
{
    if (t->driver) t->driver->close(t);
    part_state_free(&t->part);
    exec_free(&t->ex);
    op_tally_free(&t->tally);
    model_close(&t->model);
    if (t->kp.K) place_free(t->kp, &t->dlogits);
    loss_rows_free(&t->dlogits_rows);
    data_close(&t->data);
    if (t->kp.K && t->kp.K->device) t->kp.K->close(t->kp.cx);
    memset(t, 0, sizeof *t);
}

/* A knob moved the run to another mode (--batch-size): the old driver
 * closes and the new one opens on the same model. */
static int switch_driver(trainer_t *t, gs_err_t *err)
{
    driver_kind_t want = run_kind_of(&t->cfg, t->kind.ranks).driver;
    if (want == t->kind.driver) return GS_OK;
    t->driver->close(t);
    t->kind.driver = want;
    t->driver = train_driver_for(want);
    return t->driver->open(t, err);
}

int trainer_epoch(trainer_t *t, epoch_stats_t *st, gs_err_t *err)
{
    memset(st, 0, sizeof *st);
    int rc = knob_apply(t, err);
    if (!rc) rc = switch_driver(t, err);
    if (!rc) rc = t->driver->boundary(t, err);
    if (!rc) rc = t->driver->epoch(t, st, err);
    if (rc) return rc;
    st->epoch = ++t->epoch;
    if (t->ex.tally) op_tally_epoch_done(t->ex.tally);
    st->knob_changed = t->knob_applied, t->knob_applied = 0;
    if (!isfinite(st->loss) && !t->cfg.simulate) return gs_fail(err, GS_EFAIL, "epoch %lld: loss is not finite (try a lower --lr)", (long long)st->epoch);
    if (st->val_acc > t->best_val) {
        t->best_val = st->val_acc;
        t->test_at_best = st->test_acc;
        t->best_epoch = st->epoch;
    }
    return GS_OK;
}

int trainer_next(trainer_t *t, int stop, int *stopped, epoch_stats_t *st, gs_err_t *err)
{
    int rc = t->driver->agree ? t->driver->agree(t, &stop, err) : GS_OK;
    *stopped = !rc && stop;
    return rc || stop ? rc : trainer_epoch(t, st, err);
}
