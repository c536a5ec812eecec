/* stream_fused.c - the fused gather (G-GCN, NeuGraph's running example,
 * §3.4) streamed in the column order (streamer.h). Its operands are
 * several vertex tensors, read at each edge's source or destination, so
 * a pass keeps two sides apart: the column's own rows (the output
 * interval: destinations over the CSC chunks, sources over the CSR ones),
 * loaded once per column beside the column's accumulators, and the other
 * side's rows, loaded per block (filtered by selective scheduling) in a
 * slot of the block buffer. Forward: one pass over the CSC chunks into
 * the output. Backward: the destination leaves' gradients over the CSC
 * chunks (the output's gradient is the column's own), then the source
 * leaves' over the CSR chunks (it travels with the block). A gradient
 * that adds (not the first written) starts from 0 and has the host's rows
 * added on the device at the column's end, as the in-memory kernel adds
 * its sum: the results are that kernel's bit for bit.
 * Limits: every device loads its own blocks (naive, whatever --multidev
 * says), the blocks keep their natural order (no swap), and the row order
 * is not offered (a fused gather streams in the column order). */
#include <string.h>

#include "engine/kernels/kernels_fused.h"
#include "stream_pass.h"

enum { FP_OPS = FUSE_MAX_LEAVES + 1 }; /* the leaves and the output's gradient */

/* Which tensors a pass reads and writes, by side. */
typedef struct {
    int own_dst;                /* the columns are destination intervals (CSC) */
    int n_own, n_blk, n_out;
    const xtensor_t *own[FP_OPS], *blk[FP_OPS];
    int own_leaf[FP_OPS], blk_leaf[FP_OPS]; /* the leaf each is, or -1: the output's gradient */
    const xtensor_t *out[FUSE_MAX_LEAVES];
    int out_leaf[FUSE_MAX_LEAVES], out_acc[FUSE_MAX_LEAVES]; /* out_leaf -1: the forward's output */
} fused_sides_t;

/* A pass in progress: per device, two column slots (its own rows, its
 * outputs, the host rows an adding output needs) and two block slots. */
typedef struct {
    const graph_call_t *c;
    fused_sides_t sd;
    orient_t *o;
    int backward, slots, nb;
    size_t col_stride, blk_stride; /* floats per operand region */
    float *col[TOPO_MAX_DEV][2], *blk[TOPO_MAX_DEV][2];
    char *ebuf[TOPO_MAX_DEV][2];
    const float *own_at[TOPO_MAX_DEV][FP_OPS]; /* each own operand's column rows on the device */
    int ev_d2h[TOPO_MAX_DEV][2], ev_comp[TOPO_MAX_DEV][2];
    int col_of[TOPO_MAX_DEV], ra;
} fused_run_t;

static void add_operand(fused_sides_t *sd, int own, const xtensor_t *t, int leaf)
{
    if (own) sd->own[sd->n_own] = t, sd->own_leaf[sd->n_own++] = leaf;
    else sd->blk[sd->n_blk] = t, sd->blk_leaf[sd->n_blk++] = leaf;
}

/* The sides of the forward pass (own_dst) or of a backward pass over
 * destination (own_dst) or source leaves. */
static fused_sides_t sides_of(const graph_call_t *c, int backward, int own_dst)
{
    fused_sides_t sd = {.own_dst = own_dst};
    for (int k = 0; k < c->nleaf; k++) {
        int own = (int)((c->expr->leaf_dst >> k) & 1) == own_dst;
        add_operand(&sd, own, &c->leaf[k], k);
        if (backward && own && c->dleaf[k].data)
            sd.out[sd.n_out] = &c->dleaf[k], sd.out_leaf[sd.n_out] = k, sd.out_acc[sd.n_out++] = c->dacc[k];
    }
    if (backward) add_operand(&sd, own_dst, &c->in, -1);
    else sd.out[0] = &c->out, sd.out_leaf[0] = -1, sd.n_out = 1;
    return sd;
}

uint64_t streamer_fused_need(const fused_expr_t *e, int nleaf, int64_t f, int64_t max_out, int64_t max_blk, int64_t max_nnz)
{
    int nd = __builtin_popcount(e->leaf_dst & ((1u << nleaf) - 1)), ns = nleaf - nd;
    /* forward, the destination leaves' backward, the source leaves' (every gradient wanted) */
    /* an adding output's host rows reuse an own operand's region (the backward passes have one per output) */
    int own[3] = {nd + 1, 2 * nd + 1, 2 * ns}, blk[3] = {ns, ns, nd + 1};
    size_t col = stream_round64((size_t)(max_out * f)), row = stream_round64((size_t)(max_blk * f)), most = 0;
    for (int i = 0; i < 3; i++) {
        size_t floats = col * (size_t)own[i] + row * (size_t)blk[i];
        most = floats > most ? floats : most;
    }
    return sizeof(float) * 2 * most + streamer_edge_need(max_out, max_nnz, 2) + 512;
}

/* Regions past the outputs for the host rows of adding outputs that have
 * no own operand's region to reuse (old_region). */
static int fused_extra(const fused_sides_t *sd)
{
    int adds = 0;
    for (int i = sd->n_own; i < sd->n_out; i++) adds |= sd->out_acc[i];
    return adds ? sd->n_out - sd->n_own : 0;
}

/* Carves each device's region: column slots (own operands, outputs, the
 * adding outputs' host rows), block slots, edge-structure slots. */
static int fused_setup(streamer_t *s, fused_run_t *fr, gs_err_t *err)
{
    int64_t max_out = 0, f = fr->c->f;
    for (int i = 0; i < s->p; i++) max_out = max_out > s->bounds[i + 1] - s->bounds[i] ? max_out : s->bounds[i + 1] - s->bounds[i];
    fr->col_stride = stream_round64((size_t)(max_out * f)), fr->blk_stride = stream_round64((size_t)(streamer_max_block(s) * f));
    size_t col = fr->col_stride * (size_t)(fr->sd.n_own + fr->sd.n_out + fused_extra(&fr->sd)), blk = fr->blk_stride * (size_t)fr->sd.n_blk;
    size_t edge = streamer_edge_need(fr->o->max_nout, fr->o->max_nnz, 1) / sizeof(float);
    int rc = streamer_reserve(s, sizeof(float) * 2 * (col + blk + edge), err);
    for (int d = 0; !rc && d < s->ndev; d++)
        for (int q = 0; q < 2; q++) {
            float *r = (float *)s->region[d];
            fr->col[d][q] = r + q * col, fr->blk[d][q] = r + 2 * col + q * blk;
            fr->ebuf[d][q] = (char *)(r + 2 * (col + blk) + q * edge);
            fr->ev_d2h[d][q] = fr->ev_comp[d][q] = -1;
        }
    return rc;
}

/* Output i's region in device d's column slot, and the region of the
 * host rows it adds: own operand i's (its kernels are done by then), or
 * one past the outputs when there are fewer own operands. */
static float *out_region(const fused_run_t *fr, int d, int i) { return fr->col[d][fr->ra] + fr->col_stride * (size_t)(fr->sd.n_own + i); }
static float *old_region(const fused_run_t *fr, int d, int i)
{
    int at = i < fr->sd.n_own ? i : fr->sd.n_out + i;
    return fr->col[d][fr->ra] + fr->col_stride * (size_t)at;
}

static chunk_tag_t fused_tag(const streamer_t *s, const fused_run_t *fr, int blk, int c)
{
    chunk_tag_t tag = {(int16_t)fr->c->layer, (int8_t)(fr->backward ? PHASE_BWD : PHASE_FWD), -1, c, -1};
    if (blk >= 0) tag.row = blk / s->k, tag.sub = blk % s->k;
    if (fr->backward) tag.col = tag.row, tag.row = c; /* a backward pass's tasks belong to its column (streamer_task_hook) */
    return tag;
}

/* Device d starts column c: its own rows in, its outputs zeroed. */
static void fused_column_begin(streamer_t *s, fused_run_t *fr, int d, int c)
{
    const backend_ops_t *ops = s->ops;
    int64_t lo = s->bounds[c], rows = s->bounds[c + 1] - lo;
    chunk_tag_t tag = fused_tag(s, fr, -1, c);
    int prev = fr->ev_d2h[d][fr->ra];
    if (prev >= 0) ops->wait(s->b, d, LANE_H2D, prev), ops->wait(s->b, d, LANE_COMPUTE, prev);
    for (int i = 0; i < fr->sd.n_own; i++) {
        double copied;
        float *staging = fr->col[d][fr->ra] + fr->col_stride * (size_t)i;
        fr->own_at[d][i] = mp_run_load(&s->mp, d, fr->sd.own[i], lo, rows, staging, tag, &copied);
        s->ctr.gather_h2d_bytes += copied;
    }
    for (int i = 0; i < fr->sd.n_out; i++) {
        kernel_call_t z = {.id = KERN_ZERO, .nd = rows, .out_cols = fr->c->f, .out = out_region(fr, d, i)};
        ops->launch(s->b, d, &z, tag);
    }
    ops->wait(s->b, d, LANE_COMPUTE, ops->record(s->b, d, LANE_H2D));
}

/* The kernel's view of device d's rows for a block whose other-side
 * operands are at blk_at. */
static fused_args_t fused_args(const fused_run_t *fr, int d, const float *const *blk_at)
{
    const fused_sides_t *sd = &fr->sd;
    fused_args_t a = {.e = fr->c->expr, .dy_own = sd->own_dst, .add = 1, .f = fr->c->f};
    for (int i = 0; i < sd->n_own; i++) {
        if (sd->own_leaf[i] < 0) a.dy = fr->own_at[d][i];
        else a.leaf[sd->own_leaf[i]] = fr->own_at[d][i], a.own_mask |= 1u << sd->own_leaf[i];
    }
    for (int i = 0; i < sd->n_blk; i++) {
        if (sd->blk_leaf[i] < 0) a.dy = blk_at[i];
        else a.leaf[sd->blk_leaf[i]] = blk_at[i];
    }
    for (int i = 0; i < sd->n_out; i++) a.out[sd->out_leaf[i] < 0 ? 0 : sd->out_leaf[i]] = out_region(fr, d, i);
    return a;
}

/* Device d's block t of its column: the other side's rows (filtered or
 * whole) and the sub-chunk's structure in, then its kernel. */
static int fused_step(streamer_t *s, fused_run_t *fr, int d, int t, gs_err_t *err)
{
    const backend_ops_t *ops = s->ops;
    int c = fr->col_of[d], slot = t % fr->slots;
    if (c < 0) return GS_OK; /* no column for d this round */
    size_t at = (size_t)c * (size_t)fr->nb + (size_t)t;
    const sub_t *u = &fr->o->sub[at];
    if (u->nnz == 0) return GS_OK;
    int64_t lo = s->blk_lo[t], rows = s->blk_lo[t + 1] - lo, f = fr->c->f;
    chunk_tag_t tag = fused_tag(s, fr, t, c);
    if (fr->ev_comp[d][slot] >= 0) ops->wait(s->b, d, LANE_H2D, fr->ev_comp[d][slot]);
    int filt = stream_use_filter(s, u->nrows, rows);
    for (int i = 0; i < fr->sd.n_blk; i++) filt = filt && !mp_run_slot(&s->mp, fr->sd.blk[i]->key, d); /* a kept one is read whole */
    const float *blk_at[FP_OPS];
    for (int i = 0; i < fr->sd.n_blk; i++) {
        float *staging = fr->blk[d][slot] + fr->blk_stride * (size_t)i;
        double bytes = sizeof(float) * (double)(u->nrows * f);
        if (filt) {
            ops->copy_rows(s->b, d, staging, fr->sd.blk[i]->data, sizeof(float) * (size_t)f, u->rows, u->nrows, tag);
            mp_run_count(&s->mp, fr->sd.blk[i]->key, bytes);
            blk_at[i] = staging;
        } else {
            blk_at[i] = mp_run_load(&s->mp, d, fr->sd.blk[i], lo, rows, staging, tag, &bytes);
        }
        s->ctr.gather_h2d_bytes += bytes;
    }
    filt ? s->ctr.filtered_blocks++ : s->ctr.full_blocks++;
    edge_view_t ev;
    int rc = edge_load(s, d, fr->o, at, filt ? LIDX_SEL : LIDX_FULL, (agg_weight_t)fr->c->expr->agg, 0, 0, fr->ebuf[d][slot], tag, &ev,
                       err);
    if (rc) return rc;
    ops->wait(s->b, d, LANE_COMPUTE, ops->record(s->b, d, LANE_H2D));
    double per_edge = fr->backward ? 4.0 + 3.0 * fr->c->expr->nstep : k_fused_flops(fr->c->expr);
    kernel_call_t kc = {.id = KERN_CHUNK_FUSED, .ptr = ev.ptr, .orow = ev.orow, .lidx = ev.lidx, .w = ev.w, .nd = u->nout,
                        .nnz = u->nnz, .f = f, .in_cols = f, .out_cols = f, .backward = fr->backward,
                        .flops = per_edge * (double)u->nnz * (double)f, .fused = fused_args(fr, d, blk_at)};
    ops->launch(s->b, d, &kc, tag);
    fr->ev_comp[d][slot] = ops->record(s->b, d, LANE_COMPUTE);
    return GS_OK;
}

/* Device d ends its column: an adding output gets the host's rows added,
 * then every output goes home. */
static void fused_column_end(streamer_t *s, fused_run_t *fr, int d)
{
    const backend_ops_t *ops = s->ops;
    int c = fr->col_of[d];
    if (c < 0) return;
    int64_t lo = s->bounds[c], rows = s->bounds[c + 1] - lo, f = fr->c->f;
    size_t bytes = sizeof(float) * (size_t)(rows * f);
    chunk_tag_t tag = fused_tag(s, fr, -1, c);
    int adds = 0;
    for (int i = 0; i < fr->sd.n_out; i++) adds |= fr->sd.out_acc[i];
    if (adds) ops->wait(s->b, d, LANE_H2D, ops->record(s->b, d, LANE_COMPUTE)); /* the own operands' regions are free */
    for (int i = 0; i < fr->sd.n_out; i++) {
        if (!fr->sd.out_acc[i]) continue;
        ops->copy(s->b, d, LANE_H2D, -1, old_region(fr, d, i), fr->sd.out[i]->data + lo * f, bytes, tag);
        s->ctr.gather_h2d_bytes += (double)bytes;
        ops->wait(s->b, d, LANE_COMPUTE, ops->record(s->b, d, LANE_H2D));
        kernel_call_t add = {.id = KERN_ADD, .m = rows * f, .out = out_region(fr, d, i), .in = old_region(fr, d, i)};
        ops->launch(s->b, d, &add, tag);
    }
    ops->wait(s->b, d, LANE_D2H, ops->record(s->b, d, LANE_COMPUTE));
    for (int i = 0; i < fr->sd.n_out; i++) {
        ops->copy(s->b, d, LANE_D2H, -1, fr->sd.out[i]->data + lo * f, out_region(fr, d, i), bytes, tag);
        mp_run_wrote(&s->mp, fr->sd.out[i]->key, d, lo, rows, 0);
    }
    fr->ev_d2h[d][fr->ra] = ops->record(s->b, d, LANE_D2H);
}

/* One pass over orientation o with the sides sd. */
static int fused_pass(streamer_t *s, const graph_call_t *c, orient_t *o, int backward, fused_sides_t sd, gs_err_t *err)
{
    fused_run_t fr = {.c = c, .sd = sd, .o = o, .backward = backward, .slots = s->kn.pipeline ? 2 : 1, .nb = s->nblocks};
    int rc = fused_setup(s, &fr, err);
    xtensor_t reads[FP_OPS], writes[FUSE_MAX_LEAVES];
    int nr = 0;
    for (int i = 0; i < sd.n_own; i++) reads[nr++] = *sd.own[i];
    for (int i = 0; i < sd.n_blk; i++) reads[nr++] = *sd.blk[i];
    for (int i = 0; i < sd.n_out; i++) writes[i] = *sd.out[i];
    mp_run_op_begin(&s->mp, reads, nr, writes, sd.n_out);
    s->pass_id++;
    for (int r = 0; !rc && r * s->ndev < s->p; r++) {
        fr.ra = r % fr.slots;
        for (int d = 0; d < s->ndev; d++) {
            fr.col_of[d] = r * s->ndev + d < s->p ? r * s->ndev + d : -1;
            if (fr.col_of[d] >= 0) fused_column_begin(s, &fr, d, fr.col_of[d]);
        }
        for (int t = 0; t < fr.nb && !rc; t++)
            for (int d = 0; d < s->ndev && !rc; d++)
                if (!(rc = stream_pass_aborted(s, err))) rc = fused_step(s, &fr, d, t, err);
        for (int d = 0; d < s->ndev; d++) fused_column_end(s, &fr, d);
    }
    return stream_pass_end(s, rc, err);
}

int streamer_gather_fused(streamer_t *s, const graph_call_t *c, int backward, gs_err_t *err)
{
    if (!backward) return fused_pass(s, c, &s->fwd, 0, sides_of(c, 0, 1), err);
    fused_sides_t dst = sides_of(c, 1, 1), src = sides_of(c, 1, 0);
    int rc = GS_OK, profiling = s->profiling;
    if (dst.n_out) { /* over the CSC chunks in a backward pass: its times would file under the CSR chunks' profile */
        s->profiling = 0;
        rc = fused_pass(s, c, &s->fwd, 1, dst, err);
        s->profiling = profiling;
    }
    if (!rc && src.n_out) rc = fused_pass(s, c, &s->bwd, 1, src, err);
    return rc;
}
