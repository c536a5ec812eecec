/* profile_sink.c - see profile_sink.h. */
#include "profile_sink.h"
#include "engine/program/op_table.h"

#include <stdio.h>
#include <string.h>

static uint64_t ns(double s) { return (uint64_t)(s * 1e9); }

void sink_task(void *user, int dev, lane_t lane, chunk_tag_t tag, double t0, double t1, double bytes)
{
    static const uint8_t lanes[LANE__COUNT] = {PL_H2D, PL_D2H, PL_D2D, PL_COMPUTE};
    static const char *names[LANE__COUNT] = {"h2d", "d2h", "d2d", NULL};
    prof_event_t e = {ns(t0), ns(t1), bytes, 0, (int16_t)dev, -1, lanes[lane], tag.phase == PHASE_BWD ? PH_BWD : PH_FWD,
                      tag.layer, tag.row, tag.col, tag.sub, ""};
    /* compute tasks by their coordinates: a chunk (row, col) gathers; a
     * column alone clears its accumulator; a block of rows alone is an
     * ApplyVertex matmul; neither is the weight gradient's all-reduce */
    const char *op = names[lane];
    if (lane == LANE_COMPUTE)
        op = tag.col >= 0 ? (tag.row >= 0 ? "chunk_gather" : "zero_acc") : tag.row >= 0 ? "gemm" : "allreduce";
    snprintf(e.op, sizeof e.op, "%s", op);
    prof_record(user, &e);
}

void sink_gpu_span(void *user, const gpu_span_t *s)
{
    static const uint8_t lanes[LANE__COUNT] = {PL_H2D, PL_D2H, PL_D2D, PL_COMPUTE};
    static const uint8_t phases[3] = {PH_FWD, PH_BWD, PH_OPT};
    int ph = s->tag.phase < 0 || s->tag.phase > 2 ? 0 : s->tag.phase;
    prof_event_t e = {ns(s->t0), ns(s->t1), s->bytes, 0, (int16_t)s->dev, -1, lanes[s->lane], phases[ph], s->tag.layer,
                      s->tag.row, s->tag.col, s->tag.sub, ""};
    snprintf(e.op, sizeof e.op, "%s", s->name);
    prof_record(user, &e);
}

int sink_attach_gpu(prof_t *p, const train_cfg_t *cfg, char *why, size_t n)
{
    const gs_cuda_t *cu = cfg->device == DEVICE_CUDA ? gs_cuda_loaded() : NULL;
    if (!cu) return 0;
    return cu->prof_start(sink_gpu_span, p, why, n);
}

void sink_detach_gpu(void)
{
    const gs_cuda_t *cu = gs_cuda_loaded();
    if (cu) cu->prof_stop();
}

void sink_op(void *user, const instr_t *in, int phase, double t0, double t1, double flops)
{
    static const uint8_t phases[3] = {PH_FWD, PH_BWD, PH_OPT};
    prof_event_t e = {ns(t0), ns(t1), 0, flops, -1, -1, PL_COMPUTE, phases[phase < 0 || phase > 2 ? 0 : phase],
                      (int16_t)(in ? in->layer : -1), -1, -1, -1, ""};
    snprintf(e.op, sizeof e.op, "%s", in ? op_name(in->op) : "adam");
    prof_record(user, &e);
}

void sink_stage(void *user, const stage_span_t *sp)
{
    static const uint8_t lanes[STAGE__COUNT] = {PL_SAMPLE, PL_REINDEX, PL_LOOKUP, PL_H2D, PL_COMPUTE};
    static const char *names[STAGE__COUNT] = {"sample", "reindex", "lookup", "batch_h2d", NULL};
    static const uint8_t phases[3] = {PH_FWD, PH_BWD, PH_OPT};
    if (sp->stage < 0 || sp->stage >= STAGE__COUNT) return;
    int step = sp->stage == STAGE_COMPUTE, host = sp->stage < STAGE_TRANSFER;
    uint8_t ph = step ? phases[sp->phase < 0 || sp->phase > 2 ? 0 : sp->phase] : PH_SAMPLE;
    prof_event_t e = {ns(sp->t0), ns(sp->t1), sp->bytes, sp->flops, (int16_t)(host ? -1 : 0), -1, lanes[sp->stage], ph,
                      (int16_t)sp->layer, -1, (int32_t)sp->batch, step ? -1 : sp->hop, ""};
    snprintf(e.op, sizeof e.op, "%s", step && sp->op ? sp->op : names[sp->stage] ? names[sp->stage] : "?");
    prof_record(user, &e);
}

void sink_dist_event(void *user, const dist_event_t *d)
{
    static const uint8_t lanes[3] = {PL_COMPUTE, PL_NETSEND, PL_NETRECV}, phases[3] = {PH_FWD, PH_BWD, PH_OPT};
    if (d->kind < 0 || d->kind > 2 || d->rank < 0 || d->rank >= PROF_MAX_DEV - 1) return; /* past what the views draw */
    prof_event_t e = {ns(d->t0), ns(d->t1), d->bytes, d->flops, d->rank, d->rank, lanes[d->kind],
                      phases[d->phase < 0 || d->phase > 2 ? 0 : d->phase], d->layer, -1, d->peer, d->hop, ""};
    snprintf(e.op, sizeof e.op, "%s", d->name);
    prof_record(user, &e);
}
