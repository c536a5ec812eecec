/* part_online.c - see part_online.h. */
#include "part_online.h"
#include "part_model_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void part_state_free(part_state_t *ps)
{
    roc_model_free(&ps->model);
    roc_features_free(&ps->feat);
    free(ps->bounds), free(ps->pred_s), free(ps->shown_pred_s), free(ps->meas_s);
    memset(ps, 0, sizeof *ps);
}

/* The model for prog: kept while the layers' gathered widths stay
 * (its samples describe this program), started again otherwise. */
static void model_for_program(part_state_t *ps, const program_t *prog)
{
    roc_model_t fresh;
    roc_model_init(&fresh, prog);
    if (ps->model.nlayers == fresh.nlayers &&
        memcmp(ps->model.d_in, fresh.d_in, sizeof fresh.d_in[0] * (size_t)fresh.nlayers) == 0)
        return;
    roc_model_free(&ps->model);
    ps->model = fresh;
}

/* The model's predicted seconds of each part of the split in force. */
static void predict_parts(part_state_t *ps)
{
    for (int j = 0; j < ps->p; j++) ps->pred_s[j] = roc_predict(&ps->model, &ps->feat, ps->bounds[j], ps->bounds[j + 1]);
    ps->have_pred = ps->model.fitted;
}

static double max_of(const double *x, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    return m;
}

int part_online_read_model(part_state_t *ps, const program_t *prog, const char *path, gs_err_t *err)
{
    model_for_program(ps, prog);
    int rc = part_model_read(&ps->model, path, err);
    ps->model_read = rc == GS_OK;
    return rc;
}

int part_online_cut(part_state_t *ps, partitioner_kind_t kind, const graph_t *g, const program_t *prog, int p,
                    int64_t *bounds, gs_err_t *err)
{
    model_for_program(ps, prog);
    roc_features_free(&ps->feat);
    int rc = roc_features_build(&ps->feat, g, &ps->model, err);
    if (!rc && kind != PART_EQUAL_VERTEX) rc = partition_split(kind, g, &ps->model, &ps->feat, p, bounds, err);
    return rc;
}

int part_online_adopt(part_state_t *ps, int p, const int64_t *bounds, gs_err_t *err)
{
    if (p != ps->p) {
        free(ps->bounds), free(ps->pred_s), free(ps->shown_pred_s), free(ps->meas_s);
        ps->bounds = malloc(sizeof(int64_t) * (size_t)(p + 1));
        ps->pred_s = calloc((size_t)p, sizeof(double)), ps->shown_pred_s = calloc((size_t)p, sizeof(double));
        ps->meas_s = calloc((size_t)p, sizeof(double));
        ps->p = p;
        if (!ps->bounds || !ps->pred_s || !ps->shown_pred_s || !ps->meas_s) {
            part_state_free(ps);
            return gs_fail(err, GS_EFAIL, "out of memory for the partitioner's %d parts", p);
        }
    }
    memcpy(ps->bounds, bounds, sizeof(int64_t) * (size_t)(p + 1));
    predict_parts(ps);
    ps->have_meas = ps->have_shown_pred = ps->resplit = 0;
    return GS_OK;
}

int part_online_learn(part_state_t *ps, partitioner_kind_t kind, const graph_t *g, int p, const double *y_lp,
                      int representative, epoch_stats_t *st, gs_err_t *err)
{
    if (p < 1 || ps->p != p || ps->feat.n != g->n) return GS_OK;
    int L = ps->model.nlayers;
    double sum = 0, err_sum = 0;
    for (int j = 0; j < p; j++) {
        ps->meas_s[j] = 0;
        for (int l = 0; l < L; l++) {
            double y = y_lp[(size_t)l * (size_t)p + (size_t)j];
            ps->meas_s[j] += y;
            if (representative && roc_model_add(&ps->model, &ps->feat, l, ps->bounds[j], ps->bounds[j + 1], y) != 0)
                return gs_fail(err, GS_EFAIL, "out of memory for the partitioner's samples");
        }
        sum += ps->meas_s[j];
        if (ps->meas_s[j] > 0) err_sum += fabs(ps->pred_s[j] - ps->meas_s[j]) / ps->meas_s[j];
    }
    if (!(sum > 0)) return GS_OK; /* nothing gathered */
    double slowest = max_of(ps->meas_s, p);
    st->part_imbalance = slowest / (sum / p);
    if (ps->have_pred) st->part_err = err_sum / p;
    memcpy(ps->shown_pred_s, ps->pred_s, sizeof(double) * (size_t)p);
    ps->have_shown_pred = ps->have_pred, ps->have_meas = 1;
    if (!representative) return GS_OK;
    if (ps->left_s > 0) { /* the first measure of a re-cut: did it pay? */
        ps->settled |= slowest > 0.98 * ps->left_s; /* less than 2% shorter */
        ps->left_s = 0;
    }
    roc_model_fit(&ps->model);
    predict_parts(ps);
    if (kind != PART_ROC || p < 2) return GS_OK;
    /* the model's split, taken when it predicts a slowest part at least 3% shorter
     * (a new split reopens the devices or moves rows between ranks, and profiles start
     * again) and no re-cut has yet failed to shorten the measured slowest part */
    int64_t *b = malloc(sizeof(int64_t) * (size_t)(p + 1));
    if (!b) return gs_fail(err, GS_EFAIL, "out of memory for the partitioner's split");
    int rc = partition_split(PART_ROC, g, &ps->model, &ps->feat, p, b, err);
    double now = max_of(ps->pred_s, p), then = 0;
    for (int j = 0; !rc && j < p; j++) {
        double x = roc_predict(&ps->model, &ps->feat, b[j], b[j + 1]);
        then = x > then ? x : then;
    }
    free(b);
    if (!rc) ps->resplit = !ps->settled && then < 0.97 * now;
    if (ps->resplit) ps->left_s = slowest;
    return rc;
}

void part_online_report(const part_state_t *ps, partitioner_kind_t kind, part_report_t *r)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    if (!ps->p) return;
    r->p = ps->p;
    r->shown = ps->p < PART_REPORT_MAX ? ps->p : PART_REPORT_MAX;
    for (int j = 0; j <= r->shown; j++) r->bounds[j] = ps->bounds[j];
    for (int j = 0; j < r->shown; j++) r->pred_ms[j] = 1e3 * ps->shown_pred_s[j], r->meas_ms[j] = 1e3 * ps->meas_s[j];
    r->have_pred = ps->have_shown_pred, r->have_meas = ps->have_meas;
    for (int l = 0; l < ps->model.nlayers; l++) r->samples += ps->model.nsamples[l];
}
