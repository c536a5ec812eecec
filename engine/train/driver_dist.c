/* train_dist.c - see train_dist.h. */
#include "driver_dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/checksum.h"
#include "engine/kernels/kernels.h"
#include "knobs.h"
#include "engine/exec/params.h"
#include "base/rng.h"
#include "stats.h"
#include "train.h"
#include "base/mono_clock.h"

/* ---------------- the cut ---------------- */

/* Orders the vertices and cuts nranks contiguous ranges, the same on every
 * rank; a hash of the cut proves it. */
static int cut(trainer_t *t, dist_run_t *d, gs_err_t *err)
{
    train_data_t *data = &t->data;
    int64_t n = data->g.n;
    if (d->nranks > n) return gs_fail(err, GS_EINPUT, "--ranks %d: more ranks than the graph's %lld vertices", d->nranks, (long long)n);
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)n);
    if (!perm) return gs_fail(err, GS_EFAIL, "out of memory");
    int rc = partition_order(&data->g, t->cfg.order, d->nranks, t->cfg.seed, perm, d->bounds, err);
    for (int r = 0; !rc && r < d->nranks; r++)
        if (d->bounds[r + 1] <= d->bounds[r])
            rc = gs_fail(err, GS_EINPUT, "--order %s left rank %d no vertices; use fewer ranks or --order none",
                         t->cfg.order == ORDER_METIS ? "metis" : "random", r);
    int identity = 1;
    for (int64_t v = 0; !rc && v < n && identity; v++) identity = perm[v] == v;
    if (!rc && !identity && !(rc = data_renumber(data, perm, err))) rc = data_place(data, t->kp, t->cfg.feat_norm, err);
    if (!rc) rc = part_plan(t, d->nranks, d->bounds, err); /* --partitioner: the ranges in this numbering */
    uint64_t h = gs_checksum(GS_CHECKSUM_SEED, d->bounds, sizeof(int64_t) * (size_t)(d->nranks + 1));
    h = gs_checksum(h, perm, sizeof(int32_t) * (size_t)n);
    h = gs_checksum(h, data->g.in_src, sizeof(int32_t) * (size_t)data->g.m);
    free(perm);
    if (rc) return rc;
    int64_t lo_hi[2] = {(int64_t)(h >> 1), -(int64_t)(h >> 1)}; /* min and -max in one all-reduce */
    if ((rc = dist_allreduce(d->comm, lo_hi, 2, DIST_I64, DIST_MIN, err))) return rc;
    if (lo_hi[0] != -lo_hi[1])
        return gs_fail(err, GS_EFAIL, "the ranks cut the graph differently (different datasets or builds?)");
    return GS_OK;
}

/* ---------------- what each hop moves ---------------- */

/* w(h): the floats per row of the values first read by source index at
 * hop h (what a mirror row carries, and each of its edges); d(k): what a
 * cached level-k row holds. */
static void widths(const exec_t *ex, const trainer_t *t, dist_run_t *d)
{
    const program_t *P = ex->prog;
    memset(d->width, 0, sizeof d->width);
    for (int i = 0; i < P->ncode; i++)
        for (int k = 0; k < P->code[i].nin; k++)
            if (ex->first_src[i] >> k & 1) d->width[ex->hop[i]] += P->vals[P->code[i].in[k]].cols;
    d->dim[0] = t->data.ds.f;
    for (int k = 1; k < ex->nhops; k++) d->dim[k] = d->width[k + 1];
    d->dim[ex->nhops] = t->data.ds.c;
}

/* c(k): the time per row of level k's vertex ops (not graph ops): each
 * op's roofline on the virtual clock, else T_v times its FLOPs. */
static void vertex_costs(const exec_t *ex, dist_run_t *d)
{
    const program_t *P = ex->prog;
    memset(d->vcost, 0, sizeof d->vcost);
    for (int i = 0; i < P->ncode; i++) {
        const instr_t *in = &P->code[i];
        if (ex->hop[i] != 0 || P->vals[in->out].dom != DOM_VERTEX) continue;
        double out = (double)P->vals[in->out].cols, a = (double)P->vals[in->in[0]].cols;
        double flops = in->op == OP_MATMUL ? 2.0 * a * out : in->op == OP_HEAD_DOT ? 2.0 * a : out;
        double bytes = 4.0 * out;
        for (int k = 0; k < in->nin; k++)
            if (P->vals[in->in[k]].dom != DOM_PARAM) bytes += 4.0 * (double)P->vals[in->in[k]].cols;
        d->vcost[ex->level[in->out]] += d->virtual_clock ? vclock_host_s(&d->clock, flops, bytes, 0) : flops * d->tv;
    }
}

/* ---------------- probing T_v, T_e, T_c (rank 0) ---------------- */

/* A gather and a product on a small random graph of the real one's mean
 * degree, timed on the rank's clock (modeled or measured): T_v per FLOP of
 * a vertex op, T_e per float an edge gathers, T_c per float sent. */
static int probe(const trainer_t *t, dist_run_t *d, gs_err_t *err)
{
    enum { N0 = 4096 };
    int64_t w = d->dim[1] > 0 ? d->dim[1] : 16;
    double deg = fmin(64, fmax(1, (double)t->data.g.m / (double)t->data.g.n));
    dataset_t ds;
    memset(&ds, 0, sizeof ds);
    ds.n = N0, ds.f = 1, ds.c = 2, ds.npairs = (int64_t)(N0 * deg / 2) + 1;
    ds.pair_src = malloc(sizeof(int32_t) * (size_t)ds.npairs);
    ds.pair_dst = malloc(sizeof(int32_t) * (size_t)ds.npairs);
    float *x = malloc(sizeof(float) * (size_t)(N0 * w)), *y = malloc(sizeof(float) * (size_t)(N0 * w));
    float *m = malloc(sizeof(float) * (size_t)(w * w));
    graph_t g;
    int rc = ds.pair_src && ds.pair_dst && x && y && m ? GS_OK : gs_fail(err, GS_EFAIL, "out of memory probing");
    for (int64_t i = 0; !rc && i < ds.npairs; i++)
        ds.pair_src[i] = (int32_t)(gs_hash2(7, (uint64_t)i) % N0), ds.pair_dst[i] = (int32_t)(gs_hash2(8, (uint64_t)i) % N0);
    for (int64_t i = 0; !rc && i < N0 * w; i++) x[i] = (float)(i % 7) * 0.1f;
    for (int64_t i = 0; !rc && i < w * w; i++) m[i] = (float)(i % 5) * 0.1f;
    if (!rc) rc = graph_build(&g, &ds, err);
    if (!rc) {
        double c0 = vclock_cpu_s(), t0 = gs_mono_s();
        k_gather_sum(&g, AGG_NORM, x, w, y, 0);
        double c1 = vclock_cpu_s(), t1 = gs_mono_s();
        k_gemm(0, 0, N0, w, w, x, m, y, 0);
        double c2 = vclock_cpu_s(), t2 = gs_mono_s();
        double ge = d->virtual_clock ? vclock_host_s(&d->clock, 2.0 * g.m * w, 4.0 * (g.m * w + 2.0 * N0 * w), c1 - c0) : t1 - t0;
        double gv = d->virtual_clock ? vclock_host_s(&d->clock, 2.0 * N0 * w * w, 4.0 * (2.0 * N0 * w + w * w), c2 - c1) : t2 - t1;
        d->te = ge / ((double)g.m * w);            /* per edge float gathered */
        d->tv = gv / (2.0 * (double)N0 * w * w);  /* per vertex-op FLOP */
        d->tc = d->net.bw > 0 ? 4.0 / d->net.bw : d->virtual_clock ? 0 : 4.0 / d->clock.host_bw;
        graph_free(&g);
    }
    free(ds.pair_src), free(ds.pair_dst), free(x), free(y), free(m);
    return rc;
}

/* ---------------- planning ---------------- */

static int plan(trainer_t *t, dist_run_t *d, gs_err_t *err)
{
    double t0 = gs_mono_s();
    dep_params_t p = {.nranks = d->nranks, .rank = d->rank, .bounds = d->bounds, .nhops = t->ex.nhops, .mode = t->cfg.dep,
                      .ratio = t->cfg.dep == DEP_HYBRID ? t->cfg.dep_ratio : -1, .mem_limit = (double)t->cfg.dep_mem,
                      .te = d->te, .tc = d->tc};
    memcpy(p.width, d->width, sizeof p.width);
    memcpy(p.vcost, d->vcost, sizeof p.vcost);
    memcpy(p.dim, d->dim, sizeof p.dim);
    if (p.nhops < 1) return gs_fail(err, GS_EINPUT, "--ranks: the model has no gather, nothing to distribute");
    int rc = dep_plan(&t->data.g, &p, &d->plan, err);
    const int32_t *set[DEP_MAX_HOPS + 1], *extra[DEP_MAX_HOPS + 1];
    for (int k = 0; k <= p.nhops; k++) set[k] = d->plan.set[k], extra[k] = d->plan.extra[k];
    if (!rc) rc = blocks_build(&t->data.g, p.nhops, set, d->plan.nset, extra, d->plan.nextra, &d->bs, err);
    if (!rc) rc = dist_engine_open(&d->engine, d->comm, d->rank, d->nranks, d->bounds, &d->plan, &d->bs, err);
    d->engine.ring = t->cfg.ring, d->engine.overlap = t->cfg.overlap;
    d->engine.nic = (nic_t){d->net, 0, 0};
    d->engine.clock = d->virtual_clock ? &d->clock : NULL;
    d->plan_ms = 1e3 * (gs_mono_s() - t0);
    return rc;
}

static void unplan(dist_run_t *d)
{
    dist_engine_close(&d->engine);
    blocks_free(&d->bs);
    dep_plan_free(&d->plan);
}

/* ---------------- opening ---------------- */

int trainer_dist_open(trainer_t *t, gs_err_t *err)
{
    dist_run_t *d = calloc(1, sizeof *d);
    if (!d) return gs_fail(err, GS_EFAIL, "out of memory");
    t->dist = d;
    d->comm = t->cfg.comm;
    d->rank = dist_comm_rank(d->comm), d->nranks = dist_comm_size(d->comm);
    if (t->cfg.stream) return gs_fail(err, GS_EINPUT, "--ranks: the device and streaming flags do not apply to distributed runs");
    int rc = network_get(t->cfg.network, &d->net, err);
    if (rc) return rc;
    topology_t topo;
    topology_get("1gpu", &topo); /* a cluster node's host: its modeled FLOP/s and memory bandwidth */
    d->virtual_clock = t->cfg.clock == CLOCK_VIRTUAL;
    int threads = t->cfg.threads > 0 ? t->cfg.threads : 1;
    vclock_init(&d->clock, &topo, t->cfg.ktime, topo.host_flops / threads, threads, 0);
    if ((rc = cut(t, d, err))) return rc;
    exec_free(&t->ex); /* the layout, for what each hop moves */
    if ((rc = exec_init(&t->ex, &t->model.prog, t->kp, &t->model.params, t->cfg.seed, err))) return rc;
    widths(&t->ex, t, d);
    double costs[4] = {0, 0, 0, 0};
    if (d->rank == 0 && (rc = probe(t, d, err))) return rc;
    costs[0] = d->tv, costs[1] = d->te, costs[2] = d->tc, costs[3] = gs_mono_s();
    if ((rc = dist_bcast(d->comm, costs, sizeof costs, 0, err))) return rc;
    d->tv = costs[0], d->te = costs[1], d->tc = costs[2];
    d->clock.now = costs[3]; /* every rank's timeline starts at rank 0's clock, as a streamed run's does at its host's */
    vertex_costs(&t->ex, d);
    if ((rc = plan(t, d, err))) return rc;
    const dep_plan_t *p = &d->plan;
    if ((rc = data_localize(&t->data, p->set[0], p->nset[0], d->bs.block[1].nsrc, p->lo, p->hi, err))) return rc;
    d->held_bytes = 4.0 * (double)(t->data.x.rows * t->data.x.cols) + 4.0 * (double)(p->hi - p->lo);
    for (int h = 1; h <= p->nhops; h++) d->held_bytes += 24.0 * (double)d->bs.block[h].m;
    return GS_OK;
}

static void free_report(dist_report_t *r)
{
    free(r->owned), free(r->replicated), free(r->mirrors), free(r->cached), free(r->cache_bytes), free(r->held_bytes),
        free(r->traffic), free(r->messages);
    memset(r, 0, sizeof *r);
}

void trainer_dist_close(trainer_t *t)
{
    dist_run_t *d = t->dist;
    if (!d) return;
    free_report(&d->report);
    unplan(d);
    free(d);
    t->dist = NULL;
}

/* ---------------- epoch boundaries ---------------- */

static int cmp_pair(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b; /* the id is each pair's first member */
    return (x > y) - (x < y);
}

/* The knobs a distributed run changes between epochs, as "name=value" lines. */
static const char *const live_knobs[] = {"dep", "dep-ratio", "dep-mem", "ring", "overlap", "network", "lr", "dkp", "partitioner", NULL};

int trainer_dist_sync(trainer_t *t, int *stop, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    char msg[2048] = "";
    if (d->rank == 0) {
        int w = snprintf(msg, sizeof msg, "stop=%d\nevents=%d\n", *stop != 0, t->cfg.on_dist_event != NULL);
        d->engine.log.on = t->cfg.on_dist_event != NULL;
        for (int i = 0; t->has_pending && live_knobs[i]; i++) {
            const opt_t *o = knob_find(live_knobs[i]);
            char now[96], then[96];
            opt_format(o, &t->cfg, now, sizeof now);
            opt_format(o, &t->pending, then, sizeof then);
            if (strcmp(now, then) != 0) w += snprintf(msg + w, sizeof msg - (size_t)w, "%s=%s\n", live_knobs[i], then);
        }
    }
    int rc = dist_bcast(d->comm, msg, sizeof msg, 0, err);
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
            int known = 0;
            for (int i = 0; live_knobs[i]; i++) known |= !strcmp(buf, live_knobs[i]);
            if (!known) return gs_fail(err, GS_EINPUT, "control message: '%s' is not a distributed knob", buf);
            knob_facts_t facts = {.distributed = 1, .hops = t->ex.nhops};
            int rc = knob_parse(&want, buf, eq + 1, &facts, err);
            if (rc) return rc;
            changed = 1;
        }
        line = end ? end + 1 : line + len;
    }
    if (changed) knob_set_all(t, &want);
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
    int rc = plan(t, d, err);
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
        unplan(d);
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

int trainer_dist_apply(trainer_t *t, const void *old_cfg, gs_err_t *err)
{
    const train_cfg_t *old = old_cfg;
    dist_run_t *d = t->dist;
    d->engine.ring = t->cfg.ring, d->engine.overlap = t->cfg.overlap;
    int rc = network_get(t->cfg.network, &d->net, err);
    if (rc) return rc;
    d->engine.nic.net = d->net;
    if (old->partitioner != t->cfg.partitioner) t->part.resplit = 1; /* cut by the new partitioner at the next boundary */
    if (old->dep == t->cfg.dep && old->dep_ratio == t->cfg.dep_ratio && old->dep_mem == t->cfg.dep_mem && old->dkp == t->cfg.dkp)
        return GS_OK;
    return replan(t, d->bounds, err); /* dkp: new widths, so new costs for Algorithm 4 */
}

/* ---------------- the partitioner across ranks ---------------- */

/* Every rank's compute per layer this epoch, summed into the same samples
 * on every rank, for the partitioner's model (train_partition.h). */
static int learn_split(trainer_t *t, epoch_stats_t *st, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    int R = d->nranks, L = t->part.model.nlayers;
    double *y = calloc((size_t)L * (size_t)R + 1, sizeof(double));
    if (!y) return gs_fail(err, GS_EFAIL, "out of memory for the partitioner's samples");
    for (int l = 0; l < L && l < PROG_MAX_LAYERS; l++) y[(size_t)l * (size_t)R + (size_t)d->rank] = d->layer_s[l];
    memset(d->layer_s, 0, sizeof d->layer_s);
    int rc = dist_allreduce(d->comm, y, (int64_t)L * R, DIST_F64, DIST_SUM, err);
    if (!rc) rc = part_learn_ranks(t, y, st, err);
    free(y);
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
        if ((rc = place_alloc(t->kp, &t->dlogits, rows, classes, err))) return rc;
    }
    const dep_plan_t *p = &d->plan;
    d->held_bytes = 4.0 * (double)(t->data.x.rows * t->data.x.cols) + 4.0 * (double)(p->hi - p->lo);
    for (int h = 1; h <= p->nhops; h++) d->held_bytes += 24.0 * (double)d->bs.block[h].m;
    return part_plan(t, R, d->bounds, err); /* the parts' predictions for the new ranges */
}

static int gather_events(trainer_t *t, gs_err_t *err);

/* The share of the rank's compute that replicated rows take, by the
 * planning cost model (vertex ops and gathers of each level's rows). */
static double replica_share(const dist_run_t *d)
{
    double all = d->plan.own_cost + d->plan.rep_cost;
    return all > 0 ? d->plan.rep_cost / all : 0;
}

int trainer_dist_epoch_end(trainer_t *t, void *stats, gs_err_t *err)
{
    epoch_stats_t *st = stats;
    dist_run_t *d = t->dist;
    const dist_counters_t *c = &d->engine.ctr;
    double bytes = 0, msgs = 0, f = replica_share(d), compute = 1e3 * t->ex.own_s;
    for (int h = 0; h <= DEP_MAX_HOPS; h++)
        for (int dir = 0; dir < 2; dir++)
            for (int p = 0; p < d->nranks; p++) bytes += c->bytes[h][dir][p], msgs += c->msgs[h][dir][p];
    double sums[12] = {st->loss, st->train_acc, st->val_acc, st->test_acc, bytes, msgs, 1e3 * c->stall_s, 1e3 * c->comm_s,
                       1e3 * c->hidden_s, compute * (1 - f), compute * f, 1e3 * c->allreduce_s};
    int rc = dist_engine_allreduce(&d->engine, sums, 12, 1, err);
    if (rc) return rc;
    double r = d->nranks;
    st->loss = sums[0], st->train_acc = sums[1], st->val_acc = sums[2], st->test_acc = sums[3];
    st->net_bytes = sums[4], st->net_msgs = sums[5], st->stall_ms = sums[6] / r, st->comm_ms = sums[7] / r;
    st->comm_hidden = sums[7] > 0 ? sums[8] / sums[7] : 0;
    st->owned_ms = sums[9] / r, st->replica_ms = sums[10] / r, st->allreduce_ms = sums[11] / r;
    if ((rc = learn_split(t, st, err))) return rc;
    return d->engine.log.on ? gather_events(t, err) : GS_OK;
}

/* The epoch (training step and evaluation) the cost model predicts
 * (dep_plan_cost) plus the gradient all-reduce. */
static double predicted_ms(const trainer_t *t, const dist_run_t *d)
{
    double params = 4.0 * (double)params_count(&t->model.params);
    return 1e3 * (dep_plan_cost(&d->plan) + net_allreduce_s(&d->net, d->nranks, params));
}

int trainer_dist_gather(trainer_t *t, gs_err_t *err)
{
    dist_run_t *d = t->dist;
    dist_report_t *r = &d->report;
    free_report(r);
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
        free(buf), free_report(r);
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
    if (!rc && d->rank == 0 && t->cfg.on_dist_event) {
        for (int64_t i = 0; i < log->n; i++) t->cfg.on_dist_event(t->cfg.observer, &log->ev[i]);
        for (int r = 1; r < d->nranks; r++)
            for (int64_t i = 0; i < (int64_t)counts[r]; i++) {
                dist_event_t e = in[r][i];
                e.rank = (int16_t)r; /* the sender's word is not trusted for where it is drawn */
                t->cfg.on_dist_event(t->cfg.observer, &e);
            }
    }
    for (int r = 0; r < d->nranks; r++) free(in[r]);
    free(b);
    log->n = 0;
    return rc;
}
