/* stream_rowpass.c - a streamed pass in the row order (NeuGraph §3.1 and
 * Fig. 16's row-column strategy; --stream-order row): the input intervals
 * outermost. Each device loads an input interval once; then for each of
 * its output intervals it brings that interval's partial sums in from the
 * host (zeros at the first row, unless the pass accumulates), adds the
 * chunk's k sub-chunks, and sends the partial sums back. The column order
 * (stream_pass.c) instead loads every input block once per output
 * interval and keeps the accumulator. Per output row the blocks are added
 * in the same order as the column order's natural one, so the results are
 * bitwise equal. Limits: each device loads the rows itself (multidev,
 * selective scheduling and swap do not apply), and outputs are not kept on
 * the devices by the memory plan. */
#include "stream_pass.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const pass_t *ps;
    orient_t *o;
    int slots;
    float *src[TOPO_MAX_DEV][2], *acc[TOPO_MAX_DEV][2];
    char *ebuf[TOPO_MAX_DEV][2];
    const float *row_in[TOPO_MAX_DEV]; /* the input interval of this row on each device */
    int ev_src[TOPO_MAX_DEV][2];       /* the last gather reading a row slot */
    int ev_acc[TOPO_MAX_DEV][2];       /* the D2H of an accumulator slot */
    int ev_edge[TOPO_MAX_DEV][2];      /* the gather reading an edge slot */
    int nacc[TOPO_MAX_DEV], nedge[TOPO_MAX_DEV];
    int *col_ev; /* [P]: the D2H of each output interval's partial sums */
} row_run_t;

/* Carves two row buffers (an interval each), two accumulators and two
 * edge buffers from every device's region. */
static int row_setup(streamer_t *s, const pass_t *ps, orient_t *o, row_run_t *rr, gs_err_t *err)
{
    memset(rr, 0, sizeof *rr);
    rr->ps = ps, rr->o = o, rr->slots = s->kn.pipeline ? 2 : 1;
    int64_t max_out = 1;
    for (int i = 0; i < s->p; i++)
        max_out = s->bounds[i + 1] - s->bounds[i] > max_out ? s->bounds[i + 1] - s->bounds[i] : max_out;
    size_t src_floats = stream_round64((size_t)(max_out * ps->in.cols)),
           acc_floats = stream_round64((size_t)(max_out * ps->out.cols));
    size_t edge_floats = streamer_edge_need(o->max_nout, o->max_nnz, 1) / sizeof(float);
    for (int d = 0; d < TOPO_MAX_DEV; d++)
        for (int q = 0; q < 2; q++)
            rr->ev_src[d][q] = rr->ev_acc[d][q] = rr->ev_edge[d][q] = -1;
    int rc = streamer_reserve(s, sizeof(float) * 2 * (src_floats + acc_floats + edge_floats), err);
    if (rc) return rc;
    for (int d = 0; d < s->ndev; d++)
        for (int q = 0; q < 2; q++) {
            float *base = (float *)s->region[d];
            rr->acc[d][q] = base + q * acc_floats;
            rr->src[d][q] = base + 2 * acc_floats + q * src_floats;
            rr->ebuf[d][q] = (char *)(base + 2 * (acc_floats + src_floats) + q * edge_floats);
        }
    rr->col_ev = malloc(sizeof(int) * (size_t)s->p);
    if (!rr->col_ev) return gs_fail(err, GS_EFAIL, "out of memory");
    for (int j = 0; j < s->p; j++)
        rr->col_ev[j] = -1;
    return GS_OK;
}

/* Device d loads input interval i (for the output intervals it holds). */
static void load_row(streamer_t *s, row_run_t *rr, int d, int i)
{
    const pass_t *ps = rr->ps;
    int slot = i % rr->slots;
    int64_t lo = s->bounds[i], rows = s->bounds[i + 1] - lo;
    chunk_tag_t tag = {(int16_t)ps->layer, (int8_t)ps->phase, -1, -1, -1};
    if (ps->phase == PHASE_FWD)
        tag.row = i;
    else
        tag.col = i;
    if (rr->ev_src[d][slot] >= 0) s->ops->wait(s->b, d, LANE_H2D, rr->ev_src[d][slot]);
    double copied;
    rr->row_in[d] = mp_run_load(&s->mp, d, &ps->in, lo, rows, rr->src[d][slot], tag, &copied);
    s->ctr.gather_h2d_bytes += copied;
    s->ctr.full_blocks += s->k;
}

/* Output interval j's partial sums into an accumulator of device d:
 * zeroed at the first row of a fresh output, else copied in. */
static float *acc_begin(streamer_t *s, row_run_t *rr, int d, int i, int j, int *slot)
{
    const pass_t *ps = rr->ps;
    const backend_ops_t *ops = s->ops;
    int a = rr->nacc[d]++ % rr->slots;
    int64_t rows = s->bounds[j + 1] - s->bounds[j];
    float *acc = rr->acc[d][a];
    chunk_tag_t tag = {(int16_t)ps->layer, (int8_t)ps->phase, -1, j, -1};
    *slot = a;
    if (i > 0 || ps->acc) {
        if (rr->ev_acc[d][a] >= 0) ops->wait(s->b, d, LANE_H2D, rr->ev_acc[d][a]);
        ops->wait(s->b, d, LANE_H2D, rr->col_ev[j]);
        size_t bytes = sizeof(float) * (size_t)(rows * ps->out.cols);
        ops->copy(s->b, d, LANE_H2D, -1, acc, ps->out.data + s->bounds[j] * ps->out.cols, bytes, tag);
        s->ctr.gather_h2d_bytes += (double)bytes;
    } else {
        if (rr->ev_acc[d][a] >= 0) ops->wait(s->b, d, LANE_COMPUTE, rr->ev_acc[d][a]);
        kernel_call_t z = {.id = KERN_ZERO, .nd = rows, .out_cols = ps->out.cols, .out = acc};
        ops->launch(s->b, d, &z, tag);
    }
    return acc;
}

/* Row i, output interval j on device d: the partial sums in, the chunk's
 * k sub-chunks added, the partial sums back to the host. */
static int row_column(streamer_t *s, row_run_t *rr, int d, int i, int j, gs_err_t *err)
{
    const pass_t *ps = rr->ps;
    const backend_ops_t *ops = s->ops;
    int a, nb = s->nblocks;
    float *acc = acc_begin(s, rr, d, i, j, &a);
    for (int q = 0; q < s->k; q++) {
        int t = i * s->k + q;
        size_t at = (size_t)j * nb + t;
        const sub_t *u = &rr->o->sub[at];
        if (u->nnz == 0) continue;
        int e = rr->nedge[d]++ % rr->slots;
        chunk_tag_t tag = stream_block_tag(s, ps, t, j);
        if (rr->ev_edge[d][e] >= 0) ops->wait(s->b, d, LANE_H2D, rr->ev_edge[d][e]);
        edge_view_t ev;
        int rc = edge_load(s, d, rr->o, at, LIDX_FULL, ps->agg, ps->typed != TYPED_NONE, 0, rr->ebuf[d][e], tag, &ev, err);
        if (rc) return rc;
        ops->wait(s->b, d, LANE_COMPUTE, ops->record(s->b, d, LANE_H2D));
        const float *in = rr->row_in[d] + (s->blk_lo[t] - s->bounds[i]) * ps->in.cols;
        kernel_call_t kc = stream_chunk_call(s, ps, u, &ev, t, j, in, acc);
        ops->launch(s->b, d, &kc, tag);
        rr->ev_edge[d][e] = ops->record(s->b, d, LANE_COMPUTE);
    }
    int64_t rows = s->bounds[j + 1] - s->bounds[j];
    rr->ev_src[d][i % rr->slots] = ops->record(s->b, d, LANE_COMPUTE);
    ops->wait(s->b, d, LANE_D2H, rr->ev_src[d][i % rr->slots]);
    ops->copy(s->b, d, LANE_D2H, -1, ps->out.data + s->bounds[j] * ps->out.cols, acc,
              sizeof(float) * (size_t)(rows * ps->out.cols),
              (chunk_tag_t){(int16_t)ps->layer, (int8_t)ps->phase, -1, j, -1});
    rr->col_ev[j] = rr->ev_acc[d][a] = ops->record(s->b, d, LANE_D2H);
    mp_run_wrote(&s->mp, ps->out.key, d, s->bounds[j], rows, 0);
    return GS_OK;
}

int stream_row_pass(streamer_t *s, orient_t *o, const pass_t *ps, gs_err_t *err)
{
    row_run_t rr;
    int rc = row_setup(s, ps, o, &rr, err);
    xtensor_t reads[2] = {ps->in, ps->out};
    mp_run_op_begin(&s->mp, reads, ps->acc ? 2 : 1, &ps->out, 1);
    for (int i = 0; !rc && i < s->p; i++) {
        if ((rc = stream_pass_aborted(s, err))) break;
        for (int d = 0; d < s->ndev && d < s->p; d++)
            load_row(s, &rr, d, i);
        for (int j = 0; !rc && j < s->p; j++)
            rc = row_column(s, &rr, j % s->ndev, i, j, err);
    }
    free(rr.col_ev);
    return stream_pass_end(s, rc, err);
}
