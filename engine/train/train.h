/* train.h - a trainer: the parts of a training run and the epoch driver
 * that steps them (docs/ARCHITECTURE.md, "The trainer").
 *   data       train_data.h: dataset, graph, features, labels, splits;
 *   model      model_state.h: program, parameters, optimiser, DKP state;
 *   execution  the executor (exec.h) and its engine: in memory, or the
 *              streaming engine (engine/stream/stream_engine.h);
 *   driver     trainer_epoch: one full-batch step, or with --batch-size
 *              one step per sampled batch (epoch_sampled.c) (softmax cross-entropy
 *              on the train split, Adam with L2 weight decay as
 *              torch.optim.Adam, counter-based dropout) plus evaluation
 *              on train/valid/test, best-validation tracking.
 * Checkpoints save the model part and the progress (checkpoint.c); knob
 * changes arrive between epochs (knobs.h). A trainer belongs to one thread:
 * only abort_epoch may be touched from another. */
#ifndef GS_TRAIN_H
#define GS_TRAIN_H

#include <stdatomic.h>
#include <stdint.h>

#include "config.h"
#include "engine/exec/exec.h"
#include "model_state.h"
#include "engine/stream/stream_engine.h"
#include "stats.h"
#include "train_data.h"
#include "train_partition.h"

typedef struct trainer {
    train_cfg_t cfg;
    train_data_t data;
    model_state_t model;
    exec_t ex;
    kplace_t kp;            /* where the tensors live */
    stream_engine_t stream; /* in use when streaming (streaming != 0) */
    struct dist_run *dist;  /* a rank of a distributed run (train_dist.h), or NULL */
    struct sampled_run *sampled; /* the sampled driver's state, from its first epoch (epoch_sampled.c), or NULL */
    int streaming;
    double clock_end;       /* the emulated clock when the streaming engine last closed: a reopened one goes on from there */
    tensor_t dlogits;       /* (N, C), in kp's memory */
    int64_t epoch;          /* epochs completed */
    double best_val, test_at_best;
    int64_t best_epoch;
    /* knobs.c: values set between epochs, applied at the next boundary */
    train_cfg_t pending;
    int has_pending;
    part_state_t part;      /* the partitioner's model and its view of the parts (train_partition.h) */
    gs_warnings_t warnings; /* what went wrong without stopping the run (the app shows them, then clears them) */
    atomic_int abort_epoch; /* set from another thread: streamed passes stop after the current chunk */
} trainer_t;

int trainer_open(trainer_t *t, const train_cfg_t *cfg, gs_err_t *err);
void trainer_close(trainer_t *t);
/* One epoch plus evaluation: the full-batch driver (epoch_full.c), or
 * with --batch-size the sampled one (epoch_sampled.c). */
int trainer_epoch(trainer_t *t, epoch_stats_t *st, gs_err_t *err);
/* epoch_full.c, the steps both drivers take: the loss of logits out over
 * the rows idx (labels by row; labelled of them have one), its gradient
 * into t->dlogits; the optimiser step; the three splits' accuracies from
 * whole-graph logits. Each is booked as host work on the run's clock. */
double trainer_loss(trainer_t *t, const tensor_t *out, const int32_t *label, const int32_t *idx, int64_t n, int64_t labelled);
int trainer_optimise(trainer_t *t, gs_err_t *err);
int trainer_evaluate(trainer_t *t, const tensor_t *out, epoch_stats_t *st, gs_err_t *err);
/* epoch_sampled.c: its epoch; whether c can train sampled with a program
 * of nhops hops (GS_OK when c is full-batch); its state's release. */
int trainer_epoch_sampled(trainer_t *t, epoch_stats_t *st, gs_err_t *err);
int trainer_sampled_check(const train_cfg_t *c, int nhops, gs_err_t *err);
void trainer_sampled_free(trainer_t *t);

/* The execution part, for knob changes: a new program for the model's
 * DKP mode (parameters kept), and closing and reopening the streaming
 * engine under t->cfg (which may renumber the vertices). */
int trainer_rebuild_program(trainer_t *t, gs_err_t *err);
/* DKP decided again for the sizes the gathers now work on (by_layer, per
 * layer; NULL: the whole graph); the executor is reopened only when an
 * order changed. */
int trainer_dkp_resize(trainer_t *t, const dkp_shape_t *by_layer, gs_err_t *err);
void trainer_stream_close(trainer_t *t);
int trainer_stream_open(trainer_t *t, gs_err_t *err);
/* At an epoch boundary: reopens the devices on the partitioner's new
 * split when it asked for one (train_partition.h). */
int trainer_stream_resplit(trainer_t *t, gs_err_t *err);

/* Loss and its gradient, exposed for tests: mean cross-entropy of logits
 * (N, C) over the rows in idx; writes dlogits (zero outside idx). */
double train_xent(const tensor_t *logits, const int32_t *label, const int32_t *idx, int64_t n, tensor_t *dlogits);

/* checkpoint.c: atomic save; resume checks the model and dataset match. */
int trainer_save(const trainer_t *t, const char *path, gs_err_t *err);
int trainer_resume(trainer_t *t, const char *path, gs_err_t *err);

#endif
