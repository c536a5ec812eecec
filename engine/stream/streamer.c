/* streamer.c - see streamer.h: the chunk structures (each chunk cut into
 * sub-chunks per orientation), probing the copy rates, the profile the
 * device tasks leave, the overlap of transfers with compute, and the
 * devices' buffer regions. A pass over the chunks is stream_pass.c's. */
#include "streamer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mono_clock.h"
#include "chunk_grid.h"
#include "engine/machine/linkmodel.h"
#include "engine/machine/vclock.h"

int streamer_block_buffers(int pipeline, int k)
{
    return !pipeline || k < 2 ? 2 : k > STREAM_MAX_SLOTS ? STREAM_MAX_SLOTS : k;
}

uint64_t streamer_pass_need(int64_t max_out, int64_t max_blk, int64_t out_cols, int64_t in_cols, int nbuf)
{
    size_t acc = stream_round64((size_t)(max_out * out_cols)), blk = stream_round64((size_t)(max_blk * in_cols));
    size_t bytes = sizeof(float) * (2 * acc + (size_t)nbuf * blk);
    return ((bytes + 255) & ~(size_t)255) + 256;
}

uint64_t streamer_edge_need(int64_t max_nout, int64_t max_nnz, int nbuf)
{
    return sizeof(float) * (size_t)nbuf * stream_round64(edge_struct_bytes(max_nout, max_nnz, 1, 1, 1) / sizeof(float) + 1);
}

uint64_t streamer_working_set(int64_t n, int p, int k, int64_t cols, int nbuf)
{
    int64_t out_rows = (n + p - 1) / p, blk_rows = (n + (int64_t)p * k - 1) / ((int64_t)p * k) + 1;
    return streamer_pass_need(out_rows, blk_rows, cols, cols, nbuf);
}

/* ---------------- chunk structures ---------------- */

double streamer_memory_bytes(int64_t n, int64_t m, int p, int k, int kernel_arrays)
{
    double pp = (double)p * p, subs = pp * k, nd = (double)n, md = (double)m;
    /* while building: one column of the grid (its offsets, and its edges' rows and ids), each vertex's interval */
    double column = p * sizeof(chunk_t) + (nd + p) * sizeof(int64_t) + md / p * 12.0 + nd * sizeof(int32_t);
    /* per orientation: the sub-chunk table and its profile times; per edge
     * at most one input row used; with the kernel arrays its row in two
     * numberings, its type and two weights, its listed row and offset */
    double per_edge = 4.0 + (kernel_arrays ? 4 + 4 + 4 + 8 + 4 + 8 : 0);
    double orient = subs * (sizeof(sub_t) + 2 * sizeof(double) + sizeof(uint32_t)) + md * per_edge;
    return column + 2 * orient;
}

int streamer_leanest_chunks(int64_t n, int64_t m, int p_lo, int p_hi, int k, int kernel_arrays, double *bytes)
{
    int best = p_lo;
    *bytes = streamer_memory_bytes(n, m, p_lo, k, kernel_arrays);
    for (int p = p_lo + 1; p <= p_hi; p++) {
        double b = streamer_memory_bytes(n, m, p, k, kernel_arrays);
        if (b < *bytes) *bytes = b, best = p;
        else if (b > *bytes) break; /* a + b / P + c P + d P^2: past its least it only grows */
    }
    return best;
}


int streamer_rounds(const streamer_t *s) { return (s->p + s->ndev - 1) / s->ndev; }

void streamer_free_groups(streamer_t *s, orient_t *o)
{
    if (o->grp)
        for (size_t i = 0; i < (size_t)streamer_rounds(s) * (size_t)s->nblocks * (size_t)o->grp_n; i++) free(o->grp[i].rows);
    free(o->grp);
    o->grp = NULL;
    for (int i = 0; o->sub && i < s->p * s->nblocks; i++) free(o->sub[i].lidx_grp), o->sub[i].lidx_grp = NULL;
}

static void free_orient(streamer_t *s, orient_t *o)
{
    streamer_free_groups(s, o);
    if (o->sub)
        for (int i = 0; i < s->p * s->nblocks; i++) {
            sub_t *u = &o->sub[i];
            free(u->ptr), free(u->orow), free(u->lidx_full), free(u->lidx_sel), free(u->etype), free(u->eid), free(u->rows);
            free(u->w[AGG_NORM]), free(u->w[AGG_MEAN]);
        }
    for (int l = 0; l < PROG_MAX_LAYERS; l++) free(o->prof[l].copy), free(o->prof[l].comp), free(o->prof[l].pass);
    free(o->sub);
    memset(o, 0, sizeof *o);
}

/* Sub-chunk u's arrays for nnz edges over `listed` output rows and nrows
 * input rows, with the per-edge values s->fields asks for (only the input
 * rows without SUB_KERNEL_ARRAYS); -1 when out of memory. */
static int alloc_sub(const streamer_t *s, sub_t *u, int64_t nnz, int64_t listed, int64_t nrows)
{
    size_t e = (size_t)nnz;
    u->rows = malloc(sizeof(int32_t) * (size_t)nrows);
    if (s->fields & SUB_EIDS) u->eid = malloc(sizeof(int32_t) * e);
    if ((s->fields & SUB_EIDS) && !u->eid) return -1;
    if (!(s->fields & SUB_KERNEL_ARRAYS)) return u->rows ? 0 : -1;
    u->ptr = malloc(sizeof(int64_t) * (size_t)(listed + 1));
    u->orow = malloc(sizeof(int32_t) * (size_t)listed);
    u->lidx_full = malloc(sizeof(int32_t) * e);
    u->lidx_sel = malloc(sizeof(int32_t) * e);
    if (s->fields & SUB_TYPES) u->etype = malloc(sizeof(int32_t) * e);
    for (int a = AGG_NORM; a <= AGG_MEAN; a++)
        if (s->fields & (1u << a)) u->w[a] = malloc(sizeof(float) * e);
    int short_of = !u->ptr || !u->orow || !u->lidx_full || !u->lidx_sel || !u->rows || ((s->fields & SUB_TYPES) && !u->etype);
    for (int a = AGG_NORM; a <= AGG_MEAN; a++) short_of |= (s->fields & (1u << a)) && !u->w[a];
    return short_of ? -1 : 0;
}

/* Sub-chunk u's edge ids (SUB_EIDS), in sub order. */
static void fill_eids(sub_t *u, int64_t nout, int64_t lo, int64_t hi, const int64_t *cptr, const int32_t *cin, const int64_t *ceid)
{
    int64_t w = 0;
    for (int64_t r = 0; r < nout; r++)
        for (int64_t e = cptr[r]; e < cptr[r + 1]; e++)
            if (cin[e] >= lo && cin[e] < hi) u->eid[w++] = (int32_t)ceid[e];
}

/* Sub-chunk u's edges from the chunk's rows (input block lo..hi): input
 * rows in both numberings, the asked-for values, the listed output rows. */
static void fill_sub(const streamer_t *s, sub_t *u, int64_t nout, int64_t lo, int64_t hi, const int64_t *cptr,
                     const int32_t *cin, const int64_t *ceid, const int32_t *mark)
{
    const graph_t *g = s->g;
    int64_t w = 0;
    u->ptr[0] = 0;
    u->nout = 0;
    for (int64_t r = 0; r < nout; r++) {
        int64_t w0 = w;
        for (int64_t e = cptr[r]; e < cptr[r + 1]; e++)
            if (cin[e] >= lo && cin[e] < hi) {
                u->lidx_full[w] = (int32_t)(cin[e] - lo);
                u->lidx_sel[w] = mark[cin[e] - lo];
                if (u->etype) u->etype[w] = g->etype[ceid[e]];
                if (u->w[AGG_NORM]) u->w[AGG_NORM][w] = g->w_norm[ceid[e]];
                if (u->w[AGG_MEAN]) u->w[AGG_MEAN][w] = g->w_mean[ceid[e]];
                w++;
            }
        if (w > w0) u->orow[u->nout] = (int32_t)r, u->ptr[++u->nout] = w;
    }
}

/* Splits chunk (input interval a -> output interval o) into k subs by input block. */
static int build_subs(streamer_t *s, orient_t *ot, int o, int a, const int64_t *cptr, const int32_t *cin,
                      const int64_t *ceid, int32_t *mark)
{
    int64_t nout = s->bounds[o + 1] - s->bounds[o];
    for (int q = 0; q < s->k; q++) {
        int b = a * s->k + q;
        int64_t lo = s->blk_lo[b], hi = s->blk_lo[b + 1], nnz = 0, nrows = 0, listed = 0;
        sub_t *u = &ot->sub[(int64_t)o * s->nblocks + b];
        for (int64_t r = 0; r < nout; r++) {
            int64_t before = nnz;
            for (int64_t e = cptr[r]; e < cptr[r + 1]; e++)
                if (cin[e] >= lo && cin[e] < hi) {
                    nnz++;
                    if (mark[cin[e] - lo] < 0) mark[cin[e] - lo] = 0, nrows++;
                }
            listed += nnz > before;
        }
        u->nnz = nnz;
        if (nnz == 0) continue;
        if (alloc_sub(s, u, nnz, listed, nrows)) return -1;
        u->nrows = 0;
        for (int64_t v = lo; v < hi; v++)
            if (mark[v - lo] >= 0) mark[v - lo] = (int32_t)u->nrows, u->rows[u->nrows++] = (int32_t)v;
        if (s->fields & SUB_KERNEL_ARRAYS) fill_sub(s, u, nout, lo, hi, cptr, cin, ceid, mark);
        else u->nout = listed;
        if (u->eid) fill_eids(u, nout, lo, hi, cptr, cin, ceid);
        if (u->nout > ot->max_nout) ot->max_nout = u->nout;
        if (u->nnz > ot->max_nnz) ot->max_nnz = u->nnz;
        for (int64_t v = lo; v < hi; v++) mark[v - lo] = -1;
    }
    return 0;
}

/* Output interval o's sub-chunks, both orientations, from one column of
 * the chunk grid at a time (forward: chunks (a, o) by destination;
 * backward: chunks (o, a) by source). */
static int column_subs(streamer_t *s, int o, const int32_t *iv, chunk_t *col, int32_t *mark)
{
    for (int forward = 1; forward >= 0; forward--) {
        if (grid_column(col, s->g, s->p, s->bounds, iv, o, forward)) return -1;
        int rc = 0;
        for (int a = 0; a < s->p && !rc; a++)
            rc = forward ? build_subs(s, &s->fwd, o, a, col[a].csc_ptr, col[a].csc_src, col[a].csc_eid, mark)
                         : build_subs(s, &s->bwd, o, a, col[a].csr_ptr, col[a].csr_dst, col[a].csr_eid, mark);
        grid_column_free(col, s->p, forward);
        if (rc) return -1;
    }
    return 0;
}

int streamer_init(streamer_t *s, const backend_ops_t *ops, backend_t *b, const topology_t *topo, const graph_t *g,
                  int p, const int64_t *bounds, const stream_knobs_t *kn, unsigned fields, gs_err_t *err)
{
    memset(s, 0, sizeof *s);
    s->fields = fields;
    pthread_mutex_init(&s->iv_lock, NULL);
    s->ops = ops, s->b = b, s->ndev = ops->ndev(b), s->topo = topo, s->g = g, s->kn = *kn;
    s->p = p, s->k = kn->subchunks < 1 ? 1 : kn->subchunks, s->nblocks = p * s->k;
    s->theta_threshold = 0.5;
    mp_run_init(&s->mp, (mp_devices_t){ops, b, s->ndev, g->n, topo ? topo->group : NULL});
    edge_store_init(&s->edges, ops, b, s->ndev);
    int32_t *iv = grid_intervals(g, p, bounds);
    chunk_t *col = calloc((size_t)p, sizeof(chunk_t));
    s->bounds = malloc(sizeof(int64_t) * (size_t)(p + 1));
    s->blk_lo = malloc(sizeof(int64_t) * (size_t)(s->nblocks + 1));
    int64_t maxlen = 0;
    for (int i = 0; i < p; i++) maxlen = bounds[i + 1] - bounds[i] > maxlen ? bounds[i + 1] - bounds[i] : maxlen;
    int32_t *mark = malloc(sizeof(int32_t) * (size_t)(maxlen + 1));
    size_t nsub = (size_t)p * (size_t)s->nblocks;
    s->fwd.sub = calloc(nsub, sizeof(sub_t)), s->bwd.sub = calloc(nsub, sizeof(sub_t));
    s->part_s = calloc((size_t)PROG_MAX_LAYERS * (size_t)p, sizeof(double));
    s->part_lane_s = calloc(3 * (size_t)PROG_MAX_LAYERS * (size_t)p, sizeof(double));
    if (!iv || !col || !s->part_s || !s->part_lane_s || !s->bounds || !s->blk_lo || !mark || !s->fwd.sub || !s->bwd.sub) goto oom;
    memcpy(s->bounds, bounds, sizeof(int64_t) * (size_t)(p + 1));
    for (int i = 0; i < p; i++)
        for (int q = 0; q < s->k; q++) s->blk_lo[i * s->k + q] = bounds[i] + (bounds[i + 1] - bounds[i]) * q / s->k;
    s->blk_lo[s->nblocks] = g->n;
    for (int64_t v = 0; v <= maxlen; v++) mark[v] = -1;
    for (int o = 0; o < p; o++)
        if (column_subs(s, o, iv, col, mark)) goto oom;
    free(mark), free(col), free(iv);
    return GS_OK;
oom:
    free(mark), free(col), free(iv);
    streamer_free(s);
    return gs_fail(err, GS_EFAIL, "out of memory building %d x %d chunks with %d sub-chunks", p, p, kn->subchunks);
}

void streamer_free(streamer_t *s)
{
    if (!s->g) return;
    mp_run_free(&s->mp);
    edge_store_drop(&s->edges);
    streamer_release_region(s);
    free_orient(s, &s->fwd);
    free_orient(s, &s->bwd);
    free(s->bounds), free(s->blk_lo), free(s->part_s), free(s->part_lane_s), free(s->mm_part);
    for (int d = 0; d < TOPO_MAX_DEV; d++)
        for (int l = 0; l < 2; l++) free(s->iv_t0[d][l]), free(s->iv_t1[d][l]);
    pthread_mutex_destroy(&s->iv_lock);
    memset(s, 0, sizeof *s);
}

/* ---------------- probing and profiling ---------------- */

/* Bytes/s the host reaches into every device at once: one 64 MB copy to
 * each in the link model (shared uplinks split fairly), at most the
 * host's own bandwidth. */
static double aggregate_h2d(const streamer_t *s, double host_bw)
{
    if (!s->topo) return host_bw;
    lm_transfer_t xf[TOPO_MAX_DEV];
    double bytes = 64.0 * 1048576, end = 0;
    for (int d = 0; d < s->ndev; d++) xf[d] = (lm_transfer_t){&s->topo->h2d[d], bytes, 0, 0};
    lm_simulate(s->topo, xf, s->ndev);
    for (int d = 0; d < s->ndev; d++) end = fmax(end, xf[d].finish);
    return end > 0 ? fmin(host_bw, bytes * s->ndev / end) : host_bw;
}

int streamer_probe(streamer_t *s, const vclock_t *clock, gs_err_t *err)
{
    if (clock) { /* NeuGraph §3.3: aggregate throughputs of the host the devices share */
        s->t_copy = clock->host_bw / 2; /* the host's memcpy reads and writes, for every device */
        s->t_trans = aggregate_h2d(s, clock->host_bw);
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
    int rc = s->ops->sync(s->b, err);
    if (rc) {
        s->ops->free(s->b, 0, d, dev_bytes);
        free(a), free(c);
        return rc;
    }
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

/* The output interval (the partitioner's part) a task works for, or -1:
 * a chunk's, a column's accumulator's, or a matmul block's. */
static int task_part(const streamer_t *s, chunk_tag_t tag)
{
    int part = -1;
    if (tag.row >= 0 && tag.col >= 0) part = tag.phase == PHASE_FWD ? tag.col : tag.row;
    else if (tag.col >= 0) part = tag.col;
    else if (tag.row >= 0 && tag.row < s->mm_nblocks) part = s->mm_part[tag.row];
    return part < s->p ? part : -1;
}

void streamer_part_times(streamer_t *s)
{
    size_t n = (size_t)PROG_MAX_LAYERS * (size_t)s->p;
    for (size_t i = 0; i < n; i++)
        s->part_s[i] = fmax(s->part_lane_s[i], fmax(s->part_lane_s[n + i], s->part_lane_s[2 * n + i]));
}

int streamer_profile_layer(streamer_t *s, orient_t *o, int layer)
{
    if (layer < 0 || layer >= PROG_MAX_LAYERS) return 0;
    sub_prof_t *pf = &o->prof[layer];
    if (pf->pass) return 1;
    size_t nsub = (size_t)s->p * (size_t)s->nblocks;
    pf->copy = calloc(nsub, sizeof(double)), pf->comp = calloc(nsub, sizeof(double)), pf->pass = calloc(nsub, sizeof(uint32_t));
    if (pf->copy && pf->comp && pf->pass) return 1;
    free(pf->copy), free(pf->comp), free(pf->pass);
    *pf = (sub_prof_t){0};
    return 0;
}

/* A sub-chunk's task of dt seconds into its layer's profile (made by
 * streamer_profile_layer before the pass issued it): its copies (rows and
 * structure) and its kernels, each summed within a pass. */
static void profile_sub(streamer_t *s, lane_t lane, chunk_tag_t tag, double dt)
{
    int fwd = tag.phase == PHASE_FWD;
    orient_t *o = fwd ? &s->fwd : &s->bwd;
    if (tag.layer < 0 || tag.layer >= PROG_MAX_LAYERS || !(lane == LANE_COMPUTE || lane == LANE_H2D || lane == LANE_D2D)) return;
    sub_prof_t *pf = &o->prof[tag.layer];
    if (!pf->pass) return;
    int out = fwd ? tag.col : tag.row, b = (fwd ? tag.row : tag.col) * s->k + tag.sub;
    size_t i = (size_t)out * (size_t)s->nblocks + (size_t)b;
    if (pf->pass[i] != s->pass_id) pf->copy[i] = pf->comp[i] = 0, pf->pass[i] = s->pass_id;
    *(lane == LANE_COMPUTE ? &pf->comp[i] : &pf->copy[i]) += dt;
}

void streamer_task_hook(void *user, int dev, lane_t lane, chunk_tag_t tag, double t0, double t1, double bytes)
{
    streamer_t *s = user;
    (void)bytes;
    pthread_mutex_lock(&s->iv_lock);
    iv_push(s, dev, lane == LANE_COMPUTE ? 1 : 0, t0, t1);
    if (tag.row >= 0 && tag.col >= 0 && s->profiling) profile_sub(s, lane, tag, t1 - t0);
    int part = task_part(s, tag), kind = lane == LANE_COMPUTE ? 0 : lane == LANE_D2H ? 2 : 1;
    if (part >= 0 && tag.layer >= 0 && tag.layer < PROG_MAX_LAYERS)
        s->part_lane_s[((size_t)kind * PROG_MAX_LAYERS + (size_t)tag.layer) * (size_t)s->p + (size_t)part] += t1 - t0;
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

/* ---------------- device buffers and knobs ---------------- */

void streamer_release_region(streamer_t *s)
{
    for (int d = 0; d < s->ndev; d++) {
        s->ops->free(s->b, d, s->region[d], s->region_bytes);
        s->region[d] = NULL;
    }
    s->region_bytes = 0;
}

void streamer_set_knobs(streamer_t *s, const stream_knobs_t *kn)
{
    if (memcmp(&s->kn, kn, sizeof *kn) != 0) mp_run_reset(&s->mp), s->plan_first = 0; /* the chains first, until measured */
    /* kept structures carry the filtered rows' numbering of the multidev mode they were made in */
    if (kn->edge_chunks != s->kn.edge_chunks || kn->multidev != s->kn.multidev || kn->selective != s->kn.selective) {
        edge_store_drop(&s->edges);
        s->edges.given_up = 0;
    }
    s->kn = *kn;
}

size_t streamer_reserved_size(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

int streamer_reserve(streamer_t *s, size_t bytes, gs_err_t *err)
{
    bytes = streamer_reserved_size(bytes);
    if (s->region_bytes >= bytes && s->region[0]) return GS_OK;
    streamer_release_region(s);
    s->region_bytes = bytes;
    for (int d = 0; d < s->ndev; d++) {
        s->region[d] = s->ops->alloc(s->b, d, bytes);
        if (!s->region[d] && mp_run_holding(&s->mp)) { /* the streaming buffers come first: give up the kept tensors */
            mp_run_reset(&s->mp);
            s->region[d] = s->ops->alloc(s->b, d, bytes);
        }
        if (!s->region[d] && edge_store_held(&s->edges) > 0) { /* and the kept edge chunks (auto streams them from now on) */
            edge_store_drop(&s->edges);
            s->edges.given_up = 1;
            s->region[d] = s->ops->alloc(s->b, d, bytes);
        }
        if (!s->region[d]) {
            streamer_release_region(s);
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

