/* stream_apply.c - ApplyVertex on the devices in the column order
 * (NeuGraph §3.2): the ops that follow a forward sum gather, each reading
 * the one before (a product, a bias, an activation, dropout, the next
 * layer's product), run on each column's device on its finished
 * accumulator; the outputs read past the chain (by the next gather, the
 * loss, a backward rule) go home, the rest stay on the device. Each device holds the ops' parameters
 * (sent once a pass) and one column of each op's output; a column's output
 * waits for the last column's copy home before it is overwritten. The ops
 * run while the accumulator goes home (with --pipeline off, after).
 * Limits: forward only (the backward pass streams the products' inputs
 * from the host); a chain stops at an op the backend has no kernel for, or
 * where its buffers would not fit the device cap beside the gather's and
 * the kept edge chunks (P is never raised for them) or, under a memory
 * plan (--memplan lru|roc), past the room apply_room.c gives them beside
 * the plan's kept tensors; the row order runs none (its
 * sums are partial until the last row); the stage order runs the chain
 * on the accumulator swapped back in from the host (stage_swap_in). */
#include "stream_pass.h"

/* Floats of op q's parameter (a product's weight, a bias; 0: none). */
static size_t param_floats(const pass_t *ps, int q)
{
    const apply_op_t *op = &ps->apply[q];
    int64_t in_cols = stream_apply_in_cols(ps, q);
    return (size_t)(op->is_matmul ? in_cols * op->m.f : op->param_floats);
}

size_t stream_apply_floats(const pass_t *ps, int64_t max_out)
{
    size_t n = 0;
    for (int q = 0; q < ps->napply; q++) n += stream_round64(param_floats(ps, q)) + stream_round64((size_t)(max_out * ps->apply[q].out.cols));
    return n;
}

void stream_apply_setup(streamer_t *s, pass_run_t *pr, size_t at_floats, int64_t max_out)
{
    const pass_t *ps = pr->ps;
    for (int d = 0; d < s->ndev; d++) {
        float *r = (float *)s->region[d] + at_floats;
        for (int q = 0; q < ps->napply; q++) {
            const apply_op_t *op = &ps->apply[q];
            size_t pf = param_floats(ps, q);
            pr->param[d][q] = pf ? r : NULL, r += stream_round64(pf);
            pr->y[d][q] = r, r += stream_round64((size_t)(max_out * op->out.cols));
            pr->ev_y[d][q] = -1;
            if (!pf) continue;
            chunk_tag_t tag = {(int16_t)(op->is_matmul ? op->m.layer : -1), (int8_t)PHASE_FWD, -1, -1, -1};
            const float *host = op->is_matmul ? op->m.w : op->e.b;
            s->ops->copy(s->b, d, LANE_H2D, -1, pr->param[d][q], host, sizeof(float) * pf, tag);
        }
        s->ops->wait(s->b, d, LANE_COMPUTE, s->ops->record(s->b, d, LANE_H2D));
    }
}

/* Op q's kernel over the column's rows [lo, lo + rows): from in (its device rows) into y. */
static kernel_call_t op_kernel(const pass_run_t *pr, int d, int q, const float *in, int64_t in_cols, int64_t lo, int64_t rows,
                               float *y)
{
    const apply_op_t *op = &pr->ps->apply[q];
    if (op->is_matmul)
        return (kernel_call_t){.id = KERN_GEMM, .m = rows, .n = op->m.f, .k = in_cols, .a = in, .b = pr->param[d][q], .out = y,
                               .flops = 2.0 * (double)rows * (double)op->m.f * (double)in_cols};
    kernel_call_t kc = {.id = KERN_EW, .ew = op->e, .flops = (double)(rows * op->out.cols)};
    kc.ew.a = in, kc.ew.b = pr->param[d][q], kc.ew.out = y, kc.ew.rows = rows, kc.ew.row0 = lo;
    return kc;
}

/* The stage order (NGra Fig. 14's stage-based strategy): ApplyVertex is a
 * stage of its own, so the accumulator it reads comes back from the host
 * once it has gone home (one swap between the stages). */
static void stage_swap_in(streamer_t *s, pass_run_t *pr, int d, int64_t lo, int64_t rows)
{
    const pass_t *ps = pr->ps;
    chunk_tag_t tag = {(int16_t)ps->layer, (int8_t)PHASE_FWD, -1, pr->col[d], -1};
    s->ops->wait(s->b, d, LANE_H2D, pr->ev_d2h[d][pr->ra]);
    s->ops->copy(s->b, d, LANE_H2D, -1, pr->acc[d], ps->out.data + lo * ps->out.cols, sizeof(float) * (size_t)(rows * ps->out.cols), tag);
    s->ops->wait(s->b, d, LANE_COMPUTE, s->ops->record(s->b, d, LANE_H2D));
}

void stream_apply_column(streamer_t *s, pass_run_t *pr, int d, int64_t rows)
{
    const pass_t *ps = pr->ps;
    int c = pr->col[d], stage = s->kn.stream_order == SO_STAGE;
    int64_t lo = s->bounds[c], in_cols = ps->out.cols;
    const float *in = pr->acc[d];
    if (stage) stage_swap_in(s, pr, d, lo, rows);
    /* without the pipeline no copy overlaps a kernel: each op waits for the last copy home */
    if (!s->kn.pipeline) s->ops->wait(s->b, d, LANE_COMPUTE, pr->ev_d2h[d][pr->ra]);
    for (int q = 0; q < ps->napply; q++) {
        const apply_op_t *op = &ps->apply[q];
        int64_t f = op->out.cols;
        chunk_tag_t tag = {(int16_t)ps->layer, (int8_t)PHASE_FWD, -1, c, -1};
        float *kept = mp_run_slot(&s->mp, op->out.key, d), *y = kept ? kept + lo * f : pr->y[d][q];
        if (!kept && pr->ev_y[d][q] >= 0) s->ops->wait(s->b, d, LANE_COMPUTE, pr->ev_y[d][q]); /* the last column's has left */
        kernel_call_t kc = op_kernel(pr, d, q, in, in_cols, lo, rows, y);
        s->ops->launch(s->b, d, &kc, tag);
        if (op->home || q == ps->napply - 1) { /* past the last op run here, the host reads it */
            s->ops->wait(s->b, d, LANE_D2H, s->ops->record(s->b, d, LANE_COMPUTE));
            s->ops->copy(s->b, d, LANE_D2H, -1, op->out.data + lo * f, y, sizeof(float) * (size_t)(rows * f), tag);
            pr->ev_y[d][q] = s->ops->record(s->b, d, LANE_D2H);
            if (!s->kn.pipeline) s->ops->wait(s->b, d, LANE_COMPUTE, pr->ev_y[d][q]);
        }
        mp_run_wrote(&s->mp, op->out.key, d, lo, rows, kept != NULL);
        if (op->is_matmul && !stage) s->ctr.acc_kept_bytes += sizeof(float) * (double)(rows * in_cols); /* a product's input not streamed in */
        in = y, in_cols = f;
    }
}

int streamer_gather_apply(streamer_t *s, const gather_call_t *c, const apply_op_t *ops, int nops, int *ran, gs_err_t *err)
{
    pass_t ps = {c->agg, c->typed, c->in, c->out, c->f, c->acc, c->layer, PHASE_FWD, PASS_SUM, NULL, NULL, 0, 0, ops, 0};
    int n = 0;
    while (n < nops && (ops[n].is_matmul ? s->ops->has_kernel(s->b, KERN_GEMM) : s->ops->has_kernel(s->b, KERN_EW))) n++;
    *ran = stream_apply_room(s, &ps, n); /* apply_room.c: within the cap, beside a memory plan */
    s->pass_id++;
    return stream_run_pass(s, &s->fwd, &ps, err);
}
