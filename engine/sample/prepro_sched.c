/* prepro_sched.c - see prepro_sched.h. A subtask's cost is its work in
 * one modeled thread's seconds: an in-pointer read or a looked-up row's
 * first line is a DRAM miss (MISS_S); an id-map probe (H) and a reindexed
 * edge's map read (R) are cache hits while the map (4 bytes a vertex)
 * fits the last-level cache and misses after; a reindexed edge adds its
 * CSC and CSR entries (EDGE_S); a scanned in-edge is a hash and a compare
 * (DRAW_S); rows stream at one thread's share of the host's bandwidth.
 * Checked against this project's 2-core reference machine with --prepro
 * serial on tests/bench/bench_sampling.py's graph: the JSON's
 * prepro_host_ms (S, R and K for real on 2 threads) is mostly K, about
 * 0.4 us of thread time per 1 KiB row, and S plus R about 50 ns a kept edge. */
#include "prepro_sched.h"

#include <math.h>
#include <string.h>

#include "engine/machine/linkmodel.h"

#define MISS_S 80e-9
#define HIT_S 10e-9
#define EDGE_S 30e-9
#define DRAW_S 4e-9
#define LLC_BYTES (32.0 * 1024 * 1024)

void prepro_sched_init(prepro_sched_t *s, const topology_t *t, int64_t vertices, double start)
{
    prepro_mode_t mode = s->mode;
    stage_hook_t hook = s->on_span;
    void *user = s->span_user;
    memset(s, 0, sizeof *s);
    s->mode = mode, s->on_span = hook, s->span_user = user;
    s->thread_bw = t->host_bw / PREPRO_HOST_THREADS;
    s->probe_s = 4.0 * (double)vertices > LLC_BYTES ? MISS_S : HIT_S;
    s->link_bw = lm_path_bw(t, &t->h2d[0]);
    if (!isfinite(s->link_bw)) s->link_bw = t->host_bw;
    s->link_lat = lm_path_latency(t, &t->h2d[0]);
    s->pre_free = s->link_free = s->step_end_prev = s->step_end = start;
}

/* A subtask's span: its length adds to the stage's total; the hook sees it. */
static void put(prepro_sched_t *s, prepro_stage_t st, int hop, double t0, double t1, double bytes)
{
    s->stage_s[st] += t1 - t0;
    if (s->on_span && t1 > t0) {
        stage_span_t sp = {st, hop, 0, -1, s->batch, t0, t1, bytes, 0, NULL};
        s->on_span(s->span_user, &sp);
    }
}

/* A piece of work (w thread-seconds) on the pipelined side thread: one
 * thread until `full` (when sampling frees the others), every thread after. */
static double side_end(double begin, double w, double full)
{
    if (begin >= full) return begin + w / PREPRO_HOST_THREADS;
    return w <= full - begin ? begin + w : full + (w - (full - begin)) / PREPRO_HOST_THREADS;
}

/* Moves `bytes` over the link once it is free and they are ready. */
static double send(prepro_sched_t *s, int hop, double ready, double bytes)
{
    double l0 = fmax(s->link_free, ready), l1 = l0 + s->link_lat + bytes / s->link_bw;
    put(s, STAGE_TRANSFER, hop, l0, l1, bytes);
    return s->link_free = l1;
}

double prepro_sched_batch(prepro_sched_t *s, const batch_t *b, int64_t index, int64_t feat)
{
    s->batch = index;
    int L = b->nhops, T = PREPRO_HOST_THREADS;
    double row = 4.0 * (double)feat, bw1 = s->thread_bw;
    /* thread-seconds of each subtask */
    double draw[BLOCKS_MAX_HOPS + 1], map[BLOCKS_MAX_HOPS + 1], reidx[BLOCKS_MAX_HOPS + 1], look[BLOCKS_MAX_HOPS + 1];
    double blk[BLOCKS_MAX_HOPS + 1], rows[BLOCKS_MAX_HOPS + 1];
    for (int h = 1; h <= L; h++) {
        const hop_work_t *w = &b->work[h];
        draw[h] = DRAW_S * (double)w->scanned + MISS_S * (double)w->dst;
        map[h] = s->probe_s * (double)w->kept;
        reidx[h] = (s->probe_s + EDGE_S) * (double)w->kept;
        rows[h] = (double)w->added;
        blk[h] = 28.0 * (double)w->kept + 8.0 * (double)(w->dst + 1) + 12.0 * (double)(w->dst + w->added);
    }
    rows[0] = (double)b->ntargets; /* K_top: the targets' own rows */
    for (int h = 0; h <= L; h++) look[h] = rows[h] * (MISS_S + 2.0 * row / bw1);
    /* blocking: after the previous step (no overlap with training); serial and pipelined: into
     * the buffer the step before the previous one freed (two buffers: one trains while the other fills) */
    double t = s->mode == PREPRO_BLOCKING ? fmax(s->pre_free, s->step_end) : fmax(s->pre_free, s->step_end_prev);
    double t_start = t;
    if (s->mode != PREPRO_PIPELINED) {
        for (int h = L; h >= 1; h--) {
            double t1 = t + draw[h] / T + map[h];
            put(s, STAGE_SAMPLE, h, t, t1, 0), t = t1;
        }
        for (int h = L; h >= 1; h--) {
            double t1 = t + reidx[h] / T;
            put(s, STAGE_REINDEX, h, t, t1, 0), t = t1;
        }
        double k = 0, bytes = 0;
        for (int h = 0; h <= L; h++) k += look[h], bytes += row * rows[h];
        put(s, STAGE_LOOKUP, 0, t, t + k / T, 0), t += k / T;
        for (int h = 1; h <= L; h++) bytes += blk[h];
        s->pre_free = send(s, 0, t, bytes);
        return s->pre_free;
    }
    /* pipelined: the S chain on every thread but one */
    double h_end[BLOCKS_MAX_HOPS + 1];
    for (int h = L; h >= 1; h--) {
        double t1 = t + draw[h] / (T - 1) + map[h];
        put(s, STAGE_SAMPLE, h, t, t1, 0), t = t1, h_end[h] = t1;
    }
    double s_end = t, side = t_start, done = s_end;
    /* the side thread: K_top at once, then R_h and K_h once hop h's map is done; each piece
     * goes over the link as soon as it is ready, after S_1 (the barrier that sizes the buffers) */
    for (int i = 0; i <= 2 * L; i++) {
        int h = i == 0 ? 0 : L - (i - 1) / 2;
        int is_r = i > 0 && (i - 1) % 2 == 0;
        double ready = h == 0 ? t_start : h_end[h], t0 = fmax(side, ready);
        side = side_end(t0, is_r ? reidx[h] : look[h], s_end);
        put(s, is_r ? STAGE_REINDEX : STAGE_LOOKUP, h, t0, side, 0);
        done = fmax(done, send(s, h, fmax(side, s_end), is_r ? blk[h] : row * rows[h]));
    }
    s->pre_free = fmax(side, s_end);
    return done;
}

double prepro_sched_step(prepro_sched_t *s, double ready, double step_s)
{
    double t0 = fmax(ready, s->step_end);
    if (ready > s->step_end) s->stall_s += ready - s->step_end;
    s->stage_s[STAGE_COMPUTE] += step_s; /* its ops' spans come from the executor */
    s->step_end_prev = s->step_end, s->step_end = t0 + step_s;
    return s->step_end;
}
