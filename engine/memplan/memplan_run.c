/* memplan_run.c - see memplan_run.h. */
#include "memplan_run.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/mono_clock.h"

void mp_run_init(memplan_rt_t *m, mp_devices_t dev)
{
    memset(m, 0, sizeof *m);
    m->dev = dev;
}

static int find_index(const memplan_rt_t *m, int key)
{
    for (int i = 0; i < m->nres; i++)
        if (m->res[i].key == key) return i;
    return -1;
}

static resident_t *find(memplan_rt_t *m, int key)
{
    int i = find_index(m, key);
    return i < 0 ? NULL : &m->res[i];
}

/* Frees r's device copies; r's slot takes the last entry. */
static void drop(memplan_rt_t *m, resident_t *r)
{
    for (int d = 0; d < m->dev.ndev; d++) {
        if (r->dev[d]) m->dev.ops->free(m->dev.b, d, r->dev[d], r->bytes);
        free(r->valid[d]);
    }
    *r = m->res[--m->nres];
}

/* Drops every copy whose tensor is outside keep (a mask over the trace). */
static void drop_unkept(memplan_rt_t *m, uint64_t keep)
{
    for (int i = 0; i < m->nres;) {
        int j = mp_trace_find(&m->trace, m->res[i].key);
        if (j >= 0 && j < MP_MAX_TENSORS && (keep >> j & 1)) i++;
        else drop(m, &m->res[i]);
    }
}

void mp_run_reset(memplan_rt_t *m)
{
    while (m->nres) drop(m, &m->res[0]);
    mp_plan_free(&m->plan);
    mp_trace_reset(&m->trace);
    m->planned = m->recording = 0;
}

void mp_run_free(memplan_rt_t *m)
{
    mp_run_reset(m);
    mp_trace_free(&m->trace);
}

int mp_run_holding(const memplan_rt_t *m) { return m->nres > 0; }

/* Gives every tensor in set a copy on each device (none where it does
 * not fit: that tensor then streams). */
static void hold(memplan_rt_t *m, uint64_t set)
{
    const mp_trace_t *tr = &m->trace;
    for (int j = 0; j < tr->nkeys && j < MP_MAX_TENSORS; j++) {
        if (!(set >> j & 1) || find(m, tr->key[j])) continue;
        resident_t *r = &m->res[m->nres];
        memset(r, 0, sizeof *r);
        r->key = tr->key[j], r->bytes = tr->bytes[j];
        m->nres++;
        for (int d = 0; d < m->dev.ndev; d++) {
            r->dev[d] = m->dev.ops->alloc(m->dev.b, d, r->bytes);
            r->valid[d] = calloc((size_t)m->dev.n, 1);
            if (!r->dev[d] || !r->valid[d]) {
                drop(m, r);
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
static int traced(memplan_rt_t *m, const xtensor_t *t)
{
    return mp_trace_tensor(&m->trace, t->key, sizeof(float) * (uint64_t)m->dev.n * (uint64_t)t->cols);
}

void mp_run_op_begin(memplan_rt_t *m, const xtensor_t *reads, int nr, const xtensor_t *writes, int nw)
{
        m->op_nr = nr < MP_MAX_IO ? nr : MP_MAX_IO;
    for (int i = 0; i < m->op_nr; i++) m->op_reads[i] = reads[i].key, m->op_cost[i] = 0;
    if (m->recording) {
        int ri[MP_MAX_IO], wi[MP_MAX_IO];
        for (int i = 0; i < m->op_nr; i++) ri[i] = traced(m, &reads[i]);
        for (int i = 0; i < nw && i < MP_MAX_IO; i++) wi[i] = traced(m, &writes[i]);
        if (!m->trace.overflow) mp_trace_step(&m->trace, 0, ri, nr, wi, nw);
        return;
    }
    if (!m->planned) return;
    const mp_step_t *st = m->step < m->trace.nstep ? &m->trace.step[m->step] : NULL;
    if (!st || st->host || st->nr != nr || st->nw != nw || !keys_match(&m->trace, st->reads, reads, nr) ||
        !keys_match(&m->trace, st->writes, writes, nw)) {
        mp_run_reset(m); /* the epoch left the recorded path: the next one is recorded */
        return;
    }
    uint64_t during = m->plan.hold[m->step];
    drop_unkept(m, during);
    hold(m, during);
}

void mp_run_op_end(memplan_rt_t *m, int failed)
{
        if (failed) {
        mp_run_reset(m);
        return;
    }
    if (m->recording && !m->trace.overflow && m->trace.nstep > 0) {
        mp_step_t *st = &m->trace.step[m->trace.nstep - 1];
        for (int i = 0; i < st->nr; i++) st->read_cost[i] = m->op_cost[i];
    }
    if (!m->planned) return;
    drop_unkept(m, m->plan.keep[m->step]);
    m->step++;
}

void mp_run_host_wrote(memplan_rt_t *m, const xtensor_t *t)
{
        if (m->recording) {
        int j = traced(m, t);
        if (!m->trace.overflow) mp_trace_step(&m->trace, 1, NULL, 0, &j, 1);
        return;
    }
    if (!m->planned) return;
    const mp_step_t *st = m->step < m->trace.nstep ? &m->trace.step[m->step] : NULL;
    if (!st || !st->host || st->nw != 1 || m->trace.key[st->writes[0]] != t->key) {
        mp_run_reset(m);
        return;
    }
    resident_t *r = find(m, t->key);
    if (r) drop(m, r); /* its device copies no longer match */
    drop_unkept(m, m->plan.keep[m->step]);
    m->step++;
}

void mp_run_epoch_begin(memplan_rt_t *m, memplan_kind_t kind)
{
    m->step = 0;
    m->kept_bytes = 0;
    if (!m->planned && kind != MP_STREAM) {
        mp_trace_reset(&m->trace);
        m->recording = 1;
    }
}

uint64_t mp_run_budget(const memplan_rt_t *m, uint64_t reserved)
{
    uint64_t cap = m->dev.ops->capacity(m->dev.b, 0), used = reserved + cap / 64; /* 1/64 left for rounding */
    if (cap == 0) { /* no cap: the copies are host memory here; take at most a quarter of what is free */
        long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 4 / (uint64_t)m->dev.ndev : 0;
    }
    return cap > used ? cap - used : 0;
}

void mp_run_epoch_end(memplan_rt_t *m, memplan_kind_t kind, uint64_t reserved)
{
    if (m->planned && m->step != m->trace.nstep) mp_run_reset(m);
    if (m->recording && !m->trace.overflow && m->trace.nstep > 0) {
        mp_trace_compact(&m->trace);
        double t0 = gs_mono_s();
        m->planned = mp_plan(&m->trace, kind, mp_run_budget(m, reserved), &m->plan) == 0;
        m->plan_ms = 1e3 * (gs_mono_s() - t0);
    }
    m->recording = 0;
    m->step = 0;
}

float *mp_run_slot(memplan_rt_t *m, int key, int d)
{
    resident_t *r = m->planned ? find(m, key) : NULL;
    return r ? r->dev[d] : NULL;
}

/* Whether rows [lo, lo + rows) of key's copy on device d are current. */
static int rows_valid(const memplan_rt_t *m, int key, int d, int64_t lo, int64_t rows)
{
    int i = find_index(m, key);
    return i >= 0 && memchr(m->res[i].valid[d] + lo, 0, (size_t)rows) == NULL;
}

static void mark(memplan_rt_t *m, int key, int d, int64_t lo, int64_t rows, int here, int others)
{
    resident_t *r = m->planned ? find(m, key) : NULL;
    if (!r) return;
    for (int e = 0; e < m->dev.ndev; e++)
        if (e == d) memset(r->valid[e] + lo, here, (size_t)rows);
        else if (others >= 0) memset(r->valid[e] + lo, others, (size_t)rows);
}

void mp_run_wrote(memplan_rt_t *m, int key, int d, int64_t lo, int64_t rows, int kept)
{
    mark(m, key, d, lo, rows, kept != 0, 0);
}

void mp_run_count(memplan_rt_t *m, int key, double bytes)
{
    for (int i = 0; i < m->op_nr; i++)
        if (m->op_reads[i] == key) {
            m->op_cost[i] += bytes;
            return;
        }
}

/* A device other than d, under d's switch, whose copy of key holds rows
 * [lo, lo + rows); -1 if none. */
static int peer_holding(const memplan_rt_t *m, int key, int d, int64_t lo, int64_t rows)
{
    for (int e = 0; e < m->dev.ndev; e++)
        if (e != d && (!m->dev.group || m->dev.group[e] == m->dev.group[d]) && rows_valid(m, key, e, lo, rows)) return e;
    return -1;
}

/* bytes from src on device e to dst on device d over the peer link, in
 * order with d's H2D lane (mp_run_load's contract). */
static void copy_from_peer(memplan_rt_t *m, int d, int e, float *dst, const float *src, size_t bytes, chunk_tag_t tag)
{
    const backend_ops_t *o = m->dev.ops;
    backend_t *b = m->dev.b;
    for (int l = 0; l < LANE__COUNT; l++) o->wait(b, d, LANE_D2D, o->record(b, e, (lane_t)l)); /* the rows may be arriving on e */
    o->wait(b, d, LANE_D2D, o->record(b, d, LANE_H2D));
    o->copy(b, d, LANE_D2D, e, dst, src, bytes, tag);
    o->wait(b, d, LANE_H2D, o->record(b, d, LANE_D2D));
}

const float *mp_run_load(memplan_rt_t *m, int d, const xtensor_t *src, int64_t lo, int64_t rows, float *staging,
                              chunk_tag_t tag, double *copied)
{
    int64_t cols = src->cols;
    size_t bytes = sizeof(float) * (size_t)(rows * cols);
    float *slot = mp_run_slot(m, src->key, d);
    *copied = 0;
    if (slot && rows_valid(m, src->key, d, lo, rows)) {
        m->kept_bytes += (double)bytes;
        return slot + lo * cols;
    }
    int e = slot ? peer_holding(m, src->key, d, lo, rows) : -1;
    if (e >= 0) {
        copy_from_peer(m, d, e, slot + lo * cols, mp_run_slot(m, src->key, e) + lo * cols, bytes, tag);
        mark(m, src->key, d, lo, rows, 1, -1);
        return slot + lo * cols;
    }
    float *dst = slot ? slot + lo * cols : staging;
    m->dev.ops->copy(m->dev.b, d, LANE_H2D, -1, dst, src->data + lo * cols, bytes, tag);
    mp_run_count(m, src->key, (double)bytes);
    if (slot) mark(m, src->key, d, lo, rows, 1, -1); /* a read leaves other devices' rows as they were */
    *copied = (double)bytes;
    return dst;
}
