/* part_online.h - ROC's partitioner online (§4): where the P parts of a
 * run are cut (the streaming engine's intervals, or the ranks' ranges of
 * a distributed job), what each part took, and, for roc, the loop: after
 * every epoch each (layer, part) time becomes a sample of the cost model
 * (partitioner.h), the model is refit, and when the split it gives is
 * predicted faster the run re-cuts at the next epoch boundary (the
 * trainer reopens the devices, or moves rows between the ranks, keeping
 * the weights and optimiser state). Samples are taken whatever the
 * partitioner, so switching to roc live starts from a model that already
 * knows the run. A new split restarts the memory plan's and the swap
 * heuristic's profiles. */
#ifndef GS_PART_ONLINE_H
#define GS_PART_ONLINE_H

#include "base/error.h"
#include "engine/exec/stats.h"
#include "partitioner.h"

/* Parts shown in the workbench and the JSON (the first ones of larger P). */
#define PART_REPORT_MAX 16

typedef struct {
    roc_model_t model;
    roc_features_t feat;     /* over the numbering in force */
    int p;                   /* parts of the split in force (0: none) */
    int64_t *bounds;         /* (p + 1) the split in force */
    double *pred_s;          /* (p) the model's prediction for the next epoch */
    double *shown_pred_s;    /* (p) the prediction made for the epoch last measured */
    double *meas_s;          /* (p) what it measured */
    int have_pred, have_shown_pred, have_meas;
    int resplit;             /* the model's split differs from the one in force */
    int model_read;          /* the weights came from --partition-model */
    double left_s;           /* the measured slowest part of the split a re-cut left (0: none pending) */
    int settled;             /* a re-cut did not shorten it: the split stays (the model's extrapolation is off) */
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

/* Reads a learned model (part_model_file.h) for prog's layers: the next
 * roc cut uses its weights, before any sample of this run. */
int part_online_read_model(part_state_t *ps, const program_t *prog, const char *path, gs_err_t *err);
/* Cuts p parts of g (in the numbering in force) by kind into bounds
 * (p + 1); equal-vertex keeps the bounds it is given (METIS's parts with
 * --order metis). The model follows program prog's layers (kept while
 * their widths stay). */
int part_online_cut(part_state_t *ps, partitioner_kind_t kind, const graph_t *g, const program_t *prog, int p,
                    int64_t *bounds, gs_err_t *err);
/* Makes bounds (p + 1) the split in force and predicts its parts. */
int part_online_adopt(part_state_t *ps, int p, const int64_t *bounds, gs_err_t *err);
/* After an epoch over the split in force (p parts of g): st gets the
 * imbalance and the prediction error; when the epoch is representative
 * (not one where the memory plan was still profiling after a new split,
 * whose transfers say nothing of the next epochs'), the (layer, part)
 * times y[l * p + j] become samples, the model is refit, and with roc
 * ps->resplit says whether the model's split would be faster. Nothing
 * when the split in force is not of p parts of g. */
int part_online_learn(part_state_t *ps, partitioner_kind_t kind, const graph_t *g, int p, const double *y_lp,
                      int representative, epoch_stats_t *st, gs_err_t *err);
void part_online_report(const part_state_t *ps, partitioner_kind_t kind, part_report_t *r);
void part_state_free(part_state_t *ps);

#endif
