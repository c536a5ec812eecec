/* memplan_run.c - the memory plan at run time (memplan.h plans, streamer.h
 * lists the calls). The first epoch with a plan kind other than stream is
 * recorded: every streamed op's reads and writes, with the H2D bytes each
 * read moved, and every host write of a vertex tensor. At its end the plan
 * is made, and from the next epoch on each step keeps the tensors the plan
 * says on every device, in the capacity the streaming buffers leave free.
 * Each step is checked against the recorded one; if the epoch differs
 * (a rewritten program, an extra forward pass), every device copy is
 * dropped and the next epoch is recorded again.
 * Host memory always holds every value: outputs still go D2H (the host's
 * elementwise ops read them), so a plan saves H2D bytes only. A device copy
 * is trusted row by row: rows are valid on a device once copied in or
 * written there, and go stale when another device or a host op writes them. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/stream/streamer.h"
#include "base/mono_clock.h"

static int find_index(const streamer_t *s, int key)
{
    for (int i = 0; i < s->mp.nres; i++)
        if (s->mp.res[i].key == key) return i;
    return -1;
}

static resident_t *find(streamer_t *s, int key)
{
    int i = find_index(s, key);
    return i < 0 ? NULL : &s->mp.res[i];
}

/* Frees r's device copies; r's slot takes the last entry. */
static void drop(streamer_t *s, resident_t *r)
{
    for (int d = 0; d < s->ndev; d++) {
        if (r->dev[d]) s->ops->free(s->b, d, r->dev[d], r->bytes);
        free(r->valid[d]);
    }
    *r = s->mp.res[--s->mp.nres];
}

/* Drops every copy whose tensor is outside keep (a mask over the trace). */
static void drop_unkept(streamer_t *s, uint64_t keep)
{
    for (int i = 0; i < s->mp.nres;) {
        int j = mp_trace_find(&s->mp.trace, s->mp.res[i].key);
        if (j >= 0 && j < MP_MAX_TENSORS && (keep >> j & 1)) i++;
        else drop(s, &s->mp.res[i]);
    }
}

void streamer_mp_reset(streamer_t *s)
{
    while (s->mp.nres) drop(s, &s->mp.res[0]);
    mp_plan_free(&s->mp.plan);
    mp_trace_reset(&s->mp.trace);
    s->mp.planned = s->mp.recording = 0;
}

/* Gives every tensor in set a copy on each device (none where it does
 * not fit: that tensor then streams). */
static void hold(streamer_t *s, uint64_t set)
{
    const mp_trace_t *tr = &s->mp.trace;
    for (int j = 0; j < tr->nkeys && j < MP_MAX_TENSORS; j++) {
        if (!(set >> j & 1) || find(s, tr->key[j])) continue;
        resident_t *r = &s->mp.res[s->mp.nres];
        memset(r, 0, sizeof *r);
        r->key = tr->key[j], r->bytes = tr->bytes[j];
        s->mp.nres++;
        for (int d = 0; d < s->ndev; d++) {
            r->dev[d] = s->ops->alloc(s->b, d, r->bytes);
            r->valid[d] = calloc((size_t)s->g->n, 1);
            if (!r->dev[d] || !r->valid[d]) {
                drop(s, r);
                break;
            }
        }
    }
}

static int keys_match(const mp_trace_t *tr, const int16_t *idx, const xtensor_t *t, int n)
{
    for (int i = 0; i < n; i++)
        if (tr->key[idx[i]] != t[i].key) return 0;
    return 1;
}

/* The trace's index of tensor t (bytes of its N rows). */
static int traced(streamer_t *s, const xtensor_t *t)
{
    return mp_trace_tensor(&s->mp.trace, t->key, sizeof(float) * (uint64_t)s->g->n * (uint64_t)t->cols);
}

void streamer_mp_op_begin(streamer_t *s, const xtensor_t *reads, int nr, const xtensor_t *writes, int nw)
{
    memplan_rt_t *m = &s->mp;
    m->op_nr = nr < MP_MAX_IO ? nr : MP_MAX_IO;
    for (int i = 0; i < m->op_nr; i++) m->op_reads[i] = reads[i].key, m->op_cost[i] = 0;
    if (m->recording) {
        int ri[MP_MAX_IO], wi[MP_MAX_IO];
        for (int i = 0; i < m->op_nr; i++) ri[i] = traced(s, &reads[i]);
        for (int i = 0; i < nw && i < MP_MAX_IO; i++) wi[i] = traced(s, &writes[i]);
        if (!m->trace.overflow) mp_trace_step(&m->trace, 0, ri, nr, wi, nw);
        return;
    }
    if (!m->planned) return;
    const mp_step_t *st = m->step < m->trace.nstep ? &m->trace.step[m->step] : NULL;
    if (!st || st->host || st->nr != nr || st->nw != nw || !keys_match(&m->trace, st->reads, reads, nr) ||
        !keys_match(&m->trace, st->writes, writes, nw)) {
        streamer_mp_reset(s); /* the epoch left the recorded path: the next one is recorded */
        return;
    }
    uint64_t during = m->plan.hold[m->step];
    drop_unkept(s, during);
    hold(s, during);
}

void streamer_mp_op_end(streamer_t *s, int failed)
{
    memplan_rt_t *m = &s->mp;
    if (failed) {
        streamer_mp_reset(s);
        return;
    }
    if (m->recording && !m->trace.overflow && m->trace.nstep > 0) {
        mp_step_t *st = &m->trace.step[m->trace.nstep - 1];
        for (int i = 0; i < st->nr; i++) st->read_cost[i] = m->op_cost[i];
    }
    if (!m->planned) return;
    drop_unkept(s, m->plan.keep[m->step]);
    m->step++;
}

void streamer_host_wrote(streamer_t *s, const xtensor_t *t)
{
    memplan_rt_t *m = &s->mp;
    if (m->recording) {
        int j = traced(s, t);
        if (!m->trace.overflow) mp_trace_step(&m->trace, 1, NULL, 0, &j, 1);
        return;
    }
    if (!m->planned) return;
    const mp_step_t *st = m->step < m->trace.nstep ? &m->trace.step[m->step] : NULL;
    if (!st || !st->host || st->nw != 1 || m->trace.key[st->writes[0]] != t->key) {
        streamer_mp_reset(s);
        return;
    }
    resident_t *r = find(s, t->key);
    if (r) drop(s, r); /* its device copies no longer match */
    drop_unkept(s, m->plan.keep[m->step]);
    m->step++;
}

void streamer_mp_epoch_begin(streamer_t *s)
{
    memplan_rt_t *m = &s->mp;
    m->step = 0;
    m->kept_bytes = 0;
    if (!m->planned && s->kn.memplan != MP_STREAM) {
        mp_trace_reset(&m->trace);
        m->recording = 1;
    }
}

void streamer_mp_epoch_end(streamer_t *s)
{
    memplan_rt_t *m = &s->mp;
    if (m->planned && m->step != m->trace.nstep) streamer_mp_reset(s);
    if (m->recording && !m->trace.overflow && m->trace.nstep > 0) {
        mp_trace_compact(&m->trace);
        uint64_t cap = s->ops->capacity(s->b, 0), used = s->region_bytes + cap / 64; /* 1/64 left for rounding */
        uint64_t budget = cap > used ? cap - used : 0;
        if (cap == 0) { /* no cap: the copies are host memory here; take at most a quarter of what is free */
            long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
            budget = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 4 / (uint64_t)s->ndev : 0;
        }
        double t0 = gs_mono_s();
        m->planned = mp_plan(&m->trace, s->kn.memplan, budget, &m->plan) == 0;
        m->plan_ms = 1e3 * (gs_mono_s() - t0);
    }
    m->recording = 0;
    m->step = 0;
}

float *streamer_mp_slot(streamer_t *s, int key, int d)
{
    resident_t *r = s->mp.planned ? find(s, key) : NULL;
    return r ? r->dev[d] : NULL;
}

/* Whether rows [lo, lo + rows) of key's copy on device d are current. */
static int rows_valid(const streamer_t *s, int key, int d, int64_t lo, int64_t rows)
{
    int i = find_index(s, key);
    return i >= 0 && memchr(s->mp.res[i].valid[d] + lo, 0, (size_t)rows) == NULL;
}

static void mark(streamer_t *s, int key, int d, int64_t lo, int64_t rows, int here, int others)
{
    resident_t *r = s->mp.planned ? find(s, key) : NULL;
    if (!r) return;
    for (int e = 0; e < s->ndev; e++)
        if (e == d) memset(r->valid[e] + lo, here, (size_t)rows);
        else if (others >= 0) memset(r->valid[e] + lo, others, (size_t)rows);
}

void streamer_mp_wrote(streamer_t *s, int key, int d, int64_t lo, int64_t rows, int kept)
{
    mark(s, key, d, lo, rows, kept != 0, 0);
}

void streamer_mp_count(streamer_t *s, int key, double bytes)
{
    for (int i = 0; i < s->mp.op_nr; i++)
        if (s->mp.op_reads[i] == key) {
            s->mp.op_cost[i] += bytes;
            return;
        }
}

const float *streamer_mp_load(streamer_t *s, int d, const xtensor_t *src, int64_t lo, int64_t rows, float *staging,
                              chunk_tag_t tag, double *copied)
{
    int64_t cols = src->cols;
    size_t bytes = sizeof(float) * (size_t)(rows * cols);
    float *slot = streamer_mp_slot(s, src->key, d);
    *copied = 0;
    if (slot && rows_valid(s, src->key, d, lo, rows)) {
        s->mp.kept_bytes += (double)bytes;
        return slot + lo * cols;
    }
    float *dst = slot ? slot + lo * cols : staging;
    s->ops->copy(s->b, d, LANE_H2D, -1, dst, src->data + lo * cols, bytes, tag);
    streamer_mp_count(s, src->key, (double)bytes);
    if (slot) mark(s, src->key, d, lo, rows, 1, -1); /* a read leaves other devices' rows as they were */
    *copied = (double)bytes;
    return dst;
}
