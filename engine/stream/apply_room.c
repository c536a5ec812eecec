/* apply_room.c - how much of a device the ApplyVertex chains
 * (stream_apply.c) take beside a memory plan (memplan_run.h). By default
 * the chains come first, as NeuGraph's column order has them: a gather's
 * pass with its chain is as long as the cap allows, and the plan keeps
 * tensors in what the passes leave. The plan first instead: each such pass
 * stays within the largest streamed op's bytes and the plan keeps tensors
 * in the rest. Neither wins everywhere (ROC's measure, an epoch's H2D
 * bytes: on the workbench's Cora at 24 chunks in 4 MB the plan first kept
 * 5 MB of reads an epoch while the short chains streamed 31 MB of
 * products' inputs back in; on the reproduction's reddit-full the kept
 * features are worth more, 222 MB an epoch against 268 MB). So the epoch
 * recorded for a plan also notes the other choice: the ops the plan first
 * would cut from the chains and the products' inputs that would then
 * stream (an elementwise op's input is read on the host either way). If
 * the recorded trace planned for the larger budget, plus those inputs,
 * predicts fewer bytes than the plan made, the plan comes first, the
 * region is freed (it only grows) and the next epoch is recorded again
 * (one more epoch with nothing kept). Without a cap nothing is cut.
 * Limits: the estimate counts those inputs as streamed (the plan might
 * keep some) and leaves the trace's steps as the long chains ran them;
 * D2H bytes are not weighed (a plan saves H2D bytes only). */
#include "stream_pass.h"

/* ps->napply lowered from at most n until the pass fits `room` bytes. */
static int longest_fitting(streamer_t *s, pass_t *ps, int n, uint64_t room)
{
    for (ps->napply = n; ps->napply > 0 && streamer_reserved_size(stream_pass_bytes(s, ps, &s->fwd)) > room;) ps->napply--;
    return ps->napply;
}

/* The products' input bytes of ops [from, to) of ps's chain over its rows:
 * what running them on the devices keeps from streaming back in. */
static double chained_inputs(const pass_t *ps, int from, int to)
{
    double b = 0;
    for (int q = from; q < to; q++)
        if (ps->apply[q].is_matmul) b += sizeof(float) * (double)ps->out.rows * (double)stream_apply_in_cols(ps, q);
    return b;
}

int stream_apply_room(streamer_t *s, pass_t *ps, int n)
{
    uint64_t cap = s->ops->capacity(s->b, 0), held = (uint64_t)edge_store_held(&s->edges);
    uint64_t cap_room = cap ? (cap > held ? cap - held : 0) : UINT64_MAX;
    int longest = longest_fitting(s, ps, n, cap_room);
    if (s->kn.memplan == MP_STREAM || !cap || !s->apply_need) return longest; /* no cap: the plan's copies are host memory */
    uint64_t need = s->apply_need < cap_room ? s->apply_need : cap_room;
    if (s->plan_first) return longest_fitting(s, ps, longest, need);
    if (s->mp.planned && s->planned_region < cap_room) longest = longest_fitting(s, ps, longest, s->planned_region);
    if (s->mp.recording) { /* what the plan first would cut of this chain, and stream of its products' inputs */
        int ran = longest, cut = longest_fitting(s, ps, longest, need);
        s->chain_cut_ops += ran - cut;
        s->chain_cut_bytes += chained_inputs(ps, cut, ran);
        ps->napply = ran;
    }
    return longest;
}

void streamer_apply_epoch_end(streamer_t *s, int recorded, uint64_t reserved_besides)
{
    if (recorded && s->mp.planned && !s->plan_first && s->chain_cut_ops > 0) {
        mp_plan_t alt;
        if (mp_plan(&s->mp.trace, s->kn.memplan, mp_run_budget(&s->mp, s->apply_need + reserved_besides), &alt) == 0) {
            if (alt.cost + s->chain_cut_bytes < s->mp.plan.cost) {
                s->plan_first = 1;
                mp_run_reset(&s->mp); /* the next epoch is recorded with the shorter chains */
                streamer_release_region(s); /* in a region no larger than they take */
            }
            mp_plan_free(&alt);
        }
    }
    if (recorded && s->mp.planned) s->planned_region = s->region_bytes;
    s->chain_cut_bytes = 0, s->chain_cut_ops = 0;
}
