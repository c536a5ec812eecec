/* prepro_sched.c - see prepro_sched.h. A subtask's cost is its work in
 * one modeled thread's seconds: an in-pointer read or a looked-up row's
 * first line is a DRAM miss (MISS_S); an id-map probe (H) and a reindexed
 * edge's map read (R) are cache hits while the map (4 bytes a vertex)
 * fits the last-level cache and misses after; a reindexed edge adds its
 * CSC and CSR entries (EDGE_S); a scanned in-edge is a hash and a compare
 * (DRAW_S); rows stream at one thread's share of the host's bandwidth; a
 * locked map update, while the lock is contended, adds LOCK_S for each
 * other thread waiting on it: a lock handed between cores costs a cache
 * line transfer per waiter (Boyd-Wickizer et al., "Non-scalable locks are
 * dangerous", 2012: a ticket lock's handoff grows linearly with the
 * waiting cores; 40 ns is one transfer between cores of one socket). The
 * waiters are the other threads times the share of their time the map's
 * updates take (the lock's load without contention).
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
#define LOCK_S 40e-9
#define LLC_BYTES (32.0 * 1024 * 1024)

void prepro_sched_init(prepro_sched_t *s, const topology_t *t, int64_t vertices, double start)
{
    prepro_mode_t mode = s->mode;
    int threads = s->threads < 2 ? PREPRO_DEFAULT_THREADS : s->threads;
    stage_hook_t hook = s->on_span;
    void *user = s->span_user;
    memset(s, 0, sizeof *s);
    s->mode = mode, s->threads = threads, s->on_span = hook, s->span_user = user;
    s->thread_bw = t->host_bw / threads;
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
 * thread until `full` (when sampling frees the others), all T after. */
static double side_end(double begin, double w, double full, int T)
{
    if (begin >= full) return begin + w / T;
    return w <= full - begin ? begin + w : full + (w - (full - begin)) / T;
}

/* Seconds the lock's handoffs add to `kept` locked updates of map
 * seconds, while T threads also draw for draw thread-seconds. */
static double contention(double draw, double map, double kept, int T)
{
    double load = map > 0 ? map / (draw / T + map) : 0;
    return LOCK_S * (T - 1) * load * kept;
}

/* Moves `bytes` over the link once it is free and they are ready. */
static double send(prepro_sched_t *s, int hop, double ready, double bytes)
{
    double l0 = fmax(s->link_free, ready), l1 = l0 + s->link_lat + bytes / s->link_bw;
    put(s, STAGE_TRANSFER, hop, l0, l1, bytes);
    return s->link_free = l1;
}

/* A batch's subtasks in thread-seconds, per hop (0: the targets' own rows). */
typedef struct {
    int L;
    double row; /* bytes of a feature row */
    double draw[BLOCKS_MAX_HOPS + 1], map[BLOCKS_MAX_HOPS + 1], reidx[BLOCKS_MAX_HOPS + 1], look[BLOCKS_MAX_HOPS + 1];
    double blk[BLOCKS_MAX_HOPS + 1], rows[BLOCKS_MAX_HOPS + 1], kept[BLOCKS_MAX_HOPS + 1];
} batch_work_t;

static batch_work_t work_of(const prepro_sched_t *s, const batch_t *b, int64_t feat)
{
    batch_work_t w = {.L = b->nhops, .row = 4.0 * (double)feat};
    for (int h = 1; h <= w.L; h++) {
        const hop_work_t *k = &b->work[h];
        w.draw[h] = DRAW_S * (double)k->scanned + MISS_S * (double)k->dst;
        w.map[h] = s->probe_s * (double)k->kept;
        w.reidx[h] = (s->probe_s + EDGE_S) * (double)k->kept;
        w.rows[h] = (double)k->added, w.kept[h] = (double)k->kept;
        w.blk[h] = 28.0 * (double)k->kept + 8.0 * (double)(k->dst + 1) + 12.0 * (double)(k->dst + k->added);
    }
    w.rows[0] = (double)b->ntargets; /* K_top: the targets' own rows */
    for (int h = 0; h <= w.L; h++) w.look[h] = w.rows[h] * (MISS_S + 2.0 * w.row / s->thread_bw);
    return w;
}

/* serial and blocking: each subtask on every thread in turn (a parallel draw, then the map's
 * updates, which DGL and Dynamic-GT make without a shared lock), one transfer at the end */
static double in_order(prepro_sched_t *s, const batch_work_t *w, double t)
{
    int L = w->L, T = s->threads;
    for (int h = L; h >= 1; h--) {
        double t1 = t + w->draw[h] / T + w->map[h];
        put(s, STAGE_SAMPLE, h, t, t1, 0), t = t1;
    }
    for (int h = L; h >= 1; h--) {
        double t1 = t + w->reidx[h] / T;
        put(s, STAGE_REINDEX, h, t, t1, 0), t = t1;
    }
    double k = 0, bytes = 0;
    for (int h = 0; h <= L; h++) k += w->look[h], bytes += w->row * w->rows[h];
    put(s, STAGE_LOOKUP, 0, t, t + k / T, 0), t += k / T;
    for (int h = 1; h <= L; h++) bytes += w->blk[h];
    return s->pre_free = send(s, 0, t, bytes);
}

/* The S chain on every thread but one, hop L first; *h_end gets each hop's end. Relaxed
 * (pipelined): the map's updates serialized on one thread without a lock while the others
 * draw; basic: every thread updates the map under its lock after its draws. */
static double sample_chain(prepro_sched_t *s, const batch_work_t *w, double t, double *h_end)
{
    int T = s->threads;
    for (int h = w->L; h >= 1; h--) {
        double t1 = t + fmax(w->draw[h] / (T - 1), w->map[h]);
        if (s->mode == PREPRO_BASIC) {
            double lock = contention(w->draw[h], w->map[h], w->kept[h], T - 1);
            t1 = t + w->draw[h] / (T - 1) + w->map[h] + lock, s->lock_s += lock;
        }
        put(s, STAGE_SAMPLE, h, t, t1, 0), t = t1, h_end[h] = t1;
    }
    return t;
}

/* pipelined (relaxed) and basic: the S chain, and beside it the side thread: K_top at once,
 * K_h once hop h's map is done; R_h once sampling ends (relaxed: R reads the map S writes), or
 * (basic) at once after K_h, its map reads queueing on S's lock while S runs; every thread joins
 * the side work when sampling ends; each piece goes over the link as soon as it is ready, after
 * S_1 (the barrier that sizes the buffers) */
static double overlapped(prepro_sched_t *s, const batch_work_t *w, double t_start)
{
    int L = w->L, T = s->threads, basic = s->mode == PREPRO_BASIC;
    double h_end[BLOCKS_MAX_HOPS + 1];
    double s_end = sample_chain(s, w, t_start, h_end), side = t_start, done = s_end;
    for (int i = 0; i <= 2 * L; i++) {
        int is_r = basic ? i > 0 && i % 2 == 0 : i > L;
        int h = i == 0 ? 0 : basic ? L + 1 - (i + 1) / 2 : is_r ? 2 * L + 1 - i : L + 1 - i;
        double ready = is_r && !basic ? s_end : h == 0 ? t_start : h_end[h], t0 = fmax(side, ready);
        double cost = is_r ? w->reidx[h] : w->look[h];
        if (is_r && basic && t0 < s_end) { /* R's reads wait behind the T - 1 sampling threads' lock */
            double overlap = fmin(1.0, (s_end - t0) / (cost + 1e-30)), lock = LOCK_S * (T - 1) * overlap * w->kept[h];
            cost += lock, s->lock_sr_s += lock;
        }
        side = side_end(t0, cost, s_end, T);
        put(s, is_r ? STAGE_REINDEX : STAGE_LOOKUP, h, t0, side, 0);
        done = fmax(done, send(s, h, fmax(side, s_end), is_r ? w->blk[h] : w->row * w->rows[h]));
    }
    s->pre_free = fmax(side, s_end);
    return done;
}

double prepro_sched_batch(prepro_sched_t *s, const batch_t *b, int64_t index, int64_t feat)
{
    s->batch = index;
    batch_work_t w = work_of(s, b, feat);
    /* blocking: after the previous step (no overlap with training); the others: into the buffer
     * the step before the previous one freed (two buffers: one trains while the other fills) */
    double t = s->mode == PREPRO_BLOCKING ? fmax(s->pre_free, s->step_end) : fmax(s->pre_free, s->step_end_prev);
    return s->mode == PREPRO_SERIAL || s->mode == PREPRO_BLOCKING ? in_order(s, &w, t) : overlapped(s, &w, t);
}

double prepro_sched_step(prepro_sched_t *s, double ready, double step_s)
{
    double t0 = fmax(ready, s->step_end);
    if (ready > s->step_end) s->stall_s += ready - s->step_end;
    s->stage_s[STAGE_COMPUTE] += step_s; /* its ops' spans come from the executor */
    s->step_end_prev = s->step_end, s->step_end = t0 + step_s;
    return s->step_end;
}
