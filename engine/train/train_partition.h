/* train_partition.h - the partitioner in a streamed run (ROC §4): where
 * the P intervals are cut (--partitioner), what each part's gathers took
 * on the devices, and, for roc, the online loop: after every epoch each
 * (layer, part) time becomes a sample of the cost model, the model is
 * refit, and when the split it gives differs from the one in force the
 * devices are reopened on the new split at the next epoch boundary
 * (weights and optimiser state kept, as for any device knob). Samples are
 * taken whatever the partitioner, so switching to roc live starts from a
 * model that already knows this run. The ranks of a distributed run are
 * parts too: each rank's compute time per layer is a sample, and a new
 * split moves rows between the ranks (train_dist.c). A new split reopens
 * the devices, so the memory plan and the swap heuristic start their
 * profiles again; under a --device-mem cap, a cut whose largest part
 * would not fit is not taken (the old one stays). */
#ifndef GS_TRAIN_PARTITION_H
#define GS_TRAIN_PARTITION_H

#include "base/error.h"
#include "engine/partition/partitioner.h"
#include "stats.h"

struct trainer;

/* Parts shown in the workbench and the JSON (the first ones of larger P). */
#define PART_REPORT_MAX 16

typedef struct {
    roc_model_t model;
    roc_features_t feat;     /* over the numbering in force */
    int p;                   /* parts of the split in force (0: not streaming) */
    int64_t *bounds;         /* (p + 1) the split in force */
    double *pred_s;          /* (p) the model's prediction for the next epoch */
    double *shown_pred_s;    /* (p) the prediction made for the epoch last measured */
    double *meas_s;          /* (p) what it measured */
    int have_pred, have_shown_pred, have_meas;
    int resplit;             /* the model's split differs from the one in force */
} part_state_t;

/* What the views and the JSON show. */
typedef struct {
    partitioner_kind_t kind;
    int p, shown;                           /* parts, and how many are listed */
    int64_t bounds[PART_REPORT_MAX + 1];    /* the first shown + 1 cut points */
    double pred_ms[PART_REPORT_MAX], meas_ms[PART_REPORT_MAX];
    int have_pred, have_meas;
    int samples;                            /* the model's samples (all layers) */
} part_report_t;

/* Cuts plan's P intervals over t's graph (already in plan's numbering) by
 * t->cfg.partitioner, checks them against the device cap, and records the
 * split and its prediction. Equal-vertex keeps plan's bounds (METIS's
 * parts with --order metis). */
int part_plan(struct trainer *t, int p, int64_t *bounds, gs_err_t *err);
/* After a streamed epoch: the parts' measured times become samples, the
 * model is refit, and st gets the imbalance and the prediction error;
 * with roc, t->part.resplit says the model's split would be faster
 * (trainer_stream_resplit applies it at the next boundary). */
int part_learn(struct trainer *t, epoch_stats_t *st, gs_err_t *err);
/* The same after a distributed epoch, from every rank's compute seconds
 * per layer (y[l * nranks + r], the same on every rank). */
int part_learn_ranks(struct trainer *t, const double *y_lp, epoch_stats_t *st, gs_err_t *err);
void part_report(const struct trainer *t, part_report_t *r);
void part_state_free(part_state_t *ps);

#endif
