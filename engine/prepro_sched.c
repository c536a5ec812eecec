/* prepro_sched.c - see prepro_sched.h. Bytes per unit of work: a draw
 * reads 16 bytes per in-edge scanned plus a 64-byte line per destination;
 * an id-map probe and a reindexed edge are a random 64-byte line each; a
 * looked-up row is read and written once. */
#include "prepro_sched.h"

#include <math.h>
#include <string.h>

#include "sched/linkmodel.h"

#define LINE 64.0

void prepro_sched_init(prepro_sched_t *s, const topology_t *t, double start)
{
    prepro_mode_t mode = s->mode;
    prepro_emit_fn emit = s->emit;
    void *user = s->user;
    memset(s, 0, sizeof *s);
    s->mode = mode, s->emit = emit, s->user = user;
    s->thread_bw = t->host_bw / PREPRO_HOST_THREADS;
    s->link_bw = INFINITY;
    for (int k = 0; k < t->h2d[0].nlinks; k++) s->link_bw = fmin(s->link_bw, t->links[t->h2d[0].link[k]].bw);
    if (!isfinite(s->link_bw)) s->link_bw = t->host_bw;
    s->link_lat = lm_path_latency(t, &t->h2d[0]);
    s->pre_free = s->step_start = s->step_end = start;
}

static void put(prepro_sched_t *s, prepro_stage_t st, int64_t batch, int hop, double t0, double t1, double bytes)
{
    s->stage_s[st] += t1 - t0;
    if (s->emit) {
        prepro_span_t sp = {st, batch, hop, t0, t1, bytes};
        s->emit(s->user, &sp);
    }
}

/* A piece of work on the pipelined side thread: one thread's rate until
 * `full` (when sampling frees the others), every thread's after. */
static double side_end(const prepro_sched_t *s, double begin, double bytes, double full)
{
    double one = s->thread_bw, all = s->thread_bw * PREPRO_HOST_THREADS;
    if (begin >= full) return begin + bytes / all;
    double before = (full - begin) * one;
    return bytes <= before ? begin + bytes / one : full + (bytes - before) / all;
}

double prepro_sched_batch(prepro_sched_t *s, const batch_t *b, int64_t batch, int64_t feat)
{
    int L = b->nhops;
    double row = 4.0 * (double)feat, bw1 = s->thread_bw, bwall = bw1 * PREPRO_HOST_THREADS;
    double draw[BLOCKS_MAX_HOPS + 1], map[BLOCKS_MAX_HOPS + 1], reidx[BLOCKS_MAX_HOPS + 1], look[BLOCKS_MAX_HOPS + 1];
    double blk[BLOCKS_MAX_HOPS + 1], rows[BLOCKS_MAX_HOPS + 1];
    for (int h = 1; h <= L; h++) {
        const hop_work_t *w = &b->work[h];
        draw[h] = 16.0 * (double)w->scanned + LINE * (double)w->dst;
        map[h] = LINE * (double)w->kept;
        reidx[h] = LINE * (double)w->kept;
        rows[h] = (double)w->added;
        blk[h] = 28.0 * (double)w->kept + 8.0 * (double)(w->dst + 1) + 12.0 * (double)(w->dst + w->added);
    }
    rows[0] = (double)b->ntargets; /* K_top: the targets' own rows */
    for (int h = 0; h <= L; h++) look[h] = 2.0 * row * rows[h];
    /* serial: after the previous step (no overlap with training) */
    double t = s->mode == PREPRO_SERIAL ? fmax(s->pre_free, s->step_end) : fmax(s->pre_free, s->step_start);
    double t_start = t, link = t;
    if (s->mode == PREPRO_SERIAL) {
        for (int h = L; h >= 1; h--) {
            double t1 = t + draw[h] / bwall + map[h] / bw1;
            put(s, STAGE_SAMPLE, batch, h, t, t1, 0), t = t1;
        }
        for (int h = L; h >= 1; h--) {
            double t1 = t + reidx[h] / bwall;
            put(s, STAGE_REINDEX, batch, h, t, t1, 0), t = t1;
        }
        double k = 0, bytes = 0;
        for (int h = 0; h <= L; h++) k += look[h], bytes += row * rows[h];
        put(s, STAGE_LOOKUP, batch, 0, t, t + k / bwall, 0), t += k / bwall;
        for (int h = 1; h <= L; h++) bytes += blk[h];
        double t1 = t + s->link_lat + bytes / s->link_bw;
        put(s, STAGE_TRANSFER, batch, 0, t, t1, bytes), t = t1;
        s->pre_free = t;
        return t;
    }
    /* pipelined: the S chain on all threads but one */
    double h_end[BLOCKS_MAX_HOPS + 1];
    double bw_s = bw1 * (PREPRO_HOST_THREADS - 1);
    for (int h = L; h >= 1; h--) {
        double t1 = t + draw[h] / bw_s + map[h] / bw1;
        put(s, STAGE_SAMPLE, batch, h, t, t1, 0), t = t1, h_end[h] = t1;
    }
    double s_end = t, side = t_start, done = s_end;
    link = s_end; /* the barrier: transfers wait for S_1, which sizes the buffers */
    /* the side thread: K_top at once, then R_h and K_h as hop h's map is done */
    for (int i = 0; i <= 2 * L; i++) {
        int h = i == 0 ? 0 : L - (i - 1) / 2;
        int is_r = i > 0 && (i - 1) % 2 == 0;
        double ready = h == 0 ? t_start : h_end[h], bytes = is_r ? reidx[h] : look[h];
        double t0 = fmax(side, ready), t1 = side_end(s, t0, bytes, s_end);
        put(s, is_r ? STAGE_REINDEX : STAGE_LOOKUP, batch, h, t0, t1, 0);
        side = t1;
        double moved = is_r ? blk[h] : row * rows[h]; /* sent as soon as it is ready */
        double l0 = fmax(link, t1), l1 = l0 + s->link_lat + moved / s->link_bw;
        put(s, STAGE_TRANSFER, batch, h, l0, l1, moved);
        link = l1;
        done = fmax(done, l1);
    }
    s->pre_free = fmax(side, s_end);
    return done;
}

double prepro_sched_step(prepro_sched_t *s, int64_t batch, double ready, double step_s)
{
    double t0 = fmax(ready, s->step_end);
    if (ready > s->step_end) s->stall_s += ready - s->step_end;
    put(s, STAGE_COMPUTE, batch, 0, t0, t0 + step_s, 0);
    s->step_start = t0, s->step_end = t0 + step_s;
    return s->step_end;
}
