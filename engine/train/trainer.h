/* trainer.h - a trainer's parts, and the layer every run mode's driver
 * (driver.h) stands on (docs/ARCHITECTURE.md, "The trainer"):
 *   data       train_data.h: dataset, graph, features, labels, splits;
 *   model      model_state.h: program, parameters, optimiser, DKP state;
 *   execution  the executor (engine/exec/exec.h) bound as the driver
 *              says (exec_binding_t: its blocks, engine, clock, op
 *              observer), in memory, on the streaming engine's devices
 *              (engine/stream/stream_engine.h) or on a rank's engine;
 *   driver     the run mode in force (full-batch, sampled, distributed)
 *              and its state.
 * The functions here open and rebuild the executor, open, close and
 * re-cut the streaming engine, and take the steps every driver shares
 * (the loss, the optimiser, the evaluation, a full-batch epoch); they
 * call no driver. The run's kind is published in `kind`. A trainer
 * belongs to one thread: only abort_epoch may be touched from another. */
#ifndef GS_TRAINER_H
#define GS_TRAINER_H

#include <stdatomic.h>
#include <stdint.h>

#include "config.h"
#include "engine/exec/exec.h"
#include "engine/exec/stats.h"
#include "engine/partition/part_online.h"
#include "engine/stream/stream_engine.h"
#include "knob_table.h"
#include "loss_rows.h"
#include "model_state.h"
#include "run_kind.h"
#include "train_data.h"

struct train_driver; /* driver.h */

/* How the executor runs: a driver sets it, trainer_exec_open applies it. */
typedef struct {
    const graph_t *const *blocks; /* the blocks of hops 1..L; NULL: the whole graph at every hop */
    exec_engine_t engine;         /* ops NULL: the place's memory engine */
    vclock_t *clock;              /* emulated time of the host ops; NULL: the wall clock */
    op_hook_t on_op;              /* the op observer; NULL: the environment's */
    void *op_user;
} exec_binding_t;

typedef struct trainer {
    train_cfg_t cfg;
    train_env_t env;
    run_kind_t kind;         /* the run as it is now (published: counters, knobs, the JSON and the views read it) */
    const struct train_driver *driver; /* the run mode in force */
    train_data_t data;
    model_state_t model;
    exec_t ex;
    exec_binding_t bind;
    kplace_t kp;             /* where the tensors live */
    stream_engine_t stream;  /* in use when kind.engine is ENGINE_STREAM */
    struct dist_run *dist;   /* the distributed driver's state (driver_dist.h), or NULL */
    struct sampled_run *sampled; /* the sampled driver's state (driver_sampled.c), or NULL */
    double clock_end;        /* the emulated clock when the streaming engine last closed: a reopened one goes on from there */
    tensor_t dlogits;        /* (N, C), in kp's memory */
    loss_rows_t dlogits_rows; /* which of dlogits' rows are known to hold zero (loss_rows.h; host memory only) */
    int64_t epoch;           /* epochs completed */
    double best_val, test_at_best;
    int64_t best_epoch;
    train_cfg_t pending;     /* knob values set between epochs, applied at the next boundary (knobs.h) */
    int has_pending;
    int knob_applied; /* a pending change took effect since the last epoch (its stats' knob_changed) */
    part_state_t part;       /* the partitioner's model and its view of the parts (engine/partition/part_online.h) */
    gs_warnings_t warnings;  /* what went wrong without stopping the run (the app shows them, then clears them) */
    atomic_int abort_epoch;  /* set from another thread: streamed passes stop after the current chunk */
    op_tally_t tally;        /* env.tally_ops: the host work per op of the current program's steps (op_tally.h) */
} trainer_t;

/* ---- the execution part (trainer_exec.c) ---- */

/* A fresh executor over the model's program, bound as t->bind says. */
int trainer_exec_open(trainer_t *t, gs_err_t *err);
/* A new program for the model's DKP mode and fusion (parameters kept), and its executor. */
int trainer_rebuild_program(trainer_t *t, gs_err_t *err);
/* DKP decided again for the sizes the gathers now work on (by_layer, per
 * layer; NULL: the whole graph); the executor is reopened only when an
 * order changed. */
int trainer_dkp_resize(trainer_t *t, const dkp_shape_t *by_layer, gs_err_t *err);
/* Where DKP's cost model is to be fitted this epoch (the run's kernel
 * times are measured: the wall clock, a GPU, --kernel-time measured; it
 * has sites; no fit yet): the model that collects the forward kernels'
 * timings (exec_t.samples); else NULL. Call with the epoch's clock set. */
dkp_model_t *trainer_dkp_samples(trainer_t *t);
/* Fits DKP's model to the samples and decides with the fit from now on;
 * the executor is reopened only when an order changed. */
int trainer_dkp_refit(trainer_t *t, gs_err_t *err);
/* What knob values the run allows and has resolved (knob_table.h). */
knob_facts_t trainer_knob_facts(const trainer_t *t);
/* Makes want (already validated) the pending configuration. */
void trainer_set_pending(trainer_t *t, const train_cfg_t *want);

/* ---- the streaming engine (trainer_stream.c) ---- */

/* The streaming engine's part of t's configuration and environment. */
stream_cfg_t stream_cfg_of(const trainer_t *t);
/* Opens the devices under t->cfg (which may renumber the vertices); closes them. */
int trainer_stream_open(trainer_t *t, gs_err_t *err);
void trainer_stream_close(trainer_t *t);
/* At an epoch boundary: reopens the devices on the partitioner's new
 * split when it asked for one. */
int trainer_stream_resplit(trainer_t *t, gs_err_t *err);
/* Cuts p parts by t->cfg.partitioner into bounds (the first time with the
 * --partition-model file's weights when it exists), checks them against
 * the device cap when streaming, and makes them the partitioner's split. */
int trainer_part_plan(trainer_t *t, int p, int64_t *bounds, gs_err_t *err);
/* Writes the partitioner's learned model to --partition-model (when given
 * and fitted), atomically. */
int trainer_part_save(const trainer_t *t, gs_err_t *err);
/* Puts want in force in one process (old was): rebuilds the program for
 * DKP or fusion, reopens the devices for a device knob. On failure the
 * previous configuration is restored and err says why. */
int trainer_reconfigure(trainer_t *t, const train_cfg_t *old, const train_cfg_t *want, gs_err_t *err);

/* ---- the steps every driver takes (trainer_step.c) ---- */

/* The loss of logits out over the rows idx (labels by row; labelled of
 * them have one), its gradient into t->dlogits; the optimiser step; the
 * three splits' accuracies from whole-graph logits. Each is booked as host
 * work on the run's clock. */
double trainer_loss(trainer_t *t, const tensor_t *out, const int32_t *label, const int32_t *idx, int64_t n, int64_t labelled);
int trainer_optimise(trainer_t *t, gs_err_t *err);
int trainer_evaluate(trainer_t *t, const tensor_t *out, epoch_stats_t *st, gs_err_t *err);
/* What a full-batch epoch leaves to its driver: the gradients summed
 * over the ranks before the optimiser, and the epoch's end within the
 * evaluation's time (either NULL). */
typedef struct {
    int (*sum_gradients)(trainer_t *t, gs_err_t *err);
    int (*after_evaluation)(trainer_t *t, epoch_stats_t *st, gs_err_t *err);
} full_epoch_hooks_t;
/* One training step over the bound blocks (forward, loss, backward,
 * optimiser; the first epoch fits DKP's cost model) and the evaluation
 * forward, with the times and FLOPs into st. */
int trainer_full_epoch(trainer_t *t, epoch_stats_t *st, const full_epoch_hooks_t *h, gs_err_t *err);
/* Loss and its gradient, exposed for tests: mean cross-entropy of logits
 * (N, C) over the rows in idx; writes dlogits (zero outside idx). */
double train_xent(const tensor_t *logits, const int32_t *label, const int32_t *idx, int64_t n, tensor_t *dlogits);

#endif
