/* stream_engine.c - see stream_engine.h. */
#include "stream_engine.h"

#include "base/membudget.h"
#include "base/parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/device/cuda_plugin.h"
#include "engine/program/op_table.h"
#include "chunk_grid.h"
#include "engine/kernels/host_rate.h"
#include "base/threadpool.h"
#include "base/mono_clock.h"

/* ---------------- working sets ---------------- */

/* The largest streamed op's device bytes with intervals of at most max_out
 * rows, nbuf block buffers of at most max_blk rows and sub-chunks of at
 * most max_nnz edges (their structures stream through nbuf buffers; the
 * fused gather's through two). */
static uint64_t need_of(const program_t *p, int64_t n, int64_t max_out, int64_t max_blk, int64_t max_nnz, int nbuf)
{
    uint64_t edges = streamer_edge_need(max_out, max_nnz, nbuf), rows = sizeof(float) * (uint64_t)nbuf * (uint64_t)max_nnz;
    uint64_t ws = streamer_pass_need(max_out, max_blk, 1, 1, nbuf) + edges;
    for (int i = 0; i < p->ncode; i++) {
        const instr_t *in = &p->code[i];
        uint64_t w = 0;
        int64_t a = p->vals[in->in[0]].cols, o = p->vals[in->out].cols;
        val_domain_t ad = p->vals[in->in[0]].dom;
        if (op_has(in->op, OPF_ENGINE) && op_has(in->op, OPF_AGGREGATE)) /* a sum gather */
            w = streamer_pass_need(max_out, max_blk, a > o ? a : o, a > o ? a : o, nbuf) + edges;
        else if (in->op == OP_GATHER_MAX) { /* its winners beside the accumulator (forward) or the block (backward) */
            uint64_t fwd = streamer_pass_need(max_out, max_blk, 2 * o, o, nbuf);
            uint64_t bwd = streamer_pass_need(max_out, max_blk, o, 2 * o, nbuf);
            w = (fwd > bwd ? fwd : bwd) + edges;
        } else if (in->op == OP_GATHER_ATTN) /* and each block slot's sub-chunk head scales */
            w = streamer_pass_need(max_out, max_blk, o, o, nbuf) + edges + rows * (uint64_t)in->iparam + 512;
        else if (in->op == OP_SCATTER_SRC || in->op == OP_SCATTER_DST || in->op == OP_GATHER_EDGE) /* and edge rows */
            w = streamer_pass_need(max_out, max_blk, o, o, nbuf) + edges + rows * (uint64_t)o + 512;
        else if (in->op == OP_GATHER_FUSED) /* its operands on both sides */
            w = streamer_fused_need(&p->fused[in->iparam], in->nin, o, max_out, max_blk, max_nnz);
        else if (op_has(in->op, OPF_ENGINE) && (ad == DOM_VERTEX || ad == DOM_INPUT)) /* a vertex product */
            w = streamer_matmul_working_set(n, 1, 1, a, o);
        if (w > ws) ws = w;
    }
    return ws;
}

unsigned stream_edge_fields(const program_t *p)
{
    unsigned fields = 0;
    for (int i = 0; i < p->ncode; i++) {
        const instr_t *in = &p->code[i];
        int agg_op = in->op == OP_GATHER || in->op == OP_GATHER_TYPED || in->op == OP_GATHER_EDGE;
        if (agg_op && in->iparam > AGG_ONE && in->iparam <= AGG_MEAN) fields |= 1u << in->iparam;
        int fused_agg = in->op == OP_GATHER_FUSED ? p->fused[in->iparam].agg : AGG_ONE;
        if (fused_agg > AGG_ONE && fused_agg <= AGG_MEAN) fields |= 1u << fused_agg;
        if (in->op == OP_GATHER_TYPED || in->op == OP_SCATTER_TYPED || in->op == OP_EDGE_MATMUL_TYPED) fields |= SUB_TYPES;
        if (in->op == OP_GATHER_ATTN || in->op == OP_SCATTER_SRC || in->op == OP_SCATTER_DST || in->op == OP_GATHER_EDGE)
            fields |= SUB_EIDS;
    }
    return fields;
}

/* The blocks a pass's buffers hold: k sub-chunks' rows, or in the row order a whole interval. */
static int buffer_k(const stream_knobs_t *kn)
{
    return kn->stream_order == SO_ROW || kn->subchunks < 1 ? 1 : kn->subchunks;
}

/* The block buffers a pass carves (the row order's: two). */
static int buffers_of(const stream_knobs_t *kn)
{
    return kn->stream_order == SO_ROW ? 2 : streamer_block_buffers(kn->pipeline, buffer_k(kn));
}

uint64_t stream_working_set(const program_t *p, int64_t n, int64_t m, int chunks, const stream_knobs_t *kn)
{
    int64_t out = (n + chunks - 1) / chunks;
    int k = buffer_k(kn);
    double subs = (double)chunks * chunks * k;
    return need_of(p, n, out, (out + k - 1) / k, (int64_t)ceil((double)m / subs), buffers_of(kn)); /* edges spread evenly */
}

/* The need with the intervals of bounds over g (perm[new] = old, or
 * NULL); the row order's buffers hold a whole input interval. */
static uint64_t need_of_bounds(const stream_cfg_t *c, const program_t *p, const graph_t *g, const int32_t *perm, int chunks,
                               const int64_t *bounds)
{
    int k = c->knobs.subchunks < 1 ? 1 : c->knobs.subchunks;
    int64_t out = 0;
    for (int i = 0; i < chunks; i++) out = bounds[i + 1] - bounds[i] > out ? bounds[i + 1] - bounds[i] : out;
    int64_t blk = c->knobs.stream_order == SO_ROW ? out : (out + k - 1) / k;
    return need_of(p, g->n, out, blk, grid_max_sub_nnz(g, perm, bounds, chunks, k), buffers_of(&c->knobs));
}

/* ---------------- the plan: P and the order ---------------- */

void stream_plan_free(stream_plan_t *plan)
{
    free(plan->perm), free(plan->bounds);
    memset(plan, 0, sizeof *plan);
}

/* The order for P intervals; with --order none, back to the original numbering. */
static int order_for(const stream_cfg_t *c, const graph_t *g, stream_plan_t *plan, gs_err_t *err)
{
    int64_t n = g->n;
    free(plan->bounds);
    plan->bounds = malloc(sizeof(int64_t) * (size_t)(plan->p + 1));
    if (!plan->bounds) return gs_fail(err, GS_EFAIL, "out of memory");
    int rc = order_vertices(g, c->order, plan->p, c->seed, plan->perm, plan->bounds, err);
    if (!rc && c->order == ORDER_NONE)
        for (int64_t v = 0; v < n; v++) plan->perm[g->orig_id[v]] = (int32_t)v;
    return rc;
}

int stream_cap_check(const stream_cfg_t *c, const program_t *prog, int64_t n, int64_t m, gs_err_t *err)
{
    uint64_t least = stream_working_set(prog, n, m, (int)(n < 4096 ? n : 4096), &c->knobs);
    if (c->device_mem && least > c->device_mem) {
        char cap[32], need[32];
        gs_format_bytes((double)c->device_mem, cap, sizeof cap), gs_format_bytes((double)least, need, sizeof need);
        return gs_fail(err, GS_EINPUT, "--device-mem %s is too small for this model: even %lld chunks need %s per device", cap,
                       (long long)(n < 4096 ? n : 4096), need);
    }
    return GS_OK;
}

int stream_plan_fits(const stream_cfg_t *c, const program_t *prog, const graph_t *g, const stream_plan_t *plan, gs_err_t *err)
{
    uint64_t need = need_of_bounds(c, prog, g, plan->perm, plan->p, plan->bounds);
    if (c->device_mem && need > c->device_mem)
        return gs_fail(err, GS_EINPUT, "--device-mem %.1f MiB is too small for the largest of these %d parts (needs %.1f MiB); "
                       "use more --chunks", c->device_mem / 1048576.0, plan->p, need / 1048576.0);
    return GS_OK;
}

/* --chunks auto: the fewest chunks that fit --device-mem, as many for
 * each device; and when their structures would not fit host memory (the
 * memory rule), the fewest more that do, since a column of the grid holds
 * m / P edges while it builds (amazon's shape at scale 2, simulated on one
 * 16 GB GPU: 9.1 GiB at one chunk, under 4 GiB at a few hundred). Past
 * the count that needs least, more need more: it stops there. */
static int auto_chunks(const stream_cfg_t *c, const program_t *prog, const graph_t *g, int k)
{
    int64_t n = g->n;
    int p = 1, step = c->devices > 1 ? c->devices : 1;
    if (c->device_mem)
        while (p < n && stream_working_set(prog, n, g->m, p, &c->knobs) > c->device_mem) p++;
    if (p % step) p += step - p % step; /* every device gets the same number of columns */
    double room = gs_mem_headroom(NULL), need = streamer_memory_bytes(n, g->m, p, k, !c->simulate);
    while (need > room && p + step <= n && p + step <= STREAMER_CHUNKS_SEARCH) {
        double more = streamer_memory_bytes(n, g->m, p + step, k, !c->simulate);
        if (more >= need) break;
        p += step, need = more;
    }
    return p > n ? (int)n : p;
}

int stream_plan(const stream_cfg_t *c, const program_t *prog, const graph_t *g, stream_plan_t *plan, gs_err_t *err)
{
    memset(plan, 0, sizeof *plan);
    int k = c->knobs.subchunks < 1 ? 1 : c->knobs.subchunks, p = c->chunks;
    int64_t n = g->n;
    int rc = stream_cap_check(c, prog, n, g->m, err);
    if (rc) return rc;
    if (p == 0) p = auto_chunks(c, prog, g, k);
    if (p < 1 || p > n) return gs_fail(err, GS_EINPUT, "--chunks %d must be in [1, %lld]", p, (long long)n);
    char what[128];
    snprintf(what, sizeof what, "%d chunks of %d sub-chunks (%s)", p, k,
             c->chunks ? "the grid's tables grow as P squared, a column's edges as 1 / P" : "auto: the fewest that fit, or need least");
    if ((rc = gs_mem_check(streamer_memory_bytes(n, g->m, p, k, !c->simulate), what, err))) return rc;
    plan->perm = malloc(sizeof(int32_t) * (size_t)n);
    if (!plan->perm) return gs_fail(err, GS_EFAIL, "out of memory");
    plan->p = p;
    rc = order_for(c, g, plan, err);
    uint64_t need = 0; /* each order's need counted once (a pass over the edges) */
    while (!rc) { /* an order with uneven parts (METIS) may need more chunks than equal ones */
        need = need_of_bounds(c, prog, g, plan->perm, plan->p, plan->bounds);
        if (c->chunks != 0 || !c->device_mem || plan->p >= n || need <= c->device_mem) break;
        plan->p += c->devices > 1 ? c->devices : 1;
        if (plan->p > n) plan->p = (int)n;
        rc = order_for(c, g, plan, err);
    }
    if (!rc && c->device_mem && need > c->device_mem)
        rc = gs_fail(err, GS_EINPUT, "--device-mem %llu is too small for %d chunks (needs %llu bytes); use --chunks auto",
                     (unsigned long long)c->device_mem, plan->p, (unsigned long long)need);
    int identity = 1;
    for (int64_t v = 0; !rc && v < n && identity; v++) identity = plan->perm[v] == v;
    if (!rc && identity) free(plan->perm), plan->perm = NULL;
    if (!rc) plan->need = need;
    if (rc) stream_plan_free(plan);
    return rc;
}

/* ---------------- opening ---------------- */

/* The backend's task hook: the streamer's profile, then the observer. */
static void task_hook(void *user, int dev, lane_t lane, chunk_tag_t tag, double t0, double t1, double bytes)
{
    stream_engine_t *se = user;
    streamer_task_hook(&se->streamer, dev, lane, tag, t0, t1, bytes);
    if (se->on_task) se->on_task(se->observer, dev, lane, tag, t0, t1, bytes);
}

int stream_engine_open(stream_engine_t *se, const stream_cfg_t *c, const graph_t *g, const stream_plan_t *plan,
                       const atomic_int *abort_flag, gs_err_t *err)
{
    memset(se, 0, sizeof *se);
    se->cfg = *c;
    se->real = c->real; /* real GPUs: no interconnect model, every device in one group */
    se->host = c->simulate ? kplace_sim() : kplace_host();
    se->on_task = c->on_task, se->observer = c->observer;
    int rc = se->real ? GS_OK : topology_load(c->topology, &se->topo, err);
    if (rc) return rc;
    int maxdev = se->real ? TOPO_MAX_DEV : se->topo.ndev;
    if (c->devices < 1 || c->devices > maxdev)
        return gs_fail(err, GS_EINPUT, "--devices %d: %s %s has %d device%s", c->devices,
                       se->real ? "the cuda backend" : "topology", se->real ? "" : se->topo.name, maxdev, maxdev > 1 ? "s" : "");
    se->virtual_clock = !se->real && c->clock == CLOCK_VIRTUAL;
    if (!se->real) { /* on the wall clock, auto scales the links to keep the modeled transfer/compute ratio on this host */
        se->host_flops = host_probe_flops();
        se->link_scale = c->link_scale > 0 ? c->link_scale : se->virtual_clock ? 1.0 : se->host_flops / se->topo.gpu_flops;
        topology_scale(&se->topo, se->link_scale);
    }
    int threads = gs_pool_threads();
    if (se->virtual_clock) vclock_init(&se->clock, &se->topo, c->ktime, se->host_flops / threads, threads, gs_mono_s());
    backend_cfg_t bc = {c->devices, c->device_mem, c->links_native || se->real ? NULL : &se->topo, task_hook, se,
                        se->virtual_clock ? &se->clock : NULL, se->topo.host_bw, c->simulate};
    se->bops = &backend_cpu;
    if (se->real) {
        const gs_cuda_t *cu = gs_cuda_get(err);
        if (!cu) return err->code;
        se->bops = cu->backend;
    }
    rc = se->bops->open(&se->backend, &bc, err);
    if (!rc) rc = streamer_init(&se->streamer, se->bops, se->backend, se->real ? NULL : &se->topo, g, plan->p, plan->bounds,
                                &c->knobs, c->edge_fields | (c->simulate ? 0 : SUB_KERNEL_ARRAYS), err);
    if (!rc) rc = streamer_probe(&se->streamer, se->virtual_clock ? &se->clock : NULL, err);
    if (rc) {
        stream_engine_close(se);
        return rc;
    }
    se->chunks = plan->p;
    se->streamer.apply_need = plan->need;
    se->streamer.abort_flag = abort_flag;
    return GS_OK;
}

void stream_engine_close(stream_engine_t *se)
{
    streamer_free(&se->streamer);
    if (se->backend) se->bops->close(se->backend);
    se->backend = NULL;
}

/* ---------------- the engine ---------------- */

static int se_gather(void *self, const gather_call_t *c, gs_err_t *err)
{
    return streamer_gather(&((stream_engine_t *)self)->streamer, c, err);
}

static int se_gather_bwd(void *self, const gather_call_t *c, gs_err_t *err)
{
    return streamer_gather_bwd(&((stream_engine_t *)self)->streamer, c, err);
}

/* The column order hands each accumulator to the ApplyVertex ops there,
 * the stage order after a swap home and back (stream_apply.c); the row
 * order's partial sums are not done until the last row. */
static int se_gather_apply(void *self, const gather_call_t *g, const apply_op_t *ops, int nops, int *ran, gs_err_t *err)
{
    stream_engine_t *se = self;
    *ran = -1;
    if (se->streamer.kn.stream_order == SO_ROW) return GS_OK;
    return streamer_gather_apply(&se->streamer, g, ops, nops, ran, err);
}

/* An edge tensor's product stays with the executor, on the host. */
static int se_matmul(void *self, const matmul_call_t *c, gs_err_t *err)
{
    stream_engine_t *se = self;
    if (!c->a_vertex) return exec_memory_ops.matmul(&se->host, c, err);
    return streamer_matmul(&se->streamer, c, err);
}

static int se_matmul_bwd(void *self, const matmul_call_t *c, gs_err_t *err)
{
    stream_engine_t *se = self;
    if (!c->a_vertex) return exec_memory_ops.matmul_bwd(&se->host, c, err);
    return streamer_matmul_bwd(&se->streamer, c, err);
}

/* The max and attention gathers and the plain programs' edge-tensor ops
 * (a scatter and its gather as one pass when the executor pairs them) on
 * the devices when the backend has their kernels (the CUDA plugin has
 * the max and attention gathers': there the others run on the host). */
static int se_graph_op(void *self, const graph_call_t *c, int backward, int *done, gs_err_t *err)
{
    stream_engine_t *se = self;
    const backend_ops_t *B = se->bops;
    backend_t *b = se->backend;
    int edge_kernels = B->has_kernel(b, KERN_CHUNK_SCATTER) && B->has_kernel(b, KERN_CHUNK_EDGE_GATHER);
    if (c->sag) return (*done = edge_kernels) ? streamer_sag(&se->streamer, c, backward, err) : GS_OK;
    switch (c->op) {
    case OP_GATHER_MAX:
        if ((*done = B->has_kernel(b, backward ? KERN_CHUNK_MAX_BWD : KERN_CHUNK_MAX)))
            return streamer_gather_max(&se->streamer, c, backward, err);
        break;
    case OP_GATHER_ATTN:
        if ((*done = B->has_kernel(b, KERN_CHUNK_ATTN))) return streamer_gather_attn(&se->streamer, c, backward, err);
        break;
    case OP_GATHER_FUSED:
        if ((*done = B->has_kernel(b, KERN_CHUNK_FUSED))) return streamer_gather_fused(&se->streamer, c, backward, err);
        break;
    case OP_SCATTER_SRC:
    case OP_SCATTER_DST:
    case OP_GATHER_EDGE:
        if ((*done = edge_kernels)) return streamer_edge_op(&se->streamer, c, backward, err);
        break;
    default: break;
    }
    return GS_OK;
}

static void se_host_wrote(void *self, const xtensor_t *t) { mp_run_host_wrote(&((stream_engine_t *)self)->streamer.mp, t); }

static const exec_engine_ops_t stream_ops = {
    .name = "stream",
    .gather = se_gather,
    .gather_bwd = se_gather_bwd,
    .matmul = se_matmul,
    .matmul_bwd = se_matmul_bwd,
    .graph_op = se_graph_op,
    .gather_apply = se_gather_apply,
    .host_wrote = se_host_wrote,
};

exec_engine_t stream_engine_exec(stream_engine_t *se) { return (exec_engine_t){&stream_ops, se}; }

vclock_t *stream_engine_clock(stream_engine_t *se) { return se->virtual_clock ? &se->clock : NULL; }

/* ---------------- epochs ---------------- */

void stream_engine_epoch_begin(stream_engine_t *se, int have_profile)
{
    se->bops->reset_stats(se->backend);
    memset(&se->streamer.ctr, 0, sizeof se->streamer.ctr);
    se->streamer.profiling = 1;
    se->streamer.have_profile = have_profile;
    memset(se->streamer.part_lane_s, 0, sizeof(double) * 3 * PROG_MAX_LAYERS * (size_t)se->streamer.p);
    se->planned_at_begin = se->streamer.mp.planned;
    mp_run_epoch_begin(&se->streamer.mp, se->streamer.kn.memplan);
}

void stream_engine_epoch_end(stream_engine_t *se, epoch_stats_t *st)
{
    se->bops->stats(se->backend, &se->last_stats);
    streamer_part_times(&se->streamer);
    for (int d = 0; d < se->streamer.ndev; d++) {
        st->h2d_bytes += se->last_stats.bytes[d][LANE_H2D];
        st->d2h_bytes += se->last_stats.bytes[d][LANE_D2H];
        st->d2d_bytes += se->last_stats.bytes[d][LANE_D2D];
        st->filter_ms += 1e3 * se->last_stats.filter_s[d];
        st->device_ms += 1e3 * se->last_stats.busy_s[d][LANE_COMPUTE];
        st->transfer_ms += 1e3 * (se->last_stats.busy_s[d][LANE_H2D] + se->last_stats.busy_s[d][LANE_D2H] +
                                  se->last_stats.busy_s[d][LANE_D2D]);
    }
    for (int l = 0; !se->real && l < se->topo.nlinks; l++)
        if (strncmp(se->topo.links[l].name, "host>", 5) == 0) st->uplink_bytes += se->last_stats.link_bytes[l];
    st->compute_ms = 1e3 * se->last_stats.compute_s, st->exposed_ms = 1e3 * se->last_stats.exposed_s;
    st->idle_ms = 1e3 * se->last_stats.idle_s;
    const stream_counters_t *k = &se->streamer.ctr;
    st->overlap = k->transfer_s > 0 ? k->hidden_s / k->transfer_s : 0;
    st->hidden_frac = k->gather_transfer_s > 0 ? k->gather_hidden_s / k->gather_transfer_s : 0;
    st->gather_h2d_bytes = k->gather_h2d_bytes;
    st->edge_h2d_bytes = k->edge_h2d_bytes;
    st->acc_kept_bytes = k->acc_kept_bytes;
    st->filtered_blocks = k->filtered_blocks, st->full_blocks = k->full_blocks;
    st->swapped_cols = k->swapped_cols, st->swap_saved_ms = 1e3 * k->swap_saved_s, st->swap_bound_ms = 1e3 * k->swap_bound_s;
    st->kept_bytes = se->streamer.mp.kept_bytes;
    se->steady = se->streamer.kn.memplan == MP_STREAM || (se->planned_at_begin && se->streamer.mp.planned);
    st->settling = !se->steady;
    /* the plan keeps tensors in what the streaming buffers and the kept edge chunks leave */
    int recorded = se->streamer.mp.recording;
    uint64_t held = (uint64_t)edge_store_held(&se->streamer.edges);
    mp_run_epoch_end(&se->streamer.mp, se->streamer.kn.memplan, se->streamer.region_bytes + held);
    streamer_apply_epoch_end(&se->streamer, recorded, held);
}

/* ---------------- facts ---------------- */

typedef struct {
    engine_fact_t *out;
    int n, max;
} facts_t;

static void fact(facts_t *f, const char *group, const char *name, double value, const char *text)
{
    if (f->n >= f->max) return;
    engine_fact_t *e = &f->out[f->n++];
    e->group = group, e->value = value, e->text = text;
    snprintf(e->name, sizeof e->name, "%s", name);
}

int stream_engine_facts(const stream_engine_t *se, double epoch_s, engine_fact_t *out, int max)
{
    const stream_cfg_t *c = &se->cfg;
    static const char *lanes[LANE__COUNT] = {"h2d", "d2h", "d2d", "compute"};
    facts_t f = {out, 0, max};
    const streamer_t *s = &se->streamer;
    const memplan_rt_t *mp = &s->mp;
    fact(&f, NULL, "backend", 0, se->bops->name);
    fact(&f, NULL, "emulated", !se->real, NULL);
    fact(&f, NULL, "clock", 0, se->real ? "real" : se->virtual_clock ? "virtual" : "wall");
    fact(&f, NULL, "kernel_time", 0, !se->virtual_clock ? "n/a" : se->clock.ktime == KTIME_ROOFLINE ? "roofline" : "measured");
    fact(&f, NULL, "topology", 0, se->real ? "real" : c->topology);
    fact(&f, NULL, "links", 0, se->real ? "real" : c->links_native ? "native" : "model");
    fact(&f, NULL, "link_scale", se->link_scale, NULL);
    fact(&f, NULL, "host_gflops", se->host_flops / 1e9, NULL);
    fact(&f, NULL, "chunks", se->chunks, NULL);
    fact(&f, NULL, "subchunks", s->k, NULL);
    fact(&f, NULL, "t_copy_bytes_per_s", s->t_copy, NULL);
    fact(&f, NULL, "t_trans_bytes_per_s", s->t_trans, NULL);
    fact(&f, NULL, "theta_threshold", s->theta_threshold, NULL);
    fact(&f, "memplan", "planned", mp->planned, NULL);
    fact(&f, "memplan", "budget_bytes", mp->planned ? (double)mp->plan.budget : 0, NULL);
    fact(&f, "memplan", "plan_h2d_bytes", mp->planned ? mp->plan.cost : 0, NULL);
    fact(&f, "memplan", "stream_h2d_bytes", mp->planned ? mp->plan.stream_cost : 0, NULL);
    fact(&f, "memplan", "steps", mp->trace.nstep, NULL);
    fact(&f, "memplan", "plan_ms", mp->plan_ms, NULL);
    for (int l = 0; !se->real && l < se->topo.nlinks; l++) fact(&f, "link_bytes", se->topo.links[l].name, se->last_stats.link_bytes[l], NULL);
    for (int d = 0; d < s->ndev; d++)
        for (int l = 0; l < LANE__COUNT; l++) {
            char name[32];
            snprintf(name, sizeof name, "d%d_%s", d, lanes[l]);
            fact(&f, "busy", name, epoch_s > 0 ? se->last_stats.busy_s[d][l] / epoch_s : 0.0, NULL);
        }
    return f.n;
}
