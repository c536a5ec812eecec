/* driver_dist_boundary.c - a rank at an epoch boundary (driver_dist.h):
 * rank 0's stop decision and knob changes sent to every rank, the knob
 * changes put in force (a re-plan when the split of the dependencies
 * changes), and a new cut of the ranks' ranges moving rows between them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_dist.h"

/* ---------------- epoch boundaries ---------------- */

static int cmp_pair(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b; /* the id is each pair's first member */
    return (x > y) - (x < y);
}

/* Whether knob o changes while a distributed run trains (rank 0 sends it
 * to every rank as a "name=value" line). */
static int live_knob(const opt_t *o)
{
    run_kind_t dist = {.driver = DRIVER_DIST, .engine = ENGINE_DIST};
    return o->when != WHEN_START && knob_applies(o, &dist);
}

int trainer_dist_sync(trainer_t *t, int *stop, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    char msg[2048] = "";
    if (d->rank == 0) {
        int w = snprintf(msg, sizeof msg, "stop=%d\nevents=%d\n", *stop != 0, t->env.on_dist_event != NULL);
        d->engine.log.on = t->env.on_dist_event != NULL;
        int n;
        const opt_t *k = knob_table(&n);
        for (int i = 0; t->has_pending && i < n; i++) {
            if (!live_knob(&k[i])) continue;
            char now[96], then[96];
            opt_format(&k[i], &t->cfg, now, sizeof now);
            opt_format(&k[i], &t->pending, then, sizeof then);
            if (strcmp(now, then) != 0) w += snprintf(msg + w, sizeof msg - (size_t)w, "%s=%s\n", k[i].name, then);
        }
    }
    int rc = dist_bcast(d->comm, msg, sizeof msg, 0, err); /* a rank that never comes is named (--rank-timeout) */
    if (rc) return rc;
    msg[sizeof msg - 1] = '\0';
    if (d->rank == 0) return GS_OK; /* its pending configuration is what was sent */
    return dist_control_apply(t, msg, stop, err);
}

int dist_control_apply(trainer_t *t, const char *msg, int *stop, gs_err_t *err)
{
    train_cfg_t want = t->has_pending ? t->pending : t->cfg;
    int changed = 0;
    *stop = 0;
    for (const char *line = msg; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[160], *eq;
        if (len >= sizeof buf) return gs_fail(err, GS_EINPUT, "control message: line too long");
        memcpy(buf, line, len), buf[len] = '\0';
        if (!(eq = strchr(buf, '='))) return gs_fail(err, GS_EINPUT, "control message: '%s' is not name=value", buf);
        *eq = '\0';
        if (!strcmp(buf, "stop") || !strcmp(buf, "events")) {
            if (strcmp(eq + 1, "0") && strcmp(eq + 1, "1")) return gs_fail(err, GS_EINPUT, "control message: %s=%s", buf, eq + 1);
            if (buf[0] == 's') *stop = eq[1] == '1';
            else if (t->dist) t->dist->engine.log.on = eq[1] == '1';
        } else {
            const opt_t *o = knob_find(buf);
            if (!o || !live_knob(o)) return gs_fail(err, GS_EINPUT, "control message: '%s' is not a distributed knob", buf);
            knob_facts_t facts = {.kind = {.driver = DRIVER_DIST, .engine = ENGINE_DIST}, .hops = t->ex.nhops};
            int rc = knob_parse(&want, buf, eq + 1, &facts, err);
            if (rc) return rc;
            changed = 1;
        }
        line = end ? end + 1 : line + len;
    }
    if (changed) trainer_set_pending(t, &want);
    return GS_OK;
}

typedef struct {
    int32_t id; /* first: cmp_pair reads it */
    int64_t slot;
} id_slot_t;

/* Sorts ids ascending, carrying slot along; -1 when out of memory. */
static int sort_by_id(int32_t *id, int64_t *slot, int64_t n)
{
    id_slot_t *p = malloc(sizeof *p * (size_t)(n + 1));
    if (!p) return -1;
    for (int64_t i = 0; i < n; i++) p[i] = (id_slot_t){id[i], slot[i]};
    qsort(p, (size_t)n, sizeof *p, cmp_pair);
    for (int64_t i = 0; i < n; i++) id[i] = p[i].id, slot[i] = p[i].slot;
    free(p);
    return 0;
}

/* A new plan (every rank, at the same boundary), for d->bounds: the new
 * plan, blocks and routes; the features of the level-0 rows it adds are
 * fetched from their owners under the bounds the rows were held by (was),
 * the rest kept; weights and optimiser state are untouched. */
static int replan(trainer_t *t, const int64_t *was, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    dep_plan_t old_plan = d->plan;
    blockset_t old_bs = d->bs;
    dist_engine_t *old_engine = malloc(sizeof *old_engine);
    if (!old_engine) return gs_fail(err, GS_EFAIL, "out of memory");
    *old_engine = d->engine;
    memset(&d->plan, 0, sizeof d->plan), memset(&d->bs, 0, sizeof d->bs), memset(&d->engine, 0, sizeof d->engine);
    int rc = dist_plan_open(t, d, err);
    const dep_plan_t *p = &d->plan;
    int64_t f = t->data.x.cols, rows = rc ? 0 : d->bs.block[1].nsrc, nnew = 0;
    float *x = rc ? NULL : calloc((size_t)(rows * f + 1), sizeof(float));
    int32_t *fetch = rc ? NULL : malloc(sizeof(int32_t) * (size_t)(p->nset[0] + 1));
    int64_t *slot = rc ? NULL : malloc(sizeof(int64_t) * (size_t)(p->nset[0] + 1));
    if (!rc && (!x || !fetch || !slot)) rc = gs_fail(err, GS_EFAIL, "out of memory re-planning");
    int32_t *where = rc ? NULL : malloc(sizeof(int32_t) * (size_t)(t->data.g.n + 1)); /* vertex -> old level-0 row */
    if (!rc && !where) rc = gs_fail(err, GS_EFAIL, "out of memory re-planning");
    for (int64_t v = 0; !rc && v < t->data.g.n; v++) where[v] = -1;
    for (int64_t i = 0; !rc && i < old_plan.nset[0]; i++) where[old_plan.set[0][i]] = (int32_t)i;
    for (int64_t i = 0; !rc && i < p->nset[0]; i++) {
        int32_t v = p->set[0][i];
        if (where[v] >= 0) memcpy(x + i * f, t->data.x.data + (int64_t)where[v] * f, sizeof(float) * (size_t)f);
        else fetch[nnew] = v, slot[nnew++] = i;
    }
    if (!rc && sort_by_id(fetch, slot, nnew)) rc = gs_fail(err, GS_EFAIL, "out of memory re-planning"); /* owners answer in id order */
    float *got = rc ? NULL : malloc(sizeof(float) * (size_t)(nnew * f + 1));
    if (!rc && !got) rc = gs_fail(err, GS_EFAIL, "out of memory re-planning");
    if (!rc) rc = dist_fetch_rows(d->comm, d->rank, d->nranks, was, fetch, nnew, t->data.x.data, f, got, err);
    for (int64_t i = 0; !rc && i < nnew; i++) memcpy(x + slot[i] * f, got + i * f, sizeof(float) * (size_t)f);
    free(where), free(fetch), free(slot), free(got);
    if (rc) { /* keep the old split */
        free(x);
        dist_plan_close(d);
        d->plan = old_plan, d->bs = old_bs, d->engine = *old_engine;
        free(old_engine);
        return rc;
    }
    free(t->data.x.data);
    t->data.x = (tensor_t){rows, f, x};
    dist_engine_close(old_engine);
    free(old_engine);
    blocks_free(&old_bs);
    dep_plan_free(&old_plan);
    return trainer_rebuild_program(t, err); /* the executor on the new blocks */
}

/* The distributed knobs of t->cfg in force (old was); a new split of the
 * dependencies (or a new program: new widths, so new costs for
 * Algorithm 4) re-plans. */
static int apply_dist_knobs(trainer_t *t, const train_cfg_t *old, int program, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    d->engine.ring = t->cfg.ring, d->engine.overlap = t->cfg.overlap, d->engine.queue_locked = t->cfg.queue_locked;
    int rc = network_get(t->cfg.network, &d->net, err);
    if (rc) return rc;
    d->engine.nic.net = d->net;
    if (program && (rc = dist_plan_inputs(t, d, NULL, err))) return rc; /* the new program's widths and costs */
    double tc = d->tc;
    d->tc = dist_comm_cost(t, d); /* a new network or queue: a new T_c for Algorithm 4 */
    if (old->partitioner != t->cfg.partitioner) t->part.resplit = 1; /* cut by the new partitioner at the next boundary */
    int split = t->cfg.dep == DEP_HYBRID && t->cfg.dep_ratio < 0 && d->tc != tc;
    if (old->dep == t->cfg.dep && old->dep_ratio == t->cfg.dep_ratio && old->dep_mem == t->cfg.dep_mem && !program && !split)
        return GS_OK;
    return replan(t, d->bounds, err);
}

int trainer_dist_apply(trainer_t *t, const train_cfg_t *old, const train_cfg_t *want, gs_err_t *err)
{
    if (old->stream != want->stream || knob_changed_outside(old, want, &t->kind))
        return gs_fail(err, GS_EINPUT, "device and streaming knobs do not apply to distributed runs");
    t->cfg = *want;
    int program = knob_changed(old, want, WHEN_PROGRAM);
    int rc = program ? trainer_rebuild_program(t, err) : GS_OK;
    if (!rc) rc = apply_dist_knobs(t, old, program, err);
    if (rc) t->cfg = *old;
    return rc;
}

/* The labels and split members of the owned range [lo, hi) under new
 * bounds: every rank contributes its owned rows' (label + 2, and a bit per
 * split) to one sum over the whole graph, then keeps its new range. */
static int move_owned_labels(trainer_t *t, const int64_t *was, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    train_data_t *data = &t->data;
    int64_t n = data->g.n, lo0 = was[d->rank], lo = d->bounds[d->rank], hi = d->bounds[d->rank + 1];
    int64_t *all = calloc((size_t)(2 * n + 1), sizeof(int64_t));
    int32_t *label = malloc(sizeof(int32_t) * (size_t)(hi - lo + 1)), *split[3] = {NULL, NULL, NULL};
    int rc = !all || !label ? gs_fail(err, GS_EFAIL, "out of memory moving rows between ranks") : GS_OK;
    for (int64_t i = 0; !rc && i < was[d->rank + 1] - lo0; i++) all[lo0 + i] = (int64_t)data->label_k[i] + 2;
    for (int s = 0; !rc && s < 3; s++)
        for (int64_t i = 0; i < data->split_n[s]; i++) all[n + lo0 + data->split_k[s][i]] |= (int64_t)1 << s;
    if (!rc) rc = dist_allreduce(d->comm, all, 2 * n, DIST_I64, DIST_SUM, err);
    int64_t count[3] = {0, 0, 0};
    for (int64_t v = lo; !rc && v < hi; v++) {
        label[v - lo] = (int32_t)(all[v] - 2);
        for (int s = 0; s < 3; s++) count[s] += all[n + v] >> s & 1;
    }
    for (int s = 0; !rc && s < 3; s++)
        if (!(split[s] = malloc(sizeof(int32_t) * (size_t)(count[s] + 1)))) rc = gs_fail(err, GS_EFAIL, "out of memory moving rows between ranks");
    if (rc) {
        free(all), free(label);
        for (int s = 0; s < 3; s++) free(split[s]);
        return rc;
    }
    for (int s = 0; s < 3; s++) {
        data->split_n[s] = 0;
        for (int64_t v = lo; v < hi; v++)
            if (all[n + v] >> s & 1) split[s][data->split_n[s]++] = (int32_t)(v - lo);
        free(data->split_k[s]);
        data->split_k[s] = split[s];
    }
    free(data->label_k);
    data->label_k = label;
    free(all);
    return GS_OK;
}

int trainer_dist_resplit(trainer_t *t, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    part_state_t *ps = &t->part;
    int R = d->nranks;
    int64_t msg[DIST_MAX_RANKS + 2] = {0}; /* rank 0's decision: a flag, then the bounds */
    int rc = GS_OK;
    if (d->rank == 0 && ps->resplit && ps->p == R) {
        rc = partition_split(t->cfg.partitioner, &t->data.g, &ps->model, &ps->feat, R, msg + 1, err);
        msg[0] = !rc && memcmp(msg + 1, d->bounds, sizeof(int64_t) * (size_t)(R + 1)) != 0;
    }
    ps->resplit = 0;
    if (rc) return rc;
    if ((rc = dist_bcast(d->comm, msg, sizeof(int64_t) * (size_t)(R + 2), 0, err)) || !msg[0]) return rc;
    int64_t was[DIST_MAX_RANKS + 1];
    memcpy(was, d->bounds, sizeof(int64_t) * (size_t)(R + 1));
    memcpy(d->bounds, msg + 1, sizeof(int64_t) * (size_t)(R + 1));
    if (!(rc = move_owned_labels(t, was, err))) rc = replan(t, was, err);
    if (rc) return rc; /* the job cannot go on with ranks that disagree on who owns what */
    int64_t rows = exec_level_rows(&t->ex, t->ex.nhops), classes = t->dlogits.cols;
    if (rows != t->dlogits.rows) { /* the loss gradient has a row per owned vertex */
        place_free(t->kp, &t->dlogits);
        loss_rows_forget(&t->dlogits_rows); /* the new buffer's rows are unknown, wherever it lands */
        if ((rc = place_alloc(t->kp, &t->dlogits, rows, classes, err))) return rc;
    }
    d->held_bytes = dist_held_bytes(t, d);
    return trainer_part_plan(t, R, d->bounds, err); /* the parts' predictions for the new ranges */
}

