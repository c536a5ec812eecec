/* streamer.c - see streamer.h. */
#include "streamer.h"
#include "engine/machine/vclock.h"
#include "base/mono_clock.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t round64(size_t floats) { return (floats + 63) & ~(size_t)63; }

uint64_t streamer_pass_need(int64_t max_out, int64_t max_blk, int64_t out_cols, int64_t in_cols)
{
    size_t bytes = sizeof(float) * 2 * (round64((size_t)(max_out * out_cols)) + round64((size_t)(max_blk * in_cols)));
    return ((bytes + 255) & ~(size_t)255) + 256;
}

uint64_t streamer_working_set(int64_t n, int p, int k, int64_t cols)
{
    int64_t out_rows = (n + p - 1) / p, blk_rows = (n + (int64_t)p * k - 1) / ((int64_t)p * k) + 1;
    return streamer_pass_need(out_rows, blk_rows, cols, cols);
}

/* ---------------- chunk structures ---------------- */

double streamer_memory_bytes(int64_t n, int64_t m, int p, int k)
{
    double pp = (double)p * p, subs = pp * k, nd = (double)n, md = (double)m;
    double grid = pp * sizeof(chunk_t) + 2.0 * (nd * p + pp) * sizeof(int64_t) + md * 24.0; /* while building */
    /* per orientation: the sub-chunk table, its profile times, and per edge
     * its row, packed row, id and two weights, its listed row and offset */
    double orient = subs * (sizeof(sub_t) + 2 * sizeof(double)) + md * (4 + 4 + 8 + 8 + 4 + 8 + 4 + 4);
    return grid + 2 * orient;
}

static void release_buffers(streamer_t *s);

static int rounds_of(const streamer_t *s) { return (s->p + s->ndev - 1) / s->ndev; }

static void free_groups(streamer_t *s, orient_t *o)
{
    if (o->grp)
        for (size_t i = 0; i < (size_t)rounds_of(s) * (size_t)s->nblocks * (size_t)o->grp_n; i++) free(o->grp[i].rows);
    free(o->grp);
    o->grp = NULL;
    for (int i = 0; o->sub && i < s->p * s->nblocks; i++) free(o->sub[i].lidx_grp), o->sub[i].lidx_grp = NULL;
}

static void free_orient(streamer_t *s, orient_t *o)
{
    free_groups(s, o);
    if (o->sub)
        for (int i = 0; i < s->p * s->nblocks; i++) {
            sub_t *u = &o->sub[i];
            free(u->ptr), free(u->orow), free(u->lidx_full), free(u->lidx_sel), free(u->eid), free(u->rows);
            free(u->w[AGG_NORM]), free(u->w[AGG_MEAN]);
        }
    free(o->sub), free(o->t_copy), free(o->t_comp);
    memset(o, 0, sizeof *o);
}

/* Splits chunk (input interval a -> output interval o) into k subs by input block. */
static int build_subs(streamer_t *s, orient_t *ot, int o, int a, const int64_t *cptr, const int32_t *cin,
                      const int64_t *ceid, int32_t *mark)
{
    int64_t nout = s->bounds[o + 1] - s->bounds[o];
    for (int q = 0; q < s->k; q++) {
        int b = a * s->k + q;
        int64_t lo = s->blk_lo[b], hi = s->blk_lo[b + 1], nnz = 0, nrows = 0;
        sub_t *u = &ot->sub[(int64_t)o * s->nblocks + b];
        for (int64_t r = 0; r < nout; r++)
            for (int64_t e = cptr[r]; e < cptr[r + 1]; e++)
                if (cin[e] >= lo && cin[e] < hi) {
                    nnz++;
                    if (mark[cin[e] - lo] < 0) mark[cin[e] - lo] = 0, nrows++;
                }
        u->nnz = nnz;
        if (nnz == 0) continue;
        u->ptr = malloc(sizeof(int64_t) * (size_t)(nout + 1));
        u->orow = malloc(sizeof(int32_t) * (size_t)nout);
        u->lidx_full = malloc(sizeof(int32_t) * (size_t)nnz);
        u->lidx_sel = malloc(sizeof(int32_t) * (size_t)nnz);
        u->eid = malloc(sizeof(int64_t) * (size_t)nnz);
        u->rows = malloc(sizeof(int32_t) * (size_t)nrows);
        u->w[AGG_NORM] = malloc(sizeof(float) * (size_t)nnz);
        u->w[AGG_MEAN] = malloc(sizeof(float) * (size_t)nnz);
        if (!u->ptr || !u->orow || !u->lidx_full || !u->lidx_sel || !u->eid || !u->rows || !u->w[AGG_NORM] || !u->w[AGG_MEAN]) return -1;
        u->nrows = 0;
        for (int64_t v = lo; v < hi; v++)
            if (mark[v - lo] >= 0) mark[v - lo] = (int32_t)u->nrows, u->rows[u->nrows++] = (int32_t)v;
        int64_t w = 0;
        u->ptr[0] = 0;
        u->nout = 0;
        for (int64_t r = 0; r < nout; r++) {
            int64_t w0 = w;
            for (int64_t e = cptr[r]; e < cptr[r + 1]; e++)
                if (cin[e] >= lo && cin[e] < hi) {
                    u->lidx_full[w] = (int32_t)(cin[e] - lo);
                    u->lidx_sel[w] = mark[cin[e] - lo];
                    u->eid[w] = ceid[e];
                    u->w[AGG_NORM][w] = s->g->w_norm[ceid[e]];
                    u->w[AGG_MEAN][w] = s->g->w_mean[ceid[e]];
                    w++;
                }
            if (w > w0) u->orow[u->nout] = (int32_t)r, u->ptr[++u->nout] = w;
        }
        for (int64_t v = lo; v < hi; v++) mark[v - lo] = -1;
    }
    return 0;
}

int streamer_init(streamer_t *s, const backend_ops_t *ops, backend_t *b, const topology_t *topo, const graph_t *g,
                  int p, const int64_t *bounds, const stream_knobs_t *kn, gs_err_t *err)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->iv_lock, NULL);
    s->ops = ops, s->b = b, s->ndev = ops->ndev(b), s->topo = topo, s->g = g, s->kn = *kn;
    s->p = p, s->k = kn->subchunks < 1 ? 1 : kn->subchunks, s->nblocks = p * s->k;
    s->theta_threshold = 0.5;
    mp_run_init(&s->mp, (mp_devices_t){ops, b, s->ndev, g->n});
    chunk_grid_t cg;
    int rc = grid_build(&cg, g, p, bounds, err);
    if (rc) return rc;
    s->bounds = malloc(sizeof(int64_t) * (size_t)(p + 1));
    s->blk_lo = malloc(sizeof(int64_t) * (size_t)(s->nblocks + 1));
    int64_t maxlen = 0;
    for (int i = 0; i < p; i++) maxlen = bounds[i + 1] - bounds[i] > maxlen ? bounds[i + 1] - bounds[i] : maxlen;
    int32_t *mark = malloc(sizeof(int32_t) * (size_t)(maxlen + 1));
    size_t nsub = (size_t)p * (size_t)s->nblocks;
    s->fwd.sub = calloc(nsub, sizeof(sub_t)), s->bwd.sub = calloc(nsub, sizeof(sub_t));
    s->fwd.t_copy = calloc(nsub, sizeof(double)), s->fwd.t_comp = calloc(nsub, sizeof(double));
    s->bwd.t_copy = calloc(nsub, sizeof(double)), s->bwd.t_comp = calloc(nsub, sizeof(double));
    s->part_s = calloc((size_t)PROG_MAX_LAYERS * (size_t)p, sizeof(double));
    if (!s->part_s || !s->bounds || !s->blk_lo || !mark || !s->fwd.sub || !s->bwd.sub || !s->fwd.t_copy || !s->fwd.t_comp ||
        !s->bwd.t_copy || !s->bwd.t_comp)
        goto oom;
    memcpy(s->bounds, bounds, sizeof(int64_t) * (size_t)(p + 1));
    for (int i = 0; i < p; i++)
        for (int q = 0; q < s->k; q++) s->blk_lo[i * s->k + q] = bounds[i] + (bounds[i + 1] - bounds[i]) * q / s->k;
    s->blk_lo[s->nblocks] = g->n;
    for (int64_t v = 0; v <= maxlen; v++) mark[v] = -1;
    for (int o = 0; o < p; o++)
        for (int a = 0; a < p; a++) {
            const chunk_t *cf = &cg.chunk[a * p + o], *cb = &cg.chunk[o * p + a];
            if (build_subs(s, &s->fwd, o, a, cf->csc_ptr, cf->csc_src, cf->csc_eid, mark) ||
                build_subs(s, &s->bwd, o, a, cb->csr_ptr, cb->csr_dst, cb->csr_eid, mark))
                goto oom;
        }
    free(mark);
    grid_free(&cg);
    return GS_OK;
oom:
    free(mark);
    grid_free(&cg);
    streamer_free(s);
    return gs_fail(err, GS_EFAIL, "out of memory building %d x %d chunks with %d sub-chunks", p, p, kn->subchunks);
}

void streamer_free(streamer_t *s)
{
    if (!s->g) return;
    mp_run_free(&s->mp);
    release_buffers(s);
    free_orient(s, &s->fwd);
    free_orient(s, &s->bwd);
    free(s->bounds), free(s->blk_lo), free(s->part_s);
    for (int d = 0; d < TOPO_MAX_DEV; d++)
        for (int l = 0; l < 2; l++) free(s->iv_t0[d][l]), free(s->iv_t1[d][l]);
    pthread_mutex_destroy(&s->iv_lock);
    memset(s, 0, sizeof *s);
}

/* ---------------- probing and profiling ---------------- */

int streamer_probe(streamer_t *s, const vclock_t *clock, gs_err_t *err)
{
    if (clock) {
        s->t_copy = clock->host_bw / 2; /* a memcpy reads and writes */
        s->t_trans = clock->host_bw;
        for (int k = 0; s->topo && k < s->topo->h2d[0].nlinks; k++)
            s->t_trans = fmin(s->t_trans, s->topo->links[s->topo->h2d[0].link[k]].bw);
        s->theta_threshold = s->t_copy / (s->t_copy + s->t_trans);
        return GS_OK;
    }
    size_t host_bytes = 4u << 20;
    char *a = malloc(host_bytes), *c = malloc(host_bytes);
    if (!a || !c) {
        free(a), free(c);
        return gs_fail(err, GS_EFAIL, "out of memory probing copy rates");
    }
    memset(a, 1, host_bytes), memset(c, 0, host_bytes);
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = gs_mono_s();
        memcpy(c, a, host_bytes);
        best = fmin(best, gs_mono_s() - t0);
    }
    s->t_copy = (double)host_bytes / best;
    size_t dev_bytes = 4u << 20;
    uint64_t cap = s->ops->capacity(s->b, 0);
    if (cap && dev_bytes > cap / 4) dev_bytes = (size_t)(cap / 4);
    void *d = s->ops->alloc(s->b, 0, dev_bytes);
    if (!d) {
        free(a), free(c);
        return gs_fail(err, GS_EINPUT, "device memory too small to probe the H2D rate");
    }
    double t0 = gs_mono_s();
    s->ops->copy(s->b, 0, LANE_H2D, -1, d, a, dev_bytes, (chunk_tag_t){-1, PHASE_FWD, -1, -1, -1});
    s->ops->sync(s->b);
    s->t_trans = (double)dev_bytes / (gs_mono_s() - t0);
    s->ops->free(s->b, 0, d, dev_bytes);
    s->ops->reset_stats(s->b);
    free(a), free(c);
    s->theta_threshold = s->t_copy / (s->t_copy + s->t_trans);
    return GS_OK;
}

static void iv_push(streamer_t *s, int dev, int kind, double t0, double t1)
{
    int n = s->iv_n[dev][kind];
    if (n == s->iv_cap[dev][kind]) {
        int cap = n ? n * 2 : 256;
        double *a = realloc(s->iv_t0[dev][kind], sizeof(double) * (size_t)cap);
        if (a) s->iv_t0[dev][kind] = a;
        double *b = realloc(s->iv_t1[dev][kind], sizeof(double) * (size_t)cap);
        if (b) s->iv_t1[dev][kind] = b;
        if (!a || !b) return; /* drop the sample: overlap is a statistic */
        s->iv_cap[dev][kind] = cap;
    }
    s->iv_t0[dev][kind][n] = t0;
    s->iv_t1[dev][kind][n] = t1;
    s->iv_n[dev][kind] = n + 1;
}

void streamer_task_hook(void *user, int dev, lane_t lane, chunk_tag_t tag, double t0, double t1, double bytes)
{
    streamer_t *s = user;
    (void)bytes;
    pthread_mutex_lock(&s->iv_lock);
    iv_push(s, dev, lane == LANE_COMPUTE ? 1 : 0, t0, t1);
    if (tag.row >= 0 && tag.col >= 0 && s->profiling) {
        int fwd = tag.phase == PHASE_FWD;
        orient_t *o = fwd ? &s->fwd : &s->bwd;
        int out = fwd ? tag.col : tag.row, b = (fwd ? tag.row : tag.col) * s->k + tag.sub;
        size_t i = (size_t)out * (size_t)s->nblocks + (size_t)b;
        if (lane == LANE_COMPUTE) o->t_comp[i] = t1 - t0;
        else if (lane == LANE_H2D || lane == LANE_D2D) o->t_copy[i] = t1 - t0;
    }
    if (tag.row >= 0 && tag.col >= 0 && lane == LANE_COMPUTE && tag.layer >= 0 && tag.layer < PROG_MAX_LAYERS) {
        int out = tag.phase == PHASE_FWD ? tag.col : tag.row;
        if (out < s->p) s->part_s[(size_t)tag.layer * (size_t)s->p + (size_t)out] += t1 - t0;
    }
    pthread_mutex_unlock(&s->iv_lock);
}

static int cmp_iv(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

void streamer_fold_overlap(streamer_t *s, int gathers)
{
    pthread_mutex_lock(&s->iv_lock);
    for (int d = 0; d < s->ndev; d++) {
        int nc = s->iv_n[d][1];
        double *m = malloc(sizeof(double) * 2 * (size_t)(nc + 1));
        if (!m) continue;
        for (int i = 0; i < nc; i++) m[2 * i] = s->iv_t0[d][1][i], m[2 * i + 1] = s->iv_t1[d][1][i];
        qsort(m, (size_t)nc, 2 * sizeof(double), cmp_iv);
        int w = 0; /* merge compute intervals into a sorted union */
        for (int i = 0; i < nc; i++) {
            if (w > 0 && m[2 * i] <= m[2 * (w - 1) + 1]) {
                m[2 * (w - 1) + 1] = fmax(m[2 * (w - 1) + 1], m[2 * i + 1]);
            } else {
                m[2 * w] = m[2 * i], m[2 * w + 1] = m[2 * i + 1];
                w++;
            }
        }
        for (int i = 0; i < s->iv_n[d][0]; i++) {
            double a = s->iv_t0[d][0][i], b = s->iv_t1[d][0][i], hidden = 0;
            for (int j = 0; j < w; j++) {
                double lo = fmax(a, m[2 * j]), hi = fmin(b, m[2 * j + 1]);
                if (hi > lo) hidden += hi - lo;
            }
            s->ctr.transfer_s += b - a, s->ctr.hidden_s += hidden;
            if (gathers) s->ctr.gather_transfer_s += b - a, s->ctr.gather_hidden_s += hidden;
        }
        free(m);
        s->iv_n[d][0] = s->iv_n[d][1] = 0;
    }
    pthread_mutex_unlock(&s->iv_lock);
}

/* ---------------- block order (swap heuristic) ---------------- */

/* Makespan of a copy-then-compute pipeline with `slots` device buffers. */
static double simulate(const int *order, int n, const double *tc, const double *tk, int slots)
{
    double copy_end = 0, comp_end = 0, *ce = malloc(sizeof(double) * (size_t)(n + 1));
    if (!ce) return INFINITY;
    for (int t = 0; t < n; t++) {
        double start = copy_end;
        if (t >= slots) start = fmax(start, ce[t - slots]);
        copy_end = start + tc[order[t]];
        comp_end = fmax(copy_end, comp_end) + tk[order[t]];
        ce[t] = comp_end;
    }
    free(ce);
    return comp_end;
}

typedef struct {
    double key;
    int b;
} keyed_block_t;

static int cmp_kb(const void *a, const void *b)
{
    const keyed_block_t *x = a, *y = b;
    if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
    return x->b - y->b;
}

/* Johnson's rule for the two-stage flow shop (copy, compute), kept only
 * when the simulated schedule beats the natural order. Returns the
 * simulated seconds it saves (0: natural order kept). */
static double swap_order(const streamer_t *s, const orient_t *o, int out, int *order)
{
    double saved = 0;
    int nb = s->nblocks, n = 0;
    const double *tc = o->t_copy + (size_t)out * nb, *tk = o->t_comp + (size_t)out * nb;
    keyed_block_t *first = malloc(sizeof *first * (size_t)nb), *second = malloc(sizeof *second * (size_t)nb);
    int *natural = malloc(sizeof(int) * (size_t)nb), *cand = malloc(sizeof(int) * (size_t)nb);
    for (int b = 0; b < nb; b++) order[b] = b;
    if (!first || !second || !natural || !cand) goto done;
    int n1 = 0, n2 = 0;
    for (int b = 0; b < nb; b++) {
        if (o->sub[(size_t)out * nb + b].nnz == 0) continue;
        natural[n++] = b;
        if (tc[b] < tk[b]) first[n1++] = (keyed_block_t){tc[b], b};
        else second[n2++] = (keyed_block_t){-tk[b], b};
    }
    qsort(first, (size_t)n1, sizeof *first, cmp_kb);
    qsort(second, (size_t)n2, sizeof *second, cmp_kb);
    for (int i = 0; i < n1; i++) cand[i] = first[i].b;
    for (int i = 0; i < n2; i++) cand[n1 + i] = second[i].b;
    int slots = s->kn.pipeline ? 2 : 1;
    double t_cand = simulate(cand, n, tc, tk, slots), t_natural = simulate(natural, n, tc, tk, slots);
    if (t_cand < t_natural) {
        saved = t_natural - t_cand;
        int w = 0;
        for (int i = 0; i < n; i++) order[w++] = cand[i];
        for (int b = 0; b < nb; b++) /* empty blocks after, they are skipped */
            if (o->sub[(size_t)out * nb + b].nnz == 0) order[w++] = b;
    }
done:
    free(first), free(second), free(natural), free(cand);
    return saved;
}

/* ---------------- one streamed pass ---------------- */

/* A gather as a pass: in is read by source row, out accumulates per output interval. */
typedef struct {
    agg_weight_t agg;
    typed_mode_t typed;
    xtensor_t in, out;
    int64_t f;
    int acc, layer;
    phase_t phase;
} pass_t;

static int use_filter(const streamer_t *s, int64_t used_rows, int64_t block_rows)
{
    if (s->kn.selective == SEL_ON) return 1;
    if (s->kn.selective == SEL_OFF) return 0;
    return (double)used_rows / (double)block_rows < s->theta_threshold;
}

/* The devices a block is passed through, first loader first (chain/ring). */
static int block_sequences(const streamer_t *s, int b, int seq[][TOPO_MAX_DEV], int *len)
{
    int nseq = 0;
    if (s->kn.multidev == MD_RING) {
        len[0] = s->ndev;
        for (int q = 0; q < s->ndev; q++) seq[0][q] = (b + q) % s->ndev;
        return 1;
    }
    int seen[TOPO_MAX_DEV] = {0};
    for (int d = 0; d < s->ndev; d++) {
        if (seen[d]) continue;
        len[nseq] = 0;
        for (int e = d; e < s->ndev; e++)
            if (!seen[e] && (!s->topo || s->topo->group[e] == s->topo->group[d])) seq[nseq][len[nseq]++] = e, seen[e] = 1;
        nseq++;
    }
    return nseq;
}

static void release_buffers(streamer_t *s)
{
    for (int d = 0; d < s->ndev; d++) {
        s->ops->free(s->b, d, s->region[d], s->region_bytes);
        s->region[d] = NULL;
    }
    s->region_bytes = 0;
}

void streamer_set_knobs(streamer_t *s, const stream_knobs_t *kn)
{
    if (memcmp(&s->kn, kn, sizeof *kn) != 0) mp_run_reset(&s->mp);
    s->kn = *kn;
}

int streamer_reserve(streamer_t *s, size_t bytes, gs_err_t *err)
{
    bytes = (bytes + 255) & ~(size_t)255;
    if (s->region_bytes >= bytes && s->region[0]) return GS_OK;
    release_buffers(s);
    s->region_bytes = bytes;
    for (int d = 0; d < s->ndev; d++) {
        s->region[d] = s->ops->alloc(s->b, d, bytes);
        if (!s->region[d] && mp_run_holding(&s->mp)) { /* the streaming buffers come first: give up the kept tensors */
            mp_run_reset(&s->mp);
            s->region[d] = s->ops->alloc(s->b, d, bytes);
        }
        if (!s->region[d]) {
            release_buffers(s);
            return gs_fail(err, GS_EINPUT,
                           "device %d: %.1f MiB of device memory is too small for %d chunks of this width "
                           "(needs %.1f MiB); raise --device-mem or --chunks",
                           d, s->ops->capacity(s->b, d) / 1048576.0, s->p, bytes / 1048576.0);
        }
    }
    return GS_OK;
}

int64_t streamer_max_block(const streamer_t *s)
{
    int64_t m = 1;
    for (int i = 0; i < s->nblocks; i++) m = s->blk_lo[i + 1] - s->blk_lo[i] > m ? s->blk_lo[i + 1] - s->blk_lo[i] : m;
    return m;
}

/* The gather kernel of one sub-chunk: its edges from the block in `in`
 * (rows as lidx numbers them: the whole block, or packed rows when
 * filtered) into the column's accumulator. */
static kernel_call_t chunk_call(const streamer_t *s, const pass_t *ps, const sub_t *u, const int32_t *lidx,
                                const float *in, float *acc)
{
    return (kernel_call_t){.id = KERN_CHUNK_GATHER, .typed = ps->typed, .ptr = u->ptr, .orow = u->orow,
                           .lidx = lidx, .eid = u->eid, .w = u->w[ps->agg],
                           .etype = s->g->etype, .nd = u->nout, .f = ps->f, .in_cols = ps->in.cols,
                           .out_cols = ps->out.cols, .in = in, .out = acc, .flops = 2.0 * (double)u->nnz * ps->f};
}

/* A pass in progress: its buffers, the columns of the current round (one
 * per device), and the events that order reuse of the buffer slots. */
typedef struct {
    const pass_t *ps;
    orient_t *o;
    int slots, naive, nb, nd;
    float *accs[TOPO_MAX_DEV][2], *buf[TOPO_MAX_DEV][2];
    int ev_d2h[TOPO_MAX_DEV][2], ev_comp[TOPO_MAX_DEV][2], ev_fwd[TOPO_MAX_DEV][2], ev_ready[TOPO_MAX_DEV][2];
    int *order;                /* [device][t]: the block processed t-th in the device's column */
    int col[TOPO_MAX_DEV], round, ra; /* this round's columns (-1: none), the round, its accumulator slot */
    float *acc[TOPO_MAX_DEV];
} pass_run_t;

/* Reserves the devices' regions and carves two accumulators (a column's
 * D2H overlaps the next column's compute) and two block buffers. */
static int pass_setup(streamer_t *s, const pass_t *ps, orient_t *o, pass_run_t *pr, gs_err_t *err)
{
    memset(pr, 0, sizeof *pr);
    pr->ps = ps, pr->o = o, pr->slots = s->kn.pipeline ? 2 : 1, pr->nb = s->nblocks, pr->nd = s->ndev;
    pr->naive = s->kn.multidev == MD_NAIVE || s->ndev == 1;
    int64_t max_out = 0;
    for (int i = 0; i < s->p; i++) max_out = fmax(max_out, s->bounds[i + 1] - s->bounds[i]);
    size_t acc_floats = round64((size_t)(max_out * ps->out.cols)), buf_floats = round64((size_t)(streamer_max_block(s) * ps->in.cols));
    for (int d = 0; d < TOPO_MAX_DEV; d++)
        for (int q = 0; q < 2; q++) pr->ev_d2h[d][q] = pr->ev_comp[d][q] = pr->ev_fwd[d][q] = pr->ev_ready[d][q] = -1;
    int rc = streamer_reserve(s, sizeof(float) * 2 * (acc_floats + buf_floats), err);
    if (rc) return rc;
    for (int d = 0; d < s->ndev; d++)
        for (int q = 0; q < 2; q++) {
            pr->accs[d][q] = (float *)s->region[d] + q * acc_floats;
            pr->buf[d][q] = (float *)s->region[d] + 2 * acc_floats + q * buf_floats;
        }
    pr->order = malloc(sizeof(int) * (size_t)pr->nb * TOPO_MAX_DEV);
    return pr->order ? GS_OK : gs_fail(err, GS_EFAIL, "out of memory");
}

/* Starts device d's column of round r: its accumulator (the output's
 * device copy when the memory plan keeps it) zeroed or loaded, and the
 * order of its blocks. */
static void column_begin(streamer_t *s, pass_run_t *pr, int r, int d)
{
    const pass_t *ps = pr->ps;
    const backend_ops_t *ops = s->ops;
    int ra = pr->ra, c = r * pr->nd + d < s->p ? r * pr->nd + d : -1;
    pr->col[d] = c;
    if (c < 0) return;
    int64_t rows = s->bounds[c + 1] - s->bounds[c];
    float *kept = mp_run_slot(&s->mp, ps->out.key, d);
    pr->acc[d] = kept ? kept + s->bounds[c] * ps->out.cols : pr->accs[d][ra];
    chunk_tag_t tag = {(int16_t)ps->layer, (int8_t)ps->phase, -1, c, -1};
    if (ps->acc) {
        double copied;
        if (pr->ev_d2h[d][ra] >= 0) ops->wait(s->b, d, LANE_H2D, pr->ev_d2h[d][ra]);
        mp_run_load(&s->mp, d, &ps->out, s->bounds[c], rows, pr->acc[d], tag, &copied);
        s->ctr.gather_h2d_bytes += copied;
        ops->wait(s->b, d, LANE_COMPUTE, ops->record(s->b, d, LANE_H2D));
    } else {
        if (pr->ev_d2h[d][ra] >= 0) ops->wait(s->b, d, LANE_COMPUTE, pr->ev_d2h[d][ra]);
        kernel_call_t z = {.id = KERN_ZERO, .nd = rows, .out_cols = ps->out.cols, .out = pr->acc[d]};
        ops->launch(s->b, d, &z, tag);
    }
    int *ord = pr->order + (size_t)d * pr->nb;
    double saved = pr->naive && s->kn.swap && s->have_profile ? swap_order(s, pr->o, c, ord) : 0;
    if (saved > 0) s->ctr.swapped_cols++, s->ctr.swap_saved_s += saved;
    else
        for (int t = 0; t < pr->nb; t++) ord[t] = t;
}

/* The chunk coordinates of block blk in column c: (row, col) is (source
 * interval, destination interval) in the forward pass. */
static chunk_tag_t block_tag(const streamer_t *s, const pass_t *ps, int blk, int c)
{
    chunk_tag_t tag = {(int16_t)ps->layer, (int8_t)ps->phase, blk / s->k, c, (int32_t)(blk % s->k)};
    if (ps->phase == PHASE_BWD) tag.row = c, tag.col = blk / s->k;
    return tag;
}

/* Step t of a naive round: every device loads its t-th block from the
 * host (filtered when selective scheduling says so) and gathers it. */
static void naive_step(streamer_t *s, pass_run_t *pr, int t)
{
    const pass_t *ps = pr->ps;
    const backend_ops_t *ops = s->ops;
    int slot = t % pr->slots, nb = pr->nb;
    for (int d = 0; d < pr->nd; d++) {
        if (pr->col[d] < 0) continue;
        int blk = pr->order[(size_t)d * nb + t];
        const sub_t *u = &pr->o->sub[(size_t)pr->col[d] * nb + blk];
        if (u->nnz == 0) continue;
        int64_t lo = s->blk_lo[blk], rows = s->blk_lo[blk + 1] - lo;
        chunk_tag_t tag = block_tag(s, ps, blk, pr->col[d]);
        if (pr->ev_comp[d][slot] >= 0) ops->wait(s->b, d, LANE_H2D, pr->ev_comp[d][slot]);
        /* a kept input is brought in whole, for the columns after this one */
        int filt = !mp_run_slot(&s->mp, ps->in.key, d) && use_filter(s, u->nrows, rows);
        const float *src = pr->buf[d][slot];
        if (filt) {
            double bytes = sizeof(float) * (double)(u->nrows * ps->in.cols);
            ops->copy_rows(s->b, d, pr->buf[d][slot], ps->in.data, sizeof(float) * (size_t)ps->in.cols, u->rows, u->nrows, tag);
            s->ctr.filtered_blocks++;
            s->ctr.gather_h2d_bytes += bytes;
            mp_run_count(&s->mp, ps->in.key, bytes);
        } else {
            double copied;
            src = mp_run_load(&s->mp, d, &ps->in, lo, rows, pr->buf[d][slot], tag, &copied);
            s->ctr.full_blocks++;
            s->ctr.gather_h2d_bytes += copied;
        }
        ops->wait(s->b, d, LANE_COMPUTE, ops->record(s->b, d, LANE_H2D));
        kernel_call_t kc = chunk_call(s, ps, u, filt ? u->lidx_sel : u->lidx_full, src, pr->acc[d]);
        ops->launch(s->b, d, &kc, tag);
        pr->ev_comp[d][slot] = ops->record(s->b, d, LANE_COMPUTE);
    }
}

/* Each device's group: the devices a block is passed along (chain: one
 * switch's; ring: all). Returns the number of groups. */
static int device_groups(const streamer_t *s, int *gid)
{
    int seq[TOPO_MAX_DEV][TOPO_MAX_DEV], len[TOPO_MAX_DEV];
    int n = block_sequences(s, 0, seq, len);
    for (int q = 0; q < n; q++)
        for (int i = 0; i < len[q]; i++) gid[seq[q][i]] = q;
    return n;
}

/* The rows of block t that group g's columns of round r use, and each
 * such column's edges renumbered into them (lidx_grp). */
static int group_rows(streamer_t *s, orient_t *o, const int *gid, int r, int t, int g, int32_t *mark)
{
    int nb = s->nblocks;
    int64_t lo = s->blk_lo[t], rows = s->blk_lo[t + 1] - lo, n = 0;
    rowset_t *rs = &o->grp[((size_t)r * nb + t) * o->grp_n + g];
    for (int d = 0; d < s->ndev; d++) {
        int c = r * s->ndev + d;
        const sub_t *u = c < s->p && gid[d] == g ? &o->sub[(size_t)c * nb + t] : NULL;
        for (int64_t i = 0; u && i < u->nrows; i++)
            if (mark[u->rows[i] - lo] < 0) mark[u->rows[i] - lo] = 0, n++;
    }
    if (n == 0) return 0;
    rs->rows = malloc(sizeof(int32_t) * (size_t)n);
    if (!rs->rows) return -1;
    for (int64_t v = 0; v < rows; v++)
        if (mark[v] >= 0) mark[v] = (int32_t)rs->nrows, rs->rows[rs->nrows++] = (int32_t)(lo + v);
    int rc = 0;
    for (int d = 0; d < s->ndev && !rc; d++) {
        int c = r * s->ndev + d;
        sub_t *u = c < s->p && gid[d] == g ? &o->sub[(size_t)c * nb + t] : NULL;
        if (!u || u->nnz == 0) continue;
        u->lidx_grp = malloc(sizeof(int32_t) * (size_t)u->nnz);
        if (!u->lidx_grp) rc = -1;
        for (int64_t e = 0; !rc && e < u->nnz; e++) u->lidx_grp[e] = mark[u->lidx_full[e]];
    }
    for (int64_t i = 0; i < rs->nrows; i++) mark[rs->rows[i] - lo] = -1;
    return rc;
}

/* Builds the shared rows of every (round, block, group) for the current
 * multidev mode, when selective scheduling may filter chained blocks. */
static int ensure_groups(streamer_t *s, orient_t *o, gs_err_t *err)
{
    if (s->kn.selective == SEL_OFF || (o->grp && o->grp_mode == (int)s->kn.multidev)) return GS_OK;
    free_groups(s, o);
    int gid[TOPO_MAX_DEV], ng = device_groups(s, gid), rounds = rounds_of(s), rc = 0;
    int32_t *mark = malloc(sizeof(int32_t) * (size_t)streamer_max_block(s));
    o->grp = calloc((size_t)rounds * (size_t)s->nblocks * (size_t)ng, sizeof(rowset_t));
    o->grp_n = ng, o->grp_mode = (int)s->kn.multidev;
    if (!mark || !o->grp) rc = -1;
    for (int64_t v = 0; !rc && v < streamer_max_block(s); v++) mark[v] = -1;
    for (int r = 0; !rc && r < rounds; r++)
        for (int t = 0; !rc && t < s->nblocks; t++)
            for (int g = 0; !rc && g < ng; g++) rc = group_rows(s, o, gid, r, t, g, mark);
    free(mark);
    if (!rc) return GS_OK;
    free_groups(s, o);
    return gs_fail(err, GS_EFAIL, "out of memory sharing %d chunks' rows among device groups", s->p);
}

/* Step t of a chain or ring round: block t enters each sequence of devices
 * once from the host (filtered to the rows the sequence's columns use,
 * when selective scheduling says so) and is passed down it device to
 * device, as far as the last device whose column uses it. */
static void chained_step(streamer_t *s, pass_run_t *pr, int t)
{
    const pass_t *ps = pr->ps;
    const backend_ops_t *ops = s->ops;
    const orient_t *o = pr->o;
    int seq[TOPO_MAX_DEV][TOPO_MAX_DEV], len[TOPO_MAX_DEV], slot = t % pr->slots, nb = pr->nb;
    int nseq = block_sequences(s, t, seq, len);
    int64_t lo = s->blk_lo[t], rows = s->blk_lo[t + 1] - lo;
    for (int qs = 0; qs < nseq; qs++) {
        int last = -1;
        for (int q = 0; q < len[qs]; q++) {
            int d = seq[qs][q];
            if (pr->col[d] >= 0 && o->sub[(size_t)pr->col[d] * nb + t].nnz > 0) last = q;
        }
        const rowset_t *rs = o->grp ? &o->grp[((size_t)pr->round * nb + t) * o->grp_n + qs] : NULL;
        int filt = rs && rs->nrows > 0 && use_filter(s, rs->nrows, rows);
        size_t bytes = sizeof(float) * (size_t)((filt ? rs->nrows : rows) * ps->in.cols);
        for (int q = 0; q <= last; q++) {
            int d = seq[qs][q];
            lane_t lane = q == 0 ? LANE_H2D : LANE_D2D;
            chunk_tag_t tag = block_tag(s, ps, t, pr->col[d]);
            if (pr->ev_comp[d][slot] >= 0) ops->wait(s->b, d, lane, pr->ev_comp[d][slot]);
            if (pr->ev_fwd[d][slot] >= 0) ops->wait(s->b, d, lane, pr->ev_fwd[d][slot]);
            if (q == 0) {
                if (filt)
                    ops->copy_rows(s->b, d, pr->buf[d][slot], ps->in.data, sizeof(float) * (size_t)ps->in.cols, rs->rows,
                                   rs->nrows, tag);
                else ops->copy(s->b, d, LANE_H2D, -1, pr->buf[d][slot], ps->in.data + lo * ps->in.cols, bytes, tag);
                s->ctr.gather_h2d_bytes += (double)bytes;
                mp_run_count(&s->mp, ps->in.key, (double)bytes);
            } else {
                int prev = seq[qs][q - 1];
                ops->wait(s->b, d, LANE_D2D, pr->ev_ready[prev][slot]);
                ops->copy(s->b, d, LANE_D2D, prev, pr->buf[d][slot], pr->buf[prev][slot], bytes, tag);
                pr->ev_fwd[prev][slot] = ops->record(s->b, d, LANE_D2D);
            }
            pr->ev_ready[d][slot] = ops->record(s->b, d, lane);
            if (filt) s->ctr.filtered_blocks++;
            else s->ctr.full_blocks++;
            const sub_t *u = pr->col[d] >= 0 ? &o->sub[(size_t)pr->col[d] * nb + t] : NULL;
            if (!u || u->nnz == 0) continue;
            ops->wait(s->b, d, LANE_COMPUTE, pr->ev_ready[d][slot]);
            kernel_call_t kc = chunk_call(s, ps, u, filt ? u->lidx_grp : u->lidx_full, pr->buf[d][slot], pr->acc[d]);
            ops->launch(s->b, d, &kc, tag);
            pr->ev_comp[d][slot] = ops->record(s->b, d, LANE_COMPUTE);
        }
    }
}

/* Ends device d's column: its accumulator goes back to the host. */
static void column_end(streamer_t *s, pass_run_t *pr, int d)
{
    const pass_t *ps = pr->ps;
    const backend_ops_t *ops = s->ops;
    int c = pr->col[d], ra = pr->ra;
    if (c < 0) return;
    int64_t rows = s->bounds[c + 1] - s->bounds[c];
    ops->wait(s->b, d, LANE_D2H, ops->record(s->b, d, LANE_COMPUTE));
    ops->copy(s->b, d, LANE_D2H, -1, ps->out.data + s->bounds[c] * ps->out.cols, pr->acc[d],
              sizeof(float) * (size_t)(rows * ps->out.cols), (chunk_tag_t){(int16_t)ps->layer, (int8_t)ps->phase, -1, c, -1});
    pr->ev_d2h[d][ra] = ops->record(s->b, d, LANE_D2H);
    mp_run_wrote(&s->mp, ps->out.key, d, s->bounds[c], rows, pr->acc[d] != pr->accs[d][ra]);
}

static int run_pass(streamer_t *s, orient_t *o, const pass_t *ps, gs_err_t *err)
{
    pass_run_t pr;
    int rc = pass_setup(s, ps, o, &pr, err);
    xtensor_t reads[2] = {ps->in, ps->out};
    mp_run_op_begin(&s->mp, reads, ps->acc ? 2 : 1, &ps->out, 1);
    if (!rc && !pr.naive) rc = ensure_groups(s, o, err);
    for (int r = 0; !rc && r * pr.nd < s->p; r++) {
        pr.round = r, pr.ra = r % pr.slots;
        for (int d = 0; d < pr.nd; d++) column_begin(s, &pr, r, d);
        for (int t = 0; t < pr.nb && !rc; t++) {
            if (s->abort_flag && atomic_load(s->abort_flag)) { /* quit: stop after the chunks already queued */
                rc = gs_fail(err, GS_EFAIL, "interrupted");
                break;
            }
            if (pr.naive) naive_step(s, &pr, t);
            else chained_step(s, &pr, t);
        }
        for (int d = 0; d < pr.nd; d++) column_end(s, &pr, d);
    }
    s->ops->sync(s->b);
    mp_run_op_end(&s->mp, rc != 0);
    streamer_fold_overlap(s, 1);
    free(pr.order);
    return rc;
}

static pass_t pass_of(const gather_call_t *c, phase_t phase)
{
    return (pass_t){c->agg, c->typed, c->in, c->out, c->f, c->acc, c->layer, phase};
}

int streamer_gather(streamer_t *s, const gather_call_t *c, gs_err_t *err)
{
    pass_t ps = pass_of(c, PHASE_FWD);
    return run_pass(s, &s->fwd, &ps, err);
}

int streamer_gather_bwd(streamer_t *s, const gather_call_t *c, gs_err_t *err)
{
    pass_t ps = pass_of(c, PHASE_BWD);
    return run_pass(s, &s->bwd, &ps, err);
}
