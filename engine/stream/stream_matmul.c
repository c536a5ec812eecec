/* stream_matmul.c - the ApplyVertex matmuls of a streamed run, on the
 * backend's devices (NeuGraph §3: vertex chunks stream through the GPU).
 * Each interval's rows (the cut in force: ROC deals a part's whole layer
 * to one device) go to the device that gathers its column, in blocks the
 * size of the streamer's largest (fewer rows when that does not fit the
 * device cap); each device holds the weight and, per pipeline slot, one block
 * of inputs and outputs, so a block's H2D overlaps the previous block's
 * gemm and its D2H the next one's.
 * Backward: each block's input gradient goes back to the host, and each
 * device sums its blocks' weight gradients; the partial sums are then
 * all-reduced across the devices with a ring (reduce-scatter, then
 * all-gather, device-to-device), and device 0's copy goes to the host
 * optimiser.
 * Inputs the memory plan keeps on a device are read from its copy there,
 * and outputs it keeps are written into it (memplan_run.c).
 * A forward product in a chain of ApplyVertex ops after a gather runs with
 * that gather instead, column by column (stream_apply.c).
 * Limits: every output goes back to the host, where the elementwise ops
 * of the backward pass run. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "streamer.h"

static size_t round64(size_t floats) { return (floats + 63) & ~(size_t)63; }

/* What a pass keeps on each device: the weight (when it multiplies), the
 * weight gradient and the ring's receive segment (backward), and per slot
 * a block of rows of a, of y or dy, and of da (when wanted). */
typedef struct {
    int64_t c, f, rows; /* rows per block */
    int w, dw, da, ndev;
} mm_need_t;

typedef struct {
    float *w, *dw, *recv, *a[2], *y[2], *da[2];
} mm_bufs_t;

static size_t seg_floats(const mm_need_t *n) { return n->dw && n->ndev > 1 ? round64((size_t)(n->c * n->f / n->ndev + 1)) : 0; }

static size_t slot_floats(const mm_need_t *n)
{
    return round64((size_t)(n->rows * n->c)) * (1 + (n->da != 0)) + round64((size_t)(n->rows * n->f));
}

static size_t need_bytes(const mm_need_t *n)
{
    size_t wf = round64((size_t)(n->c * n->f));
    return sizeof(float) * (wf * (size_t)(n->w + n->dw) + seg_floats(n) + 2 * slot_floats(n));
}

uint64_t streamer_matmul_working_set(int64_t n, int p, int k, int64_t c, int64_t f)
{
    (void)p, (void)k; /* a matmul's blocks shrink to fit: one row is the least it needs */
    mm_need_t need = {c, f, n > 0 ? 1 : 0, 1, 1, 1, TOPO_MAX_DEV};
    return need_bytes(&need) + 256;
}

/* Picks the block rows (the streamer's blocks, or fewer rows when those do
 * not fit the device cap) and carves the buffers from each region. */
static int carve(streamer_t *s, mm_need_t *n, mm_bufs_t *m, gs_err_t *err)
{
    uint64_t cap = s->ops->capacity(s->b, 0);
    n->ndev = s->ndev;
    n->rows = streamer_max_block(s);
    while (cap && n->rows > 1 && need_bytes(n) + 256 > cap) n->rows = n->rows * 3 / 4;
    int rc = streamer_reserve(s, need_bytes(n), err);
    size_t wf = round64((size_t)(n->c * n->f)), a = round64((size_t)(n->rows * n->c)), y = round64((size_t)(n->rows * n->f));
    for (int d = 0; !rc && d < s->ndev; d++) {
        float *r = (float *)s->region[d];
        m[d].w = n->w ? r : NULL;
        r += n->w ? wf : 0;
        m[d].dw = n->dw ? r : NULL;
        r += n->dw ? wf : 0;
        m[d].recv = r;
        r += seg_floats(n);
        for (int q = 0; q < 2; q++, r += slot_floats(n)) m[d].a[q] = r, m[d].y[q] = r + a, m[d].da[q] = n->da ? r + a + y : NULL;
    }
    return rc;
}

/* A block of rows is tagged (row = block, col = -1); the weight's
 * transfers and the all-reduce carry no block (row = -1). */
static chunk_tag_t tag_of(int layer, phase_t phase, int blk)
{
    return (chunk_tag_t){(int16_t)layer, (int8_t)phase, blk, -1, -1};
}

/* Per device and buffer slot: the last event of its gemm and of its D2H
 * (-1: none yet), which the slot's next block must wait for. */
typedef struct {
    int comp[TOPO_MAX_DEV][2], d2h[TOPO_MAX_DEV][2];
} slot_events_t;

static slot_events_t slot_events_none(void)
{
    slot_events_t e;
    for (int d = 0; d < TOPO_MAX_DEV; d++) e.comp[d][0] = e.comp[d][1] = e.d2h[d][0] = e.d2h[d][1] = -1;
    return e;
}

/* A block of rows: its device and pipeline slot. */
typedef struct {
    int dev, slot;
    int64_t lo, rows;
} mm_block_t;

/* A matmul's blocks, in launch order, and its slots' last events. */
typedef struct {
    mm_block_t *k;
    int n;
    slot_events_t ev;
} mm_blocks_t;

/* The blocks of a matmul (ROC: each part's whole layer on its device):
 * each interval's rows, cut as the gathers' columns are, in blocks of at
 * most R rows on the device that gathers that column (c % ndev,
 * stream_pass.c), dealt in rounds (every device's j-th block, then the
 * (j+1)-th) so that the devices work at once. Each block's interval goes
 * to s->mm_part (the partitioner's samples). out->k is the caller's to free. */
static int plan_blocks(streamer_t *s, int64_t R, int slots, mm_blocks_t *out, gs_err_t *err)
{
    out->ev = slot_events_none(), out->k = NULL, out->n = 0;
    int nd = s->ndev, total = 0, rounds = 0, per[TOPO_MAX_DEV] = {0}, iv[TOPO_MAX_DEV];
    int64_t at[TOPO_MAX_DEV];
    for (int i = 0; i < s->p; i++) per[i % nd] += (int)((s->bounds[i + 1] - s->bounds[i] + R - 1) / R);
    for (int d = 0; d < nd; d++) total += per[d], rounds = per[d] > rounds ? per[d] : rounds;
    mm_block_t *k = malloc(sizeof *k * (size_t)(total + 1));
    int32_t *part = realloc(s->mm_part, sizeof *part * (size_t)(total + 1));
    if (part) s->mm_part = part;
    if (!k || !part) {
        free(k);
        return gs_fail(err, GS_EFAIL, "out of memory planning a matmul's blocks");
    }
    for (int d = 0; d < nd; d++) iv[d] = d, at[d] = d < s->p ? s->bounds[d] : 0;
    int n = 0;
    for (int j = 0; j < rounds; j++)
        for (int d = 0; d < nd; d++) {
            while (iv[d] < s->p && at[d] >= s->bounds[iv[d] + 1]) /* past this interval: the device's next one */
                if ((iv[d] += nd) < s->p) at[d] = s->bounds[iv[d]];
            if (iv[d] >= s->p) continue;
            int64_t hi = at[d] + R < s->bounds[iv[d] + 1] ? at[d] + R : s->bounds[iv[d] + 1];
            k[n] = (mm_block_t){d, j % slots, at[d], hi - at[d]};
            part[n++] = iv[d];
            at[d] = hi;
        }
    s->mm_nblocks = n;
    out->k = k, out->n = n;
    return GS_OK;
}

/* Fails when the run is interrupted (checked before each block). */
static int interrupted(const streamer_t *s, gs_err_t *err)
{
    return s->abort_flag && atomic_load(s->abort_flag) ? gs_fail(err, GS_EFAIL, "interrupted") : GS_OK;
}

static void launch_gemm(streamer_t *s, int d, int ta, int tb, int64_t m, int64_t n, int64_t k, const float *a,
                        const float *b, float *c, int acc, chunk_tag_t tag)
{
    kernel_call_t kc = {.id = KERN_GEMM, .trans_a = ta, .trans_b = tb, .acc = acc, .m = m, .n = n, .k = k, .a = a,
                        .b = b, .out = c, .flops = 2.0 * (double)m * (double)n * (double)k};
    s->ops->launch(s->b, d, &kc, tag);
}

/* Sends the weight to every device; the compute lanes wait for it. */
static void broadcast_weight(streamer_t *s, const mm_bufs_t *m, const float *w, size_t bytes, chunk_tag_t tag)
{
    for (int d = 0; d < s->ndev; d++) {
        s->ops->copy(s->b, d, LANE_H2D, -1, m[d].w, w, bytes, tag);
        s->ops->wait(s->b, d, LANE_COMPUTE, s->ops->record(s->b, d, LANE_H2D));
    }
}

int streamer_matmul(streamer_t *s, const matmul_call_t *mc, gs_err_t *err)
{
    const backend_ops_t *ops = s->ops;
    backend_t *b = s->b;
    mm_bufs_t m[TOPO_MAX_DEV];
    int64_t c = mc->a.cols, f = mc->f;
    int layer = mc->layer;
    float *out = mc->out.data;
    mm_need_t need = {c, f, 0, 1, 0, 0, 0};
    int slots = s->kn.pipeline ? 2 : 1, rc = carve(s, &need, m, err);
    if (rc) return rc;
    mp_run_op_begin(&s->mp, &mc->a, 1, &mc->out, 1);
    broadcast_weight(s, m, mc->w, sizeof(float) * (size_t)(c * f), tag_of(layer, PHASE_FWD, -1));
    mm_blocks_t bl;
    rc = plan_blocks(s, need.rows, slots, &bl, err);
    slot_events_t *ev = &bl.ev;
    for (int t = 0; !rc && t < bl.n && !(rc = interrupted(s, err)); t++) {
        int d = bl.k[t].dev, q = bl.k[t].slot;
        int64_t lo = bl.k[t].lo, rows = bl.k[t].rows;
        chunk_tag_t tag = tag_of(layer, PHASE_FWD, t);
        double copied;
        ops->wait(b, d, LANE_H2D, ev->comp[d][q]); /* the slot's last gemm has read its input */
        const float *ad = mp_run_load(&s->mp, d, &mc->a, lo, rows, m[d].a[q], tag, &copied);
        ops->wait(b, d, LANE_COMPUTE, ops->record(b, d, LANE_H2D));
        ops->wait(b, d, LANE_COMPUTE, ev->d2h[d][q]); /* the slot's last output has left */
        float *kept = mp_run_slot(&s->mp, mc->out.key, d), *y = kept ? kept + lo * f : m[d].y[q];
        launch_gemm(s, d, 0, 0, rows, f, c, ad, m[d].w, y, 0, tag);
        ev->comp[d][q] = ops->record(b, d, LANE_COMPUTE);
        ops->wait(b, d, LANE_D2H, ev->comp[d][q]);
        ops->copy(b, d, LANE_D2H, -1, out + lo * f, y, sizeof(float) * (size_t)(rows * f), tag);
        ev->d2h[d][q] = ops->record(b, d, LANE_D2H);
        mp_run_wrote(&s->mp, mc->out.key, d, lo, rows, kept != NULL);
    }
    gs_err_t why;
    int synced = ops->sync(b, rc ? &why : err); /* the first failure stands */
    if (!rc) rc = synced;
    free(bl.k); /* after the sync: the hook has read every block's interval */
    mp_run_op_end(&s->mp, rc != 0);
    streamer_fold_overlap(s, 0);
    return rc;
}

/* Ring all-reduce of every device's dw (n floats): after it, each holds
 * the sum. Step i of the reduce-scatter has device d send segment d - i to
 * d + 1, which adds it in; the all-gather then passes the finished
 * segments on, copied in place. */
static void ring_allreduce(streamer_t *s, const mm_bufs_t *m, int64_t n, int layer)
{
    const backend_ops_t *ops = s->ops;
    backend_t *b = s->b;
    int nd = s->ndev, ready[TOPO_MAX_DEV];
    chunk_tag_t tag = tag_of(layer, PHASE_BWD, -1);
    for (int d = 0; d < nd; d++) ready[d] = ops->record(b, d, LANE_COMPUTE);
    for (int phase = 0; phase < 2; phase++)
        for (int i = 0; i < nd - 1; i++) {
            int next[TOPO_MAX_DEV];
            for (int d = 0; d < nd; d++) {
                int to = (d + 1) % nd, seg = ((d + phase - i) % nd + nd) % nd;
                int64_t lo = n * seg / nd, hi = n * (seg + 1) / nd;
                size_t bytes = sizeof(float) * (size_t)(hi - lo);
                ops->wait(b, to, LANE_D2D, ready[d]);  /* the segment is final on the sender */
                ops->wait(b, to, LANE_D2D, ready[to]); /* the receiver is done with its buffer */
                if (phase == 0) {
                    ops->copy(b, to, LANE_D2D, d, m[to].recv, m[d].dw + lo, bytes, tag);
                    ops->wait(b, to, LANE_COMPUTE, ops->record(b, to, LANE_D2D));
                    kernel_call_t add = {.id = KERN_ADD, .m = hi - lo, .in = m[to].recv, .out = m[to].dw + lo,
                                         .flops = (double)(hi - lo)};
                    ops->launch(b, to, &add, tag);
                    next[to] = ops->record(b, to, LANE_COMPUTE);
                } else {
                    ops->copy(b, to, LANE_D2D, d, m[to].dw + lo, m[d].dw + lo, bytes, tag);
                    next[to] = ops->record(b, to, LANE_D2D);
                }
            }
            for (int d = 0; d < nd; d++) ready[d] = next[d];
        }
    ops->wait(b, 0, LANE_D2H, ready[0]);
}

int streamer_matmul_bwd(streamer_t *s, const matmul_call_t *mc, gs_err_t *err)
{
    const backend_ops_t *ops = s->ops;
    backend_t *b = s->b;
    mm_bufs_t m[TOPO_MAX_DEV];
    int64_t c = mc->a.cols, f = mc->f;
    int layer = mc->layer, acc_a = mc->acc_a, acc_w = mc->acc_w;
    float *da = mc->da.data, *dw = mc->dw;
    mm_need_t need = {c, f, 0, da != NULL, dw != NULL, da != NULL, 0};
    int nd = s->ndev, slots = s->kn.pipeline ? 2 : 1, rc = carve(s, &need, m, err);
    if (rc) return rc;
    xtensor_t reads[3] = {mc->dy};
    int nr = 1;
    if (dw) reads[nr++] = mc->a;
    if (da && acc_a) reads[nr++] = mc->da;
    mp_run_op_begin(&s->mp, reads, nr, &mc->da, da != NULL);
    size_t wbytes = sizeof(float) * (size_t)(c * f);
    chunk_tag_t wtag = tag_of(layer, PHASE_BWD, -1);
    if (da) broadcast_weight(s, m, mc->w, wbytes, wtag);
    for (int d = 0; d < nd; d++) { /* partial sums start at zero, device 0's at dw when adding to it */
        if (dw && acc_w && d == 0) {
            ops->copy(b, 0, LANE_H2D, -1, m[0].dw, dw, wbytes, wtag);
            ops->wait(b, 0, LANE_COMPUTE, ops->record(b, 0, LANE_H2D));
        } else if (dw) {
            kernel_call_t z = {.id = KERN_ZERO, .nd = c, .out_cols = f, .out = m[d].dw};
            ops->launch(b, d, &z, wtag);
        }
    }
    mm_blocks_t bl;
    rc = plan_blocks(s, need.rows, slots, &bl, err);
    slot_events_t *ev = &bl.ev;
    for (int t = 0; !rc && t < bl.n && !(rc = interrupted(s, err)); t++) {
        int d = bl.k[t].dev, q = bl.k[t].slot;
        int64_t lo = bl.k[t].lo, rows = bl.k[t].rows;
        chunk_tag_t tag = tag_of(layer, PHASE_BWD, t);
        double copied;
        ops->wait(b, d, LANE_H2D, ev->comp[d][q]);
        if (da && acc_a) ops->wait(b, d, LANE_H2D, ev->d2h[d][q]); /* da's slot is refilled when adding */
        const float *dyd = mp_run_load(&s->mp, d, &mc->dy, lo, rows, m[d].y[q], tag, &copied);
        const float *ad = dw ? mp_run_load(&s->mp, d, &mc->a, lo, rows, m[d].a[q], tag, &copied) : NULL;
        float *kept = da ? mp_run_slot(&s->mp, mc->da.key, d) : NULL, *dad = kept ? kept + lo * c : m[d].da[q];
        if (da && acc_a) mp_run_load(&s->mp, d, &mc->da, lo, rows, dad, tag, &copied);
        ops->wait(b, d, LANE_COMPUTE, ops->record(b, d, LANE_H2D));
        ops->wait(b, d, LANE_COMPUTE, ev->d2h[d][q]);
        if (da) launch_gemm(s, d, 0, 1, rows, c, f, dyd, m[d].w, dad, acc_a, tag);
        if (dw) launch_gemm(s, d, 1, 0, c, f, rows, ad, dyd, m[d].dw, 1, tag);
        ev->comp[d][q] = ops->record(b, d, LANE_COMPUTE);
        if (!da) continue;
        ops->wait(b, d, LANE_D2H, ev->comp[d][q]);
        ops->copy(b, d, LANE_D2H, -1, da + lo * c, dad, sizeof(float) * (size_t)(rows * c), tag);
        ev->d2h[d][q] = ops->record(b, d, LANE_D2H);
        mp_run_wrote(&s->mp, mc->da.key, d, lo, rows, kept != NULL);
    }
    if (dw && !rc) {
        if (nd > 1) ring_allreduce(s, m, c * f, layer);
        else ops->wait(b, 0, LANE_D2H, ops->record(b, 0, LANE_COMPUTE));
        ops->copy(b, 0, LANE_D2H, -1, dw, m[0].dw, wbytes, wtag);
    }
    gs_err_t why;
    int synced = ops->sync(b, rc ? &why : err); /* the first failure stands */
    if (!rc) rc = synced;
    free(bl.k); /* after the sync: the hook has read every block's interval */
    mp_run_op_end(&s->mp, rc != 0);
    streamer_fold_overlap(s, 0);
    return rc;
}
