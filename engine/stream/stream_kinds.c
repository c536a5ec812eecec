/* stream_kinds.c - what each kind of pass (stream_pass.h's pass_kind_t)
 * adds to the streamed pass of stream_pass.c: the kernel of a sub-chunk,
 * the per-edge rows that travel with its structure (attention scales,
 * edge-tensor rows), the max gather's winners beside a block, a scatter's
 * column start and its rows' way home; and the streamer's entry points
 * for the max and attention gathers and the plain programs' edge-tensor
 * ops, alone or as a scatter-gather pair (streamer.h). */
#include "stream_pass.h"

kernel_call_t stream_chunk_call(const streamer_t *s, const pass_t *ps, const sub_t *u, const edge_view_t *ev, int blk, int c,
                                const float *in, float *acc)
{
    static const kernel_id_t id[] = {[PASS_SUM] = KERN_CHUNK_GATHER,  [PASS_MAX] = KERN_CHUNK_MAX,
                                     [PASS_MAX_BWD] = KERN_CHUNK_MAX_BWD, [PASS_ATTN] = KERN_CHUNK_ATTN,
                                     [PASS_EDGE_GATHER] = KERN_CHUNK_EDGE_GATHER, [PASS_SCATTER] = KERN_CHUNK_SCATTER,
                                     [PASS_SAG] = KERN_CHUNK_GATHER};
    int one_flop = ps->kind == PASS_MAX || ps->kind == PASS_MAX_BWD || ps->kind == PASS_SCATTER; /* a compare or a scale an element */
    return (kernel_call_t){.id = id[ps->kind], .typed = ps->typed, .ptr = ev->ptr, .orow = ev->orow,
                           .lidx = ev->lidx, .w = ev->w, .etype = ev->etype, .nd = u->nout, .nnz = u->nnz,
                           .f = ps->f, .in_cols = ps->in.cols, .out_cols = ps->out.cols, .in = in, .out = acc,
                           .flops = (one_flop ? 1.0 : 2.0) * (double)u->nnz * ps->f,
                           .ids = ev->ids, .in_base = s->blk_lo[blk], .out_base = s->bounds[c]};
}

/* The kernel of a pass of one kernel a sub-chunk (stream_pass_launch). */
static kernel_call_t pass_kernel(const streamer_t *s, const pass_run_t *pr, int d, int slot, int blk, const sub_t *u,
                                 const edge_view_t *ev, const float *in)
{
    const pass_t *ps = pr->ps;
    kernel_call_t kc = stream_chunk_call(s, ps, u, ev, blk, pr->col[d], in, pr->acc[d]);
    kc.win = pr->waccs[d][pr->ra], kc.win_in = pr->wbuf[d][slot];
    if (ps->kind == PASS_ATTN) kc.att = pr->abuf[d][slot], kc.att_k = ps->att_k, kc.att_h = ps->f / ps->att_k;
    if (ps->kind == PASS_EDGE_GATHER) kc.in = pr->abuf[d][slot], kc.in_cols = ps->f;
    if (ps->kind == PASS_SCATTER) {
        kc.out = pr->abuf[d][slot], kc.out_cols = ps->f, kc.acc = ps->acc, kc.from_dst = ps->from_dst;
        if (ps->from_dst) kc.in = pr->acc[d];
    }
    return kc;
}

void stream_pass_launch(streamer_t *s, const pass_run_t *pr, int d, int slot, int blk, const sub_t *u, const edge_view_t *ev,
                        const float *in, chunk_tag_t tag)
{
    const pass_t *ps = pr->ps;
    if (ps->kind != PASS_SAG) {
        kernel_call_t kc = pass_kernel(s, pr, d, slot, blk, u, ev, in);
        s->ops->launch(s->b, d, &kc, tag);
        return;
    }
    /* the sub-chunk's edge rows from the block's rows into the slot, then summed into the column, in edge order */
    pass_t scatter = *ps, gather = *ps;
    scatter.kind = PASS_SCATTER, gather.kind = PASS_EDGE_GATHER;
    edge_view_t sv = *ev, gv = *ev;
    if (ps->phase == PHASE_BWD) gv.w = NULL; /* the weight where the host's ops apply it */
    else sv.w = NULL;
    kernel_call_t kc = stream_chunk_call(s, &scatter, u, &sv, blk, pr->col[d], in, pr->abuf[d][slot]);
    kc.out_cols = ps->f;
    s->ops->launch(s->b, d, &kc, tag);
    kc = stream_chunk_call(s, &gather, u, &gv, blk, pr->col[d], pr->abuf[d][slot], pr->acc[d]);
    kc.in_cols = ps->f;
    s->ops->launch(s->b, d, &kc, tag);
}

int stream_reads_blocks(const pass_t *ps)
{
    return ps->kind != PASS_EDGE_GATHER && !(ps->kind == PASS_SCATTER && ps->from_dst);
}

void stream_chunk_scales(streamer_t *s, pass_run_t *pr, int d, int slot, const sub_t *u, chunk_tag_t tag)
{
    const pass_t *ps = pr->ps;
    if (!pass_has_edge_rows(ps) || ps->kind == PASS_SAG || (ps->kind == PASS_SCATTER && !ps->acc))
        return; /* a scatter that writes reads none; PASS_SAG makes its own on the device */
    size_t row_bytes = sizeof(float) * (size_t)ps->att_k;
    const float *rows = ps->kind == PASS_SCATTER ? ps->out.data : ps->att; /* a scatter that adds reads its own rows first */
    s->ops->copy_rows(s->b, d, pr->abuf[d][slot], rows, row_bytes, u->eid, u->nnz, tag);
    s->ctr.gather_h2d_bytes += (double)(row_bytes * (size_t)u->nnz);
}

void stream_block_winners(streamer_t *s, pass_run_t *pr, int d, int slot, int blk, const int32_t *rows, int64_t nrows, int prev,
                          int pslot, chunk_tag_t tag)
{
    const pass_t *ps = pr->ps;
    if (ps->kind != PASS_MAX_BWD) return;
    size_t row_bytes = sizeof(int32_t) * (size_t)ps->in.cols;
    int64_t lo = s->blk_lo[blk], n = rows ? nrows : s->blk_lo[blk + 1] - lo;
    if (prev >= 0) s->ops->copy(s->b, d, LANE_D2D, prev, pr->wbuf[d][slot], pr->wbuf[prev][pslot], row_bytes * (size_t)n, tag);
    else if (rows) s->ops->copy_rows(s->b, d, pr->wbuf[d][slot], ps->win, row_bytes, rows, nrows, tag);
    else s->ops->copy(s->b, d, LANE_H2D, -1, pr->wbuf[d][slot], ps->win + lo * ps->in.cols, row_bytes * (size_t)n, tag);
    if (prev < 0) s->ctr.gather_h2d_bytes += (double)(row_bytes * (size_t)n);
}

void stream_scatter_begin(streamer_t *s, pass_run_t *pr, int d, int c, chunk_tag_t tag)
{
    const pass_t *ps = pr->ps;
    int ra = pr->ra;
    int64_t lo = s->bounds[c], rows = s->bounds[c + 1] - lo;
    pr->acc[d] = pr->accs[d][ra];
    if (!ps->from_dst) return;
    double copied;
    if (pr->ev_d2h[d][ra] >= 0) s->ops->wait(s->b, d, LANE_H2D, pr->ev_d2h[d][ra]);
    pr->acc[d] = (float *)mp_run_load(&s->mp, d, &ps->in, lo, rows, pr->accs[d][ra], tag, &copied);
    s->ctr.gather_h2d_bytes += copied;
}

void stream_scatter_home(streamer_t *s, pass_run_t *pr, int d, int slot, const sub_t *u, chunk_tag_t tag)
{
    const pass_t *ps = pr->ps;
    if (ps->kind != PASS_SCATTER) return;
    s->ops->wait(s->b, d, LANE_D2H, s->ops->record(s->b, d, LANE_COMPUTE));
    s->ops->copy_rows_out(s->b, d, ps->out.data, pr->abuf[d][slot], sizeof(float) * (size_t)ps->f, u->eid, u->nnz, tag);
    pr->ev_out[d][slot] = s->ops->record(s->b, d, LANE_D2H);
}

int streamer_gather_max(streamer_t *s, const graph_call_t *c, int backward, gs_err_t *err)
{
    pass_t ps = {AGG_ONE, TYPED_NONE, c->in, c->out, c->f, backward ? c->acc : 0, c->layer, backward ? PHASE_BWD : PHASE_FWD,
                 backward ? PASS_MAX_BWD : PASS_MAX, c->argmax, NULL, 0, 0, NULL, 0};
    s->pass_id++; /* the row order's partial sums would carry winners too: a max gather keeps the column order */
    return stream_run_pass(s, backward ? &s->bwd : &s->fwd, &ps, err);
}

int streamer_gather_attn(streamer_t *s, const graph_call_t *c, int backward, gs_err_t *err)
{
    if (!(s->fields & SUB_EIDS)) return gs_fail(err, GS_EFAIL, "internal: the sub-chunks hold no edge ids for an attention gather");
    pass_t ps = {AGG_ONE, TYPED_NONE, c->in, c->out, c->f, backward ? c->acc : 0, c->layer, backward ? PHASE_BWD : PHASE_FWD,
                 PASS_ATTN, NULL, c->att, c->heads, 0, NULL, 0};
    s->pass_id++; /* column order (see streamer_gather_max) */
    return stream_run_pass(s, backward ? &s->bwd : &s->fwd, &ps, err);
}

int streamer_edge_op(streamer_t *s, const graph_call_t *c, int backward, gs_err_t *err)
{
    if (!(s->fields & SUB_EIDS)) return gs_fail(err, GS_EFAIL, "internal: the sub-chunks hold no edge ids for an edge-tensor op");
    op_kind_t op = c->op;
    /* forward scatters and the gather's backward write edge rows; the rest read them */
    int scatter = backward ? op == OP_GATHER_EDGE : op != OP_GATHER_EDGE;
    pass_t ps = {op == OP_GATHER_EDGE ? c->agg : AGG_ONE, TYPED_NONE, c->in, c->out, c->f, backward ? c->acc : 0, c->layer,
                 backward ? PHASE_BWD : PHASE_FWD, scatter ? PASS_SCATTER : PASS_EDGE_GATHER, NULL, NULL, c->f,
                 op != OP_SCATTER_SRC, NULL, 0};
    if (!scatter) ps.att = c->in.data;
    /* by destination (the CSC chunks), but for the source scatter's gradient: a sum over each source's out-edges (CSR) */
    orient_t *o = backward && op == OP_SCATTER_SRC ? &s->bwd : &s->fwd;
    s->pass_id++;
    return stream_run_pass(s, o, &ps, err);
}

int streamer_sag(streamer_t *s, const graph_call_t *c, int backward, gs_err_t *err)
{
    pass_t ps = {c->agg, TYPED_NONE, c->in, c->out, c->f, backward ? c->acc : 0, c->layer, backward ? PHASE_BWD : PHASE_FWD,
                 PASS_SAG, NULL, NULL, c->f, 0, NULL, 0};
    s->pass_id++; /* column order (see streamer_gather_max) */
    return stream_run_pass(s, backward ? &s->bwd : &s->fwd, &ps, err);
}
