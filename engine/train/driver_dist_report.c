/* driver_dist_report.c - what a rank reports (driver_dist.h): the epoch's
 * loss, accuracies and counters summed over the ranks, the partitioner's
 * samples, every rank's spans to rank 0's observer, and at the end of a
 * run the job's account. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_dist.h"
#include "engine/program/op_table.h"

void dist_report_free(dist_report_t *r)
{
    free(r->owned), free(r->replicated), free(r->mirrors), free(r->cached), free(r->cache_bytes), free(r->held_bytes),
        free(r->traffic), free(r->messages);
    memset(r, 0, sizeof *r);
}

/* Every rank's compute per layer this epoch, summed into the same samples
 * on every rank, for the partitioner's model (engine/partition/part_online.h). */
static int learn_split(trainer_t *t, epoch_stats_t *st, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    int R = d->nranks, L = t->part.model.nlayers;
    double *y = calloc((size_t)L * (size_t)R + 1, sizeof(double));
    if (!y) return gs_fail(err, GS_EFAIL, "out of memory for the partitioner's samples");
    for (int l = 0; l < L && l < PROG_MAX_LAYERS; l++) y[(size_t)l * (size_t)R + (size_t)d->rank] = d->layer_s[l];
    memset(d->layer_s, 0, sizeof d->layer_s);
    int rc = dist_allreduce(d->comm, y, (int64_t)L * R, DIST_F64, DIST_SUM, err);
    if (!rc) rc = part_online_learn(&t->part, t->cfg.partitioner, &t->data.g, R, y, 1, st, err);
    if (!rc && d->rank == 0) rc = trainer_part_save(t, err); /* every rank holds the same model */
    free(y);
    return rc;
}

static int gather_events(trainer_t *t, gs_err_t *err);

/* The share of the rank's compute that replicated rows take, by the
 * planning cost model (vertex ops and gathers of each level's rows). */
static double replica_share(const dist_run_t *d)
{
    double all = d->plan.own_cost + d->plan.rep_cost;
    return all > 0 ? d->plan.rep_cost / all : 0;
}

#define EPOCH_SUMS 14 /* the doubles of an epoch's metrics summed over the ranks */

int trainer_dist_epoch_end(trainer_t *t, epoch_stats_t *st, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    const dist_counters_t *c = &d->engine.ctr;
    double bytes = 0, msgs = 0, f = replica_share(d), compute = 1e3 * t->ex.own_s;
    for (int h = 0; h <= DEP_MAX_HOPS; h++)
        for (int dir = 0; dir < 2; dir++)
            for (int p = 0; p < d->nranks; p++) bytes += c->bytes[h][dir][p], msgs += c->msgs[h][dir][p];
    double sums[EPOCH_SUMS] = {st->loss, st->train_acc, st->val_acc, st->test_acc, bytes, msgs, 1e3 * c->stall_s, 1e3 * c->comm_s,
                       1e3 * c->hidden_s, compute * (1 - f), compute * f, 1e3 * c->allreduce_s, 1e3 * c->queue_s, 1e3 * c->load_s};
    int rc = dist_engine_allreduce(&d->engine, sums, EPOCH_SUMS, 1, err);
    if (rc) return rc;
    double r = d->nranks;
    st->loss = sums[0], st->train_acc = sums[1], st->val_acc = sums[2], st->test_acc = sums[3];
    st->net_bytes = sums[4], st->net_msgs = sums[5], st->stall_ms = sums[6] / r, st->comm_ms = sums[7] / r;
    st->comm_hidden = sums[7] > 0 ? sums[8] / sums[7] : 0;
    st->owned_ms = sums[9] / r, st->replica_ms = sums[10] / r, st->allreduce_ms = sums[11] / r;
    st->queue_ms = sums[12] / r, st->load_ms = sums[13] / r;
    if ((rc = learn_split(t, st, err))) return rc;
    return d->engine.log.on ? gather_events(t, err) : GS_OK;
}

/* The epoch (training step and evaluation) the cost model predicts
 * (dep_plan_cost) plus the two all-reduces an epoch runs, as the engine
 * charges them: the gradients', and the metrics' at its end. */
static double predicted_ms(const trainer_t *t, const dist_run_t *d)
{
    double params = 4.0 * (double)params_count(&t->model.params);
    return 1e3 * (dep_plan_cost(&d->plan) + dist_engine_allreduce_s(&d->engine, params) +
                  dist_engine_allreduce_s(&d->engine, 8.0 * EPOCH_SUMS));
}

int trainer_dist_gather(trainer_t *t, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    dist_report_t *r = &d->report;
    dist_report_free(r);
    int R = d->nranks, L = d->plan.nhops;
    size_t lv = (size_t)(L + 1), tr = lv * 2 * (size_t)R * (size_t)R;
    size_t total = (size_t)R * (1 + 3 * lv + 2) + 2 * tr + 2;
    double *buf = calloc(total, sizeof(double));
    if (!buf) return gs_fail(err, GS_EFAIL, "out of memory for the job's account");
    double *owned = buf, *rep = owned + R, *mir = rep + (size_t)R * lv, *cac = mir + (size_t)R * lv, *cb = cac + (size_t)R * lv;
    double *hb = cb + R;
    double *traffic = hb + R, *msgs = traffic + tr, *maxes = msgs + tr;
    int me = d->rank;
    owned[me] = (double)(d->plan.hi - d->plan.lo);
    for (int k = 0; k <= L; k++) rep[(size_t)me * lv + (size_t)k] = (double)(d->plan.nset[k] - (d->plan.hi - d->plan.lo));
    for (int h = 1; h <= L; h++)
        mir[(size_t)me * lv + (size_t)h] = (double)d->plan.ncomm[h], cac[(size_t)me * lv + (size_t)h] = (double)d->plan.ncached[h];
    cb[me] = d->plan.cache_bytes, hb[me] = d->held_bytes;
    for (int h = 0; h <= L; h++)
        for (int dir = 0; dir < 2; dir++)
            for (int p = 0; p < R; p++) {
                size_t at = (((size_t)h * 2 + (size_t)dir) * (size_t)R + (size_t)me) * (size_t)R + (size_t)p;
                traffic[at] = d->engine.ctr.bytes[h][dir][p], msgs[at] = d->engine.ctr.msgs[h][dir][p];
            }
    int rc = dist_allreduce(d->comm, buf, (int64_t)(total - 2), DIST_F64, DIST_SUM, err);
    maxes[0] = predicted_ms(t, d), maxes[1] = d->plan_ms;
    if (!rc) rc = dist_allreduce(d->comm, maxes, 2, DIST_F64, DIST_MAX, err);
    if (rc || me != 0) {
        free(buf);
        return rc;
    }
    *r = (dist_report_t){R, L, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, maxes[0], maxes[1]};
    r->owned = malloc(sizeof(double) * (size_t)R), r->replicated = malloc(sizeof(double) * (size_t)R * lv);
    r->cached = malloc(sizeof(double) * (size_t)R * lv);
    r->mirrors = malloc(sizeof(double) * (size_t)R * lv), r->cache_bytes = malloc(sizeof(double) * (size_t)R);
    r->held_bytes = malloc(sizeof(double) * (size_t)R), r->traffic = malloc(sizeof(double) * tr);
    r->messages = malloc(sizeof(double) * tr);
    if (!r->owned || !r->replicated || !r->mirrors || !r->cached || !r->cache_bytes || !r->held_bytes || !r->traffic ||
        !r->messages) {
        free(buf), dist_report_free(r);
        return gs_fail(err, GS_EFAIL, "out of memory for the job's account");
    }
    memcpy(r->owned, owned, sizeof(double) * (size_t)R), memcpy(r->replicated, rep, sizeof(double) * (size_t)R * lv);
    memcpy(r->mirrors, mir, sizeof(double) * (size_t)R * lv), memcpy(r->cache_bytes, cb, sizeof(double) * (size_t)R);
    memcpy(r->cached, cac, sizeof(double) * (size_t)R * lv);
    memcpy(r->held_bytes, hb, sizeof(double) * (size_t)R), memcpy(r->traffic, traffic, sizeof(double) * tr);
    memcpy(r->messages, msgs, sizeof(double) * tr);
    free(buf);
    return GS_OK;
}

void dist_log_op(void *user, const instr_t *in, int phase, double t0, double t1, double flops)
{
    dist_run_t *d = user;
    if (in && in->layer >= 0 && in->layer < PROG_MAX_LAYERS) d->layer_s[in->layer] += t1 - t0; /* the partitioner's samples */
    dist_event_t e = {t0, t1, 0, flops, (int16_t)d->rank, -1, DIST_EV_OP, (int8_t)phase, (int16_t)(in ? in->layer : -1), -1, ""};
    snprintf(e.name, sizeof e.name, "%s", in ? op_name(in->op) : "adam");
    dist_log_add(&d->engine.log, &e);
}

/* The epoch's spans of every rank to rank 0's observer (a collective). */
static int gather_events(trainer_t *t, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    dist_log_t *log = &d->engine.log;
    double counts[DIST_MAX_RANKS] = {0};
    counts[d->rank] = (double)log->n;
    int rc = dist_allreduce(d->comm, counts, d->nranks, DIST_F64, DIST_SUM, err);
    dist_batch_t *b = rc ? NULL : calloc(1, sizeof *b);
    dist_event_t *in[DIST_MAX_RANKS] = {0};
    if (!rc && !b) rc = gs_fail(err, GS_EFAIL, "out of memory");
    for (int r = 1; !rc && r < d->nranks; r++) {
        if (d->rank == 0) {
            in[r] = malloc(sizeof(dist_event_t) * (size_t)(counts[r] + 1));
            if (!in[r]) rc = gs_fail(err, GS_EFAIL, "out of memory");
            b->recv[r] = in[r], b->recv_bytes[r] = (int64_t)(sizeof(dist_event_t) * (size_t)counts[r]);
        }
    }
    if (!rc && d->rank != 0) b->send[0] = log->ev, b->send_bytes[0] = (int64_t)(sizeof(dist_event_t) * (size_t)log->n), b->order[b->norder++] = 0;
    if (!rc) rc = dist_batch_post(d->comm, b, err);
    if (!rc) rc = dist_batch_wait(d->comm, b, err);
    if (!rc && d->rank == 0 && t->env.on_dist_event) {
        for (int64_t i = 0; i < log->n; i++) t->env.on_dist_event(t->env.observer, &log->ev[i]);
        for (int r = 1; r < d->nranks; r++)
            for (int64_t i = 0; i < (int64_t)counts[r]; i++) {
                dist_event_t e = in[r][i];
                e.rank = (int16_t)r; /* the sender's word is not trusted for where it is drawn */
                t->env.on_dist_event(t->env.observer, &e);
            }
    }
    for (int r = 0; r < d->nranks; r++) free(in[r]);
    free(b);
    log->n = 0;
    return rc;
}
