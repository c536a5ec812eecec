/* stream_chain.c - chain and ring streaming (stream_pass.h; NeuGraph
 * §3.3, NGra §4.2). Chain: the devices under one switch form a group, a
 * block enters each group once from the host and is passed down the group
 * device to device, as far as the last device whose column uses it. Ring:
 * NGra's schedule (stream_ring_round). With selective scheduling a passed
 * block carries the union of the rows its group's columns use. */
#include "stream_pass.h"

#include <stdlib.h>
#include <string.h>

/* The groups of devices a block is passed along, first loader first:
 * chain, the devices under each switch; ring, every device in one ring. */
static int block_sequences(const streamer_t *s, int seq[][TOPO_MAX_DEV], int *len)
{
    int nseq = 0;
    if (s->kn.multidev == MD_RING) {
        len[0] = s->ndev;
        for (int q = 0; q < s->ndev; q++) seq[0][q] = q;
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

/* Each device's group: the devices a block is passed along (chain: one
 * switch's; ring: all). Returns the number of groups. */
static int device_groups(const streamer_t *s, int *gid)
{
    int seq[TOPO_MAX_DEV][TOPO_MAX_DEV], len[TOPO_MAX_DEV];
    int n = block_sequences(s, seq, len);
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
        if (!u || u->nnz == 0 || !(s->fields & SUB_KERNEL_ARRAYS)) continue;
        u->lidx_grp = malloc(sizeof(int32_t) * (size_t)u->nnz);
        if (!u->lidx_grp) rc = -1;
        for (int64_t e = 0; !rc && e < u->nnz; e++) u->lidx_grp[e] = mark[u->lidx_full[e]];
    }
    for (int64_t i = 0; i < rs->nrows; i++) mark[rs->rows[i] - lo] = -1;
    return rc;
}

int stream_ensure_groups(streamer_t *s, orient_t *o, gs_err_t *err)
{
    if (s->kn.selective == SEL_OFF || (o->grp && o->grp_mode == (int)s->kn.multidev)) return GS_OK;
    streamer_free_groups(s, o);
    int gid[TOPO_MAX_DEV], ng = device_groups(s, gid), rounds = streamer_rounds(s), rc = 0;
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
    streamer_free_groups(s, o);
    return gs_fail(err, GS_EFAIL, "out of memory sharing %d chunks' rows among device groups", s->p);
}

int stream_hop(streamer_t *s, pass_run_t *pr, int d, int t, int slot, int prev, int pslot, const rowset_t *rs, int filt,
               gs_err_t *err)
{
    const pass_t *ps = pr->ps;
    const backend_ops_t *ops = s->ops;
    int nb = pr->nb;
    int64_t lo = s->blk_lo[t], rows = s->blk_lo[t + 1] - lo;
    size_t bytes = sizeof(float) * (size_t)((filt ? rs->nrows : rows) * ps->in.cols);
    lane_t lane = prev < 0 ? LANE_H2D : LANE_D2D;
    chunk_tag_t tag = stream_block_tag(s, ps, t, pr->col[d]);
    if (pr->ev_comp[d][slot] >= 0) ops->wait(s->b, d, lane, pr->ev_comp[d][slot]);
    if (pr->ev_fwd[d][slot] >= 0) ops->wait(s->b, d, lane, pr->ev_fwd[d][slot]);
    if (!s->kn.pipeline && pr->ev_comp[d][!slot] >= 0) ops->wait(s->b, d, lane, pr->ev_comp[d][!slot]); /* no overlap */
    if (prev < 0) {
        if (filt)
            ops->copy_rows(s->b, d, pr->buf[d][slot], ps->in.data, sizeof(float) * (size_t)ps->in.cols, rs->rows, rs->nrows, tag);
        else ops->copy(s->b, d, LANE_H2D, -1, pr->buf[d][slot], ps->in.data + lo * ps->in.cols, bytes, tag);
        s->ctr.gather_h2d_bytes += (double)bytes;
        mp_run_count(&s->mp, ps->in.key, (double)bytes);
    } else {
        ops->wait(s->b, d, LANE_D2D, pr->ev_ready[prev][pslot]);
        ops->copy(s->b, d, LANE_D2D, prev, pr->buf[d][slot], pr->buf[prev][pslot], bytes, tag);
    }
    stream_block_winners(s, pr, d, slot, t, filt ? rs->rows : NULL, filt ? rs->nrows : 0, prev, pslot, tag);
    if (prev >= 0) pr->ev_fwd[prev][pslot] = ops->record(s->b, d, LANE_D2D);
    pr->ev_ready[d][slot] = ops->record(s->b, d, lane);
    if (filt) s->ctr.filtered_blocks++;
    else s->ctr.full_blocks++;
    size_t at = (size_t)pr->col[d] * nb + t;
    const sub_t *u = pr->col[d] >= 0 ? &pr->o->sub[at] : NULL;
    if (!u || u->nnz == 0) return GS_OK;
    edge_view_t ev; /* its own sub-chunk's structure comes from the host, into the slot the last compute freed */
    if (lane != LANE_H2D && pr->ev_comp[d][slot] >= 0) ops->wait(s->b, d, LANE_H2D, pr->ev_comp[d][slot]);
    int rc = stream_chunk_edges(s, pr, d, at, filt ? LIDX_GRP : LIDX_FULL, slot, tag, &ev, err);
    if (rc) return rc;
    stream_chunk_scales(s, pr, d, slot, u, tag);
    ops->wait(s->b, d, LANE_COMPUTE, pr->ev_ready[d][slot]);
    ops->wait(s->b, d, LANE_COMPUTE, ops->record(s->b, d, LANE_H2D));
    stream_pass_launch(s, pr, d, slot, t, u, &ev, pr->buf[d][slot], tag);
    pr->ev_comp[d][slot] = ops->record(s->b, d, LANE_COMPUTE);
    return GS_OK;
}

/* The rows of block t its group qs carries, and whether they are filtered. */
static const rowset_t *carried(const streamer_t *s, const pass_run_t *pr, int t, int qs, int *filt)
{
    const orient_t *o = pr->o;
    const rowset_t *rs = o->grp ? &o->grp[((size_t)pr->round * pr->nb + t) * o->grp_n + qs] : NULL;
    *filt = rs && rs->nrows > 0 && stream_use_filter(s, rs->nrows, s->blk_lo[t + 1] - s->blk_lo[t]);
    return rs;
}

int stream_chained_step(streamer_t *s, pass_run_t *pr, int t, gs_err_t *err)
{
    const orient_t *o = pr->o;
    int seq[TOPO_MAX_DEV][TOPO_MAX_DEV], len[TOPO_MAX_DEV], slot = pr->loads % pr->slots, nb = pr->nb, rc = GS_OK, loaded = 0;
    int nseq = block_sequences(s, seq, len);
    for (int qs = 0; qs < nseq && !rc; qs++) {
        int last = -1, filt;
        for (int q = 0; q < len[qs]; q++) {
            int d = seq[qs][q];
            if (pr->col[d] >= 0 && o->sub[(size_t)pr->col[d] * nb + t].nnz > 0) last = q;
        }
        const rowset_t *rs = carried(s, pr, t, qs, &filt);
        for (int q = 0; q <= last && !rc; q++) rc = stream_hop(s, pr, seq[qs][q], t, slot, q ? seq[qs][q - 1] : -1, slot, rs, filt, err);
        loaded |= last >= 0;
    }
    pr->loads += loaded; /* a block no column of the round reads takes no slot */
    return rc;
}

/* How many devices of the ring block t visits when it enters at device
 * d: as far as the farthest one, in ring order from d, whose column this
 * round reads t (0: none does). NGra streams the chunks a column has
 * edges in; a block no later device reads goes no farther, and one no
 * column of the round reads is not loaded (on a sparse grid the ring had
 * loaded every block for every round, more than naive's own blocks). */
static int ring_reach(const pass_run_t *pr, int t, int d)
{
    int reach = 0;
    for (int q = 0; q < pr->nd; q++) {
        int e = (d + q) % pr->nd;
        if (pr->col[e] >= 0 && pr->o->sub[(size_t)pr->col[e] * pr->nb + t].nnz > 0) reach = q + 1;
    }
    return reach;
}

/* NGra §4.2, Fig. 8: one device per switch loads (the maximal-bandwidth
 * fat tree); in each step every device takes the block its predecessor in
 * the ring held in the step before, until the block has reached the last
 * device that reads it (ring_reach), and a loader whose predecessor has
 * nothing to pass loads the next block some device reads. Two of the
 * device's block buffers (a step receives into one while its successor
 * copies out of the other). */
int stream_ring_round(streamer_t *s, pass_run_t *pr, gs_err_t *err)
{
    int nd = pr->nd, hold[TOPO_MAX_DEV], left[TOPO_MAX_DEV], now[TOPO_MAX_DEV], rem[TOPO_MAX_DEV], loader[TOPO_MAX_DEV];
    int next = 0, done = 0, rc = GS_OK;
    for (int d = 0; d < nd; d++) {
        hold[d] = -1, left[d] = 0;
        loader[d] = d == 0 || (s->topo && s->topo->group[d] != s->topo->group[d - 1]);
    }
    for (int step = 0; done < pr->nb && !rc; step++) {
        if ((rc = stream_pass_aborted(s, err))) break;
        for (int d = 0; d < nd && !rc; d++) {
            int p = (d + nd - 1) % nd, filt;
            now[d] = -1;
            if (hold[p] >= 0 && left[p] > 1) now[d] = hold[p], rem[d] = left[p] - 1;
            else if (loader[d]) {
                while (next < pr->nb && (rem[d] = ring_reach(pr, next, d)) == 0) next++, done++; /* read by no column */
                if (next < pr->nb) now[d] = next++, p = -1;
            }
            if (now[d] < 0) continue;
            const rowset_t *rs = carried(s, pr, now[d], 0, &filt);
            rc = stream_hop(s, pr, d, now[d], step % 2, p, (step + 1) % 2, rs, filt, err);
            done += rem[d] == 1;
        }
        for (int d = 0; d < nd; d++) hold[d] = now[d], left[d] = now[d] >= 0 ? rem[d] : 0;
    }
    return rc;
}
