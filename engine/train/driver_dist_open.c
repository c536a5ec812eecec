/* driver_dist_open.c - opening a rank (driver_dist.h): the cut every rank
 * computes alike, the widths and vertex costs each hop moves, T_v, T_e and
 * T_c probed on rank 0, and the dependency plan with its blocks and
 * routes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/checksum.h"
#include "base/mono_clock.h"
#include "base/rng.h"
#include "driver_dist.h"
#include "engine/kernels/host_rate.h"
#include "engine/kernels/kernels.h"
#include "engine/machine/catalog.h"
#include "engine/machine/linkmodel.h"
#include "engine/program/op_table.h"

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
    int rc = order_vertices(&data->g, t->cfg.order, d->nranks, t->cfg.seed, perm, d->bounds, err);
    for (int r = 0; !rc && r < d->nranks; r++)
        if (d->bounds[r + 1] <= d->bounds[r])
            rc = gs_fail(err, GS_EINPUT, "--order %s left rank %d no vertices; use fewer ranks or --order none",
                         t->cfg.order == ORDER_METIS ? "metis" : "random", r);
    int identity = 1;
    for (int64_t v = 0; !rc && v < n && identity; v++) identity = perm[v] == v;
    if (!rc && !identity && !(rc = data_renumber(data, perm, err))) rc = data_place(data, t->kp, t->cfg.feat_norm, err);
    if (!rc) rc = trainer_part_plan(t, d->nranks, d->bounds, err); /* --partitioner: the ranges in this numbering */
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
 * hop h (what a mirror row carries, and each of its edges), and of those
 * the ones whose values carry a gradient back; d(k): what a cached
 * level-k row holds. */
static void widths(const exec_t *ex, const trainer_t *t, dist_run_t *d)
{
    const program_t *P = ex->prog;
    memset(d->width, 0, sizeof d->width);
    memset(d->wgrad, 0, sizeof d->wgrad);
    for (int i = 0; i < P->ncode; i++)
        for (int k = 0; k < P->code[i].nin; k++)
            if (ex->first_src[i] >> k & 1) {
                const value_t *v = &P->vals[P->code[i].in[k]];
                d->width[ex->hop[i]] += v->cols;
                d->wgrad[ex->hop[i]] += v->requires_grad ? v->cols : 0;
            }
    d->dim[0] = t->data.ds.f;
    for (int k = 1; k < ex->nhops; k++) d->dim[k] = d->width[k + 1];
    d->dim[ex->nhops] = t->data.ds.c;
}

/* c(k): the time per row of level k's vertex ops (not graph ops): each
 * op's roofline on the virtual clock, else T_v times its FLOPs; and of
 * their backward, where the output carries a gradient (a backward op moves
 * its tensors' gradients: the same bytes). */
static void vertex_costs(const exec_t *ex, dist_run_t *d)
{
    const program_t *P = ex->prog;
    memset(d->vcost, 0, sizeof d->vcost);
    memset(d->vback, 0, sizeof d->vback);
    for (int i = 0; i < P->ncode; i++) {
        const instr_t *in = &P->code[i];
        if (ex->hop[i] != 0 || P->vals[in->out].dom != DOM_VERTEX) continue;
        double out = (double)P->vals[in->out].cols, a = (double)P->vals[in->in[0]].cols;
        op_dims_t row = {.rows = 1, .cols = out, .in_rows = 1, .in_cols = a, .grads = 1}; /* a row's */
        double bytes = 4.0 * out;
        for (int k = 0; k < in->nin; k++)
            if (P->vals[in->in[k]].dom != DOM_PARAM) bytes += 4.0 * (double)P->vals[in->in[k]].cols;
        for (int back = 0; back < 2 && (!back || P->vals[in->out].requires_grad); back++) {
            double flops = op_flops(P, in, row, back);
            double s = d->virtual_clock ? vclock_host_s(&d->clock, flops, bytes, 0) : flops * d->tv;
            *(back ? &d->vback[ex->level[in->out]] : &d->vcost[ex->level[in->out]]) += s;
        }
    }
}

/* ---------------- probing T_v, T_e, T_c (rank 0) ---------------- */

/* A gather and a product on a small random graph of the real one's mean
 * degree and the widest hop's width, timed on the rank's clock (modeled or
 * measured; a GPU rank's gather waits for its loads): T_v per FLOP of a
 * vertex op, T_e per float an edge gathers, T_c per float sent. */
static int probe(const trainer_t *t, dist_run_t *d, gs_err_t *err)
{
    enum { N0 = 4096 };
    int64_t w = 0; /* the widest hop's: the costs that matter most are measured at their width */
    for (int h = 1; h <= DEP_MAX_HOPS; h++) w = d->width[h] > w ? d->width[h] : w;
    if (w <= 0) w = 16;
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
        nic_t gpu_link = {.pcie_bw = d->pcie_bw, .pcie_lat = d->pcie_lat}; /* a GPU rank's gather waits for its loads */
        ge = fmax(ge, nic_load_s(&gpu_link, 4.0 * N0 * w + 8.0 * (double)g.m));
        double gv = d->virtual_clock ? vclock_host_s(&d->clock, 2.0 * N0 * w * w, 4.0 * (2.0 * N0 * w + w * w), c2 - c1) : t2 - t1;
        d->te = ge / ((double)g.m * w);            /* per edge float gathered */
        d->tv = gv / (2.0 * (double)N0 * w * w);  /* per vertex-op FLOP */
        d->tc = dist_comm_cost(t, d);
        graph_free(&g);
    }
    free(ds.pair_src), free(ds.pair_dst), free(x), free(y), free(m);
    return rc;
}

double dist_comm_cost(const trainer_t *t, const dist_run_t *d)
{
    if (d->net.bw <= 0) return d->virtual_clock ? 0 : 4.0 / d->clock.host_bw;
    double R = d->nranks, n = (double)t->data.g.n, m = (double)t->data.g.m;
    double w = d->width[1] > 0 ? (double)d->width[1] : 16;
    double rows = fmax(1, fmin(n / R, m / (R * R))); /* one peer's distinct sources into this rank's range */
    double bytes = 4.0 * rows * w;
    double s = d->net.latency + bytes / d->net.bw;
    s += dist_enqueue_s(rows, bytes, d->clock.host_bw, d->host_cores, t->cfg.queue_locked);
    nic_t gpu_link = {.pcie_bw = d->pcie_bw, .pcie_lat = d->pcie_lat};
    s += 2.0 * nic_load_s(&gpu_link, bytes); /* off one GPU, onto the other */
    return s / (rows * w);
}

int dist_plan_inputs(const trainer_t *t, dist_run_t *d, double *t0, gs_err_t *err)
{
    widths(&t->ex, t, d);
    double costs[4] = {0, 0, 0, 0};
    int rc = d->rank == 0 ? probe(t, d, err) : GS_OK;
    if (rc) return rc;
    costs[0] = d->tv, costs[1] = d->te, costs[2] = d->tc, costs[3] = gs_mono_s();
    if ((rc = dist_bcast(d->comm, costs, sizeof costs, 0, err))) return rc;
    d->tv = costs[0], d->te = costs[1], d->tc = costs[2];
    if (t0) *t0 = costs[3];
    vertex_costs(&t->ex, d);
    return GS_OK;
}

/* ---------------- planning ---------------- */

int dist_plan_open(trainer_t *t, dist_run_t *d, gs_err_t *err)
{
    double t0 = gs_mono_s();
    dep_params_t p = {.nranks = d->nranks, .rank = d->rank, .bounds = d->bounds, .nhops = t->ex.nhops, .mode = t->cfg.dep,
                      .ratio = t->cfg.dep == DEP_HYBRID ? t->cfg.dep_ratio : -1, .mem_limit = (double)t->cfg.dep_mem,
                      .te = d->te, .tc = d->tc};
    memcpy(p.width, d->width, sizeof p.width);
    memcpy(p.vcost, d->vcost, sizeof p.vcost);
    memcpy(p.vback, d->vback, sizeof p.vback);
    memcpy(p.wgrad, d->wgrad, sizeof p.wgrad);
    memcpy(p.dim, d->dim, sizeof p.dim);
    if (p.nhops < 1) return gs_fail(err, GS_EINPUT, "--ranks: the model has no gather, nothing to distribute");
    int rc = dep_plan(&t->data.g, &p, &d->plan, err);
    const int32_t *set[DEP_MAX_HOPS + 1], *extra[DEP_MAX_HOPS + 1];
    for (int k = 0; k <= p.nhops; k++) set[k] = d->plan.set[k], extra[k] = d->plan.extra[k];
    if (!rc) rc = blocks_build(&t->data.g, p.nhops, set, d->plan.nset, extra, d->plan.nextra, &d->bs, err);
    if (!rc) rc = dist_engine_open(&d->engine, d->comm, d->rank, d->nranks, d->bounds, &d->plan, &d->bs, err);
    if (t->cfg.simulate) d->engine.kp = kplace_sim(); /* its gathers run nothing; their times are charged */
    d->engine.ring = t->cfg.ring, d->engine.overlap = t->cfg.overlap;
    d->engine.nic = (nic_t){.net = d->net, .pcie_bw = d->pcie_bw, .pcie_lat = d->pcie_lat};
    d->engine.host_cores = d->host_cores, d->engine.queue_locked = t->cfg.queue_locked;
    d->engine.clock = d->virtual_clock ? &d->clock : NULL;
    d->plan_ms = 1e3 * (gs_mono_s() - t0);
    return rc;
}

void dist_plan_close(dist_run_t *d)
{
    dist_engine_close(&d->engine);
    blocks_free(&d->bs);
    dep_plan_free(&d->plan);
}

double dist_held_bytes(const trainer_t *t, const dist_run_t *d)
{
    const dep_plan_t *p = &d->plan;
    double bytes = 4.0 * (double)(t->data.x.rows * t->data.x.cols) + 4.0 * (double)(p->hi - p->lo);
    for (int h = 1; h <= p->nhops; h++) bytes += 24.0 * (double)d->bs.block[h].m;
    return bytes;
}

/* ---------------- opening ---------------- */

/* The rank's clock on a cluster node of --topology: its ops on the node's
 * GPU (its roofline, or measured CPU time scaled from this machine's core
 * to it) with messages staged over the GPU's PCIe link, or on its host
 * CPU (--rank-compute host). The wall clock computes here, on this CPU. */
static int node_clock(trainer_t *t, dist_run_t *d, gs_err_t *err)
{
    topology_t topo;
    int rc = topology_load(t->cfg.topology, &topo, err);
    if (rc) return rc;
    d->virtual_clock = t->cfg.clock == CLOCK_VIRTUAL;
    int threads = t->cfg.threads > 0 ? t->cfg.threads : 1, gpu = d->virtual_clock && t->cfg.rank_gpu;
    double core = gpu && t->cfg.ktime == KTIME_MEASURED ? host_probe_flops() / threads : topo.host_flops / threads;
    vclock_init(&d->clock, &topo, t->cfg.ktime, core, threads, 0);
    d->clock.ops_on_gpu = gpu;
    d->pcie_bw = gpu ? lm_path_bw(&topo, &topo.h2d[0]) : 0, d->pcie_lat = gpu ? lm_path_latency(&topo, &topo.h2d[0]) : 0;
    const cpu_model_t *cpu = cpu_model_find(topo.host_model);
    d->host_cores = cpu ? cpu->cores * (topo.sockets > 0 ? topo.sockets : 1) : 1;
    return GS_OK;
}

int trainer_dist_open(trainer_t *t, gs_err_t *err)
{
    dist_run_t *d = calloc(1, sizeof *d);
    if (!d) return gs_fail(err, GS_EFAIL, "out of memory");
    t->dist = d;
    d->comm = t->env.comm;
    d->rank = dist_comm_rank(d->comm), d->nranks = dist_comm_size(d->comm);
    if (t->cfg.stream) return gs_fail(err, GS_EINPUT, "--ranks: the device and streaming flags do not apply to distributed runs");
    int rc = network_get(t->cfg.network, &d->net, err);
    if (rc) return rc;
    if ((rc = node_clock(t, d, err))) return rc;
    if ((rc = cut(t, d, err))) return rc;
    exec_free(&t->ex); /* the layout, for what each hop moves */
    if ((rc = exec_init(&t->ex, &t->model.prog, t->kp, &t->model.params, t->cfg.seed, err))) return rc;
    if ((rc = dist_plan_inputs(t, d, &d->clock.now, err))) return rc; /* every rank's timeline starts at rank 0's clock */
    if ((rc = dist_plan_open(t, d, err))) return rc;
    const dep_plan_t *p = &d->plan;
    if ((rc = data_localize(&t->data, p->set[0], p->nset[0], d->bs.block[1].nsrc, p->lo, p->hi, err))) return rc;
    dist_comm_set_timeout(d->comm, t->cfg.rank_timeout); /* from here on every rank has loaded and planned */
    d->held_bytes = dist_held_bytes(t, d);
    return GS_OK;
}

void trainer_dist_close(trainer_t *t)
{
    dist_run_t *d = t->dist;
    if (!d) return;
    dist_report_free(&d->report);
    dist_plan_close(d);
    free(d);
    t->dist = NULL;
}

