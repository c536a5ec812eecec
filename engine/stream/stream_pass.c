/* stream_pass.c - one streamed pass (stream_pass.h): NeuGraph's column
 * order forward (one destination interval per device at a time, every
 * source block accumulated into it) and row order backward over the CSR
 * chunks; each device's two accumulators and its block buffers (one per
 * sub-chunk of a chunk when pipelining) carved from its region, the
 * blocks in the swap heuristic's order, the naive step, and the gathers
 * of streamer.h. */
#include "stream_pass.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int stream_use_filter(const streamer_t *s, int64_t used_rows, int64_t block_rows)
{
    if (s->kn.selective == SEL_ON) return 1;
    if (s->kn.selective == SEL_OFF) return 0;
    return (double)used_rows / (double)block_rows < s->theta_threshold;
}

int stream_chunk_edges(streamer_t *s, pass_run_t *pr, int d, size_t at, lidx_kind_t lk, int slot, chunk_tag_t tag,
                       edge_view_t *ev, gs_err_t *err)
{
    const pass_t *ps = pr->ps;
    return edge_load(s, d, pr->o, at, lk, ps->agg, ps->typed != TYPED_NONE, ps->kind == PASS_MAX, pr->ebuf[d][slot], tag, ev, err);
}

/* A pass's buffers, in floats: two accumulators (each with a max
 * gather's winners beside it), nbuf block slots (each a block, an edge
 * structure, and a sub-chunk's winners or edge rows), and once its
 * ApplyVertex ops' (stream_apply.c). */
typedef struct {
    size_t acc, wacc, buf, edge, wblk, per_acc, per_blk, apply, total_bytes;
    int64_t max_out;
    int nbuf;
} pass_sizes_t;

static pass_sizes_t pass_sizes(const streamer_t *s, const pass_t *ps, const orient_t *o)
{
    pass_sizes_t z;
    z.max_out = 0;
    for (int i = 0; i < s->p; i++) z.max_out = fmax(z.max_out, s->bounds[i + 1] - s->bounds[i]);
    z.acc = stream_round64((size_t)(z.max_out * ps->out.cols)), z.buf = stream_round64((size_t)(streamer_max_block(s) * ps->in.cols));
    z.edge = streamer_edge_need(o->max_nout, o->max_nnz, 1) / sizeof(float);
    /* a max gather's winners: beside each accumulator (forward) or each block buffer (backward) */
    z.wacc = ps->kind == PASS_MAX ? z.acc : 0;
    z.wblk = ps->kind == PASS_MAX_BWD ? z.buf : 0;
    if (pass_has_edge_rows(ps)) /* a sub-chunk's head scales or edge rows */
        z.wblk = stream_round64((size_t)(o->max_nnz * ps->att_k));
    z.nbuf = streamer_block_buffers(s->kn.pipeline, s->k);
    z.per_acc = z.acc + z.wacc, z.per_blk = z.buf + z.edge + z.wblk;
    z.apply = stream_apply_floats(ps, z.max_out);
    z.total_bytes = sizeof(float) * (2 * z.per_acc + (size_t)z.nbuf * z.per_blk + z.apply);
    return z;
}

size_t stream_pass_bytes(const streamer_t *s, const pass_t *ps, const orient_t *o) { return pass_sizes(s, ps, o).total_bytes; }

/* Device d's region carved: the accumulators and their winners, then the
 * block slots, each its block, edge structure and winners or edge rows. */
static void carve_region(const streamer_t *s, const pass_t *ps, const pass_sizes_t *z, pass_run_t *pr, int d)
{
    float *r = (float *)s->region[d], *blocks = r + 2 * z->per_acc;
    for (int q = 0; q < 2; q++) {
        pr->accs[d][q] = r + q * z->acc;
        pr->waccs[d][q] = z->wacc ? (int32_t *)(r + 2 * z->acc + q * z->wacc) : NULL;
    }
    for (int q = 0; q < z->nbuf; q++) {
        float *b = blocks + (size_t)q * z->per_blk;
        int32_t *w = z->wblk ? (int32_t *)(b + z->buf + z->edge) : NULL;
        pr->buf[d][q] = b;
        pr->ebuf[d][q] = (char *)(b + z->buf);
        pr->wbuf[d][q] = ps->kind == PASS_MAX_BWD ? w : NULL;
        pr->abuf[d][q] = pass_has_edge_rows(ps) ? (float *)w : NULL;
    }
}

/* Reserves the devices' regions and carves two accumulators (a column's
 * D2H overlaps the next column's compute), the block slots with their
 * edge-structure buffers (and the product's weight and output). */
static int pass_setup(streamer_t *s, const pass_t *ps, orient_t *o, pass_run_t *pr, gs_err_t *err)
{
    memset(pr, 0, sizeof *pr);
    pass_sizes_t z = pass_sizes(s, ps, o);
    pr->ps = ps, pr->o = o, pr->nb = s->nblocks, pr->nd = s->ndev;
    pr->slots = s->kn.pipeline ? z.nbuf : 1, pr->aslots = s->kn.pipeline ? 2 : 1;
    for (int d = 0; d < TOPO_MAX_DEV; d++) {
        for (int q = 0; q < 2; q++) pr->ev_d2h[d][q] = -1;
        for (int q = 0; q < STREAM_MAX_SLOTS; q++)
            pr->ev_comp[d][q] = pr->ev_fwd[d][q] = pr->ev_ready[d][q] = pr->ev_out[d][q] = -1;
    }
    int rc = streamer_reserve(s, z.total_bytes, err);
    if (rc) return rc;
    for (int d = 0; d < s->ndev; d++) carve_region(s, ps, &z, pr, d);
    if (ps->napply) stream_apply_setup(s, pr, 2 * z.per_acc + (size_t)z.nbuf * z.per_blk, z.max_out);
    if (s->profiling && s->kn.swap) streamer_profile_layer(s, o, ps->layer); /* the swap's input: only when it is on */
    pr->order = malloc(sizeof(int) * (size_t)pr->nb * (TOPO_MAX_DEV + 1)); /* and the next column's order, for the swap */
    return pr->order ? GS_OK : gs_fail(err, GS_EFAIL, "out of memory");
}

/* Device d's order of column c's blocks: the natural order (its non-empty
 * blocks first, so the empty ones the pass skips hold no buffer slot), or with
 * --swap (naive streaming, a profiled layer) the swap heuristic's, judged
 * from the pipeline the device's last column left on through its next
 * column (stream_swap.h); the pipeline this column leaves is kept for the
 * next one's judgement. */
static void block_order(streamer_t *s, pass_run_t *pr, int d, int c)
{
    const orient_t *o = pr->o;
    const pass_t *ps = pr->ps;
    int nb = pr->nb, *ord = pr->order + (size_t)d * nb, *next = pr->order + (size_t)TOPO_MAX_DEV * nb;
    const sub_prof_t *pf = ps->layer >= 0 && ps->layer < PROG_MAX_LAYERS ? &o->prof[ps->layer] : NULL;
    if (!pr->naive || !s->kn.swap || !s->have_profile || !pf || !pf->pass) {
        stream_natural_order(o->sub + (size_t)c * nb, nb, ord);
        return;
    }
    size_t at = (size_t)c * nb, nx = (size_t)(c + pr->nd) * nb;
    swap_ctx_t ctx = {.start = pr->pipe[d]};
    if (c + pr->nd < s->p)
        ctx.next = next, ctx.next_n = stream_natural_order(o->sub + nx, nb, next), ctx.next_tc = pf->copy + nx, ctx.next_tk = pf->comp + nx;
    double saved = stream_swap_order(o->sub + at, nb, s->k, pf->copy + at, pf->comp + at, pr->slots, &ctx, ord);
    if (saved > 0) s->ctr.swapped_cols++, s->ctr.swap_saved_s += saved;
    double bound = stream_swap_bound(o->sub + at, nb, s->k, pf->copy + at, pf->comp + at, pr->slots, &ctx, ord);
    if (bound >= 0 && saved + bound > 0) s->ctr.swap_bound_s += saved + bound;
    int n = 0;
    while (n < nb && o->sub[at + (size_t)ord[n]].nnz) n++;
    stream_simulate_from(&pr->pipe[d], ord, n, pf->copy + at, pf->comp + at, pr->slots, &pr->pipe[d]);
}

/* Starts device d's column of round r: its accumulator (the output's
 * device copy when the memory plan keeps it) zeroed or loaded (a
 * scatter's: scatter_begin), and the order of its blocks. */
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
    if (ps->kind == PASS_SCATTER) {
        stream_scatter_begin(s, pr, d, c, tag);
    } else if (ps->acc) {
        double copied;
        if (pr->ev_d2h[d][ra] >= 0) ops->wait(s->b, d, LANE_H2D, pr->ev_d2h[d][ra]);
        mp_run_load(&s->mp, d, &ps->out, s->bounds[c], rows, pr->acc[d], tag, &copied);
        s->ctr.gather_h2d_bytes += copied;
        ops->wait(s->b, d, LANE_COMPUTE, ops->record(s->b, d, LANE_H2D));
    } else {
        if (pr->ev_d2h[d][ra] >= 0) ops->wait(s->b, d, LANE_COMPUTE, pr->ev_d2h[d][ra]);
        kernel_call_t z = {.id = ps->kind == PASS_MAX ? KERN_MAX_INIT : KERN_ZERO, .nd = rows, .out_cols = ps->out.cols,
                           .out = pr->acc[d], .win = pr->waccs[d][ra]};
        ops->launch(s->b, d, &z, tag);
    }
    block_order(s, pr, d, c);
}

chunk_tag_t stream_block_tag(const streamer_t *s, const pass_t *ps, int blk, int c)
{
    chunk_tag_t tag = {(int16_t)ps->layer, (int8_t)ps->phase, blk / s->k, c, (int32_t)(blk % s->k)};
    if (ps->phase == PHASE_BWD) tag.row = c, tag.col = blk / s->k;
    return tag;
}

/* Step t of a naive round: every device loads its t-th block from the
 * host (filtered when selective scheduling says so) with its sub-chunk's
 * edge structure, and gathers it. */
static int naive_step(streamer_t *s, pass_run_t *pr, int t, gs_err_t *err)
{
    const pass_t *ps = pr->ps;
    const backend_ops_t *ops = s->ops;
    int slot = t % pr->slots, nb = pr->nb;
    for (int d = 0; d < pr->nd; d++) {
        if (pr->col[d] < 0) continue;
        int blk = pr->order[(size_t)d * nb + t];
        size_t at = (size_t)pr->col[d] * nb + blk;
        const sub_t *u = &pr->o->sub[at];
        if (u->nnz == 0) continue;
        int64_t lo = s->blk_lo[blk], rows = s->blk_lo[blk + 1] - lo;
        chunk_tag_t tag = stream_block_tag(s, ps, blk, pr->col[d]);
        if (pr->ev_comp[d][slot] >= 0) ops->wait(s->b, d, LANE_H2D, pr->ev_comp[d][slot]);
        if (pr->ev_out[d][slot] >= 0) ops->wait(s->b, d, LANE_H2D, pr->ev_out[d][slot]); /* a scatter's rows have left */
        /* a kept input is brought in whole, for the columns after this one */
        int filt = stream_reads_blocks(ps) && !mp_run_slot(&s->mp, ps->in.key, d) && stream_use_filter(s, u->nrows, rows);
        const float *src = pr->buf[d][slot];
        stream_block_winners(s, pr, d, slot, blk, filt ? u->rows : NULL, u->nrows, -1, 0, tag);
        if (filt) {
            double bytes = sizeof(float) * (double)(u->nrows * ps->in.cols);
            ops->copy_rows(s->b, d, pr->buf[d][slot], ps->in.data, sizeof(float) * (size_t)ps->in.cols, u->rows, u->nrows, tag);
            s->ctr.filtered_blocks++;
            s->ctr.gather_h2d_bytes += bytes;
            mp_run_count(&s->mp, ps->in.key, bytes);
        } else if (stream_reads_blocks(ps)) {
            double copied;
            src = mp_run_load(&s->mp, d, &ps->in, lo, rows, pr->buf[d][slot], tag, &copied);
            s->ctr.full_blocks++;
            s->ctr.gather_h2d_bytes += copied;
        }
        edge_view_t ev;
        int rc = stream_chunk_edges(s, pr, d, at, filt ? LIDX_SEL : LIDX_FULL, slot, tag, &ev, err);
        if (rc) return rc;
        stream_chunk_scales(s, pr, d, slot, u, tag);
        ops->wait(s->b, d, LANE_COMPUTE, ops->record(s->b, d, LANE_H2D));
        stream_pass_launch(s, pr, d, slot, blk, u, &ev, src, tag);
        pr->ev_comp[d][slot] = ops->record(s->b, d, LANE_COMPUTE);
        stream_scatter_home(s, pr, d, slot, u, tag);
    }
    return GS_OK;
}

/* Ends device d's column: its accumulator (and its product) go back to the host. */
static void column_end(streamer_t *s, pass_run_t *pr, int d)
{
    const pass_t *ps = pr->ps;
    const backend_ops_t *ops = s->ops;
    int c = pr->col[d], ra = pr->ra;
    if (c < 0) return;
    int64_t rows = s->bounds[c + 1] - s->bounds[c];
    chunk_tag_t tag = {(int16_t)ps->layer, (int8_t)ps->phase, -1, c, -1};
    size_t bytes = sizeof(float) * (size_t)(rows * ps->out.cols);
    if (ps->kind == PASS_SCATTER) { /* its edge rows went home one sub-chunk at a time; the slot is free once its kernels are done */
        pr->ev_d2h[d][ra] = ops->record(s->b, d, LANE_COMPUTE);
        return;
    }
    if (ps->kind == PASS_MAX) { /* the rows nothing won become 0; the winners go home for the backward pass */
        kernel_call_t fin = {.id = KERN_MAX_FINISH, .nd = rows, .out_cols = ps->out.cols, .out = pr->acc[d], .win = pr->waccs[d][ra]};
        ops->launch(s->b, d, &fin, tag);
    }
    ops->wait(s->b, d, LANE_D2H, ops->record(s->b, d, LANE_COMPUTE));
    if (ps->kind == PASS_MAX) ops->copy(s->b, d, LANE_D2H, -1, ps->win + s->bounds[c] * ps->out.cols, pr->waccs[d][ra], bytes, tag);
    ops->copy(s->b, d, LANE_D2H, -1, ps->out.data + s->bounds[c] * ps->out.cols, pr->acc[d], bytes, tag);
    pr->ev_d2h[d][ra] = ops->record(s->b, d, LANE_D2H);
    mp_run_wrote(&s->mp, ps->out.key, d, s->bounds[c], rows, pr->acc[d] != pr->accs[d][ra]);
    if (ps->napply) stream_apply_column(s, pr, d, rows); /* on the accumulator while it goes home */
}

/* The blocks of a round: NGra's ring schedule, or block by block (naive or chain). */
static int round_blocks(streamer_t *s, pass_run_t *pr, gs_err_t *err)
{
    if (!pr->naive && s->kn.multidev == MD_RING) return stream_ring_round(s, pr, err);
    int rc = GS_OK;
    for (int t = 0; t < pr->nb && !rc; t++)
        if (!(rc = stream_pass_aborted(s, err))) rc = pr->naive ? naive_step(s, pr, t, err) : stream_chained_step(s, pr, t, err);
    return rc;
}

/* Whether each device loads its own blocks (naive) rather than passing
 * them along a chain or ring: one device, the naive mode, an edge op, or an
 * input the memory plan keeps on every device (read there: nothing to pass
 * along; asked after mp_run_op_begin, which places the copies). */
static int blocks_naive(streamer_t *s, const pass_t *ps)
{
    return s->kn.multidev == MD_NAIVE || s->ndev == 1 || pass_is_edge_op(ps) ||
           (stream_reads_blocks(ps) && mp_run_slot(&s->mp, ps->in.key, 0));
}

int stream_run_pass(streamer_t *s, orient_t *o, const pass_t *ps, gs_err_t *err)
{
    pass_run_t pr;
    int rc = pass_setup(s, ps, o, &pr, err);
    /* the memory plan sees the vertex tensors (the edge kinds' edge tensors stream) */
    xtensor_t reads[2] = {ps->in, ps->out}, writes[1 + APPLY_MAX_OPS] = {ps->out};
    int nr = ps->acc ? 2 : 1, nw = 1 + ps->napply;
    for (int q = 0; q < ps->napply; q++) writes[1 + q] = ps->apply[q].out;
    if (ps->kind == PASS_EDGE_GATHER) reads[0] = ps->out, nr = ps->acc;
    if (ps->kind == PASS_SCATTER) nr = 1, nw = 0;
    mp_run_op_begin(&s->mp, reads, nr, writes, nw);
    pr.naive = blocks_naive(s, ps);
    if (!rc && !pr.naive) rc = stream_ensure_groups(s, o, err);
    for (int r = 0; !rc && r * pr.nd < s->p; r++) {
        pr.round = r, pr.ra = r % pr.aslots, pr.loads = 0;
        for (int d = 0; d < pr.nd; d++) column_begin(s, &pr, r, d);
        rc = round_blocks(s, &pr, err);
        for (int d = 0; d < pr.nd; d++) column_end(s, &pr, d);
    }
    free(pr.order);
    return stream_pass_end(s, rc, err);
}

int stream_pass_aborted(const streamer_t *s, gs_err_t *err)
{
    if (s->abort_flag && atomic_load(s->abort_flag)) return gs_fail(err, GS_EFAIL, "interrupted");
    return GS_OK;
}

int stream_pass_end(streamer_t *s, int rc, gs_err_t *err)
{
    gs_err_t why;
    int synced = s->ops->sync(s->b, rc ? &why : err); /* the first failure stands */
    if (!rc) rc = synced;
    /* kept edge chunks given up during the pass: nothing in flight reads them now */
    if (s->edges.given_up && edge_store_held(&s->edges) > 0) edge_store_drop(&s->edges);
    mp_run_op_end(&s->mp, rc != 0);
    streamer_fold_overlap(s, 1);
    return rc;
}

static pass_t pass_of(const gather_call_t *c, phase_t phase)
{
    return (pass_t){c->agg, c->typed, c->in, c->out, c->f, c->acc, c->layer, phase, PASS_SUM, NULL, NULL, 0, 0, NULL, 0};
}

int streamer_gather(streamer_t *s, const gather_call_t *c, gs_err_t *err)
{
    pass_t ps = pass_of(c, PHASE_FWD);
    s->pass_id++;
    return s->kn.stream_order == SO_ROW ? stream_row_pass(s, &s->fwd, &ps, err) : stream_run_pass(s, &s->fwd, &ps, err);
}

int streamer_gather_bwd(streamer_t *s, const gather_call_t *c, gs_err_t *err)
{
    pass_t ps = pass_of(c, PHASE_BWD);
    s->pass_id++;
    return s->kn.stream_order == SO_ROW ? stream_row_pass(s, &s->bwd, &ps, err) : stream_run_pass(s, &s->bwd, &ps, err);
}
