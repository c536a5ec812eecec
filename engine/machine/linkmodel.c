/* linkmodel.c - see linkmodel.h. */
#include "linkmodel.h"
#include "base/mono_clock.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

/* Max-min fair rates by progressive filling. paths[i] == NULL: inactive. */
static void fair_rates(const topology_t *t, int n, const topo_path_t *const *paths, double *rate)
{
    double cap[TOPO_MAX_LINKS];
    char frozen[LM_MAX_ACTIVE > 1024 ? LM_MAX_ACTIVE : 1024];
    for (int l = 0; l < t->nlinks; l++) cap[l] = t->links[l].bw;
    for (int i = 0; i < n; i++) frozen[i] = paths[i] == NULL, rate[i] = 0;
    for (;;) {
        int cnt[TOPO_MAX_LINKS] = {0};
        for (int i = 0; i < n; i++)
            if (!frozen[i])
                for (int k = 0; k < paths[i]->nlinks; k++) cnt[paths[i]->link[k]]++;
        int best = -1;
        double share = INFINITY;
        for (int l = 0; l < t->nlinks; l++)
            if (cnt[l] > 0 && cap[l] / cnt[l] < share) share = cap[l] / cnt[l], best = l;
        if (best < 0) break;
        for (int i = 0; i < n; i++) {
            if (frozen[i]) continue;
            int uses = 0;
            for (int k = 0; k < paths[i]->nlinks; k++) uses |= paths[i]->link[k] == best;
            if (!uses) continue;
            rate[i] = share;
            frozen[i] = 1;
            for (int k = 0; k < paths[i]->nlinks; k++) cap[paths[i]->link[k]] -= share;
        }
    }
}

double lm_path_latency(const topology_t *t, const topo_path_t *p)
{
    double s = 0;
    for (int k = 0; k < p->nlinks; k++) s += t->links[p->link[k]].latency;
    return s;
}

double lm_path_bw(const topology_t *t, const topo_path_t *p)
{
    double bw = INFINITY;
    for (int k = 0; k < p->nlinks; k++) bw = fmin(bw, t->links[p->link[k]].bw);
    return bw;
}

double lm_fluid_step(const topology_t *t, int n, const topo_path_t *const *path, const double *ready, double *rem,
                     const double *total, char *done, double now, double until, double *rate, double *link_bytes,
                     const topo_path_t **act)
{
    for (int i = 0; i < n; i++) act[i] = !done[i] && ready[i] <= now ? path[i] : NULL;
    fair_rates(t, n, act, rate);
    double next = until;
    for (int i = 0; i < n; i++) {
        if (done[i]) continue;
        if (act[i] && rate[i] > 0) next = fmin(next, now + rem[i] / rate[i]);
        else if (ready[i] > now) next = fmin(next, ready[i]);
    }
    if (!isfinite(next)) return next;
    for (int i = 0; i < n; i++) {
        if (!act[i]) continue;
        /* a flow whose end is this event finishes here, whatever rounding
         * leaves of its bytes (else a residue below the clock's resolution
         * would never move) */
        int ends = rate[i] > 0 && now + rem[i] / rate[i] <= next;
        double moved = ends ? rem[i] : fmin(rem[i], rate[i] * (next - now));
        rem[i] -= moved;
        if (link_bytes)
            for (int k = 0; k < path[i]->nlinks; k++) link_bytes[path[i]->link[k]] += moved;
        if (ends || rem[i] <= 1e-6 * total[i]) done[i] = 1;
    }
    return next;
}

void lm_simulate(const topology_t *t, lm_transfer_t *xf, int n)
{
    if (n > 1024) n = 1024;
    double rem[1024], ready[1024], rate[1024], total[1024];
    const topo_path_t *path[1024], *act[1024] = {0};
    char done[1024];
    int left = n;
    for (int i = 0; i < n; i++) {
        path[i] = xf[i].path;
        rem[i] = total[i] = xf[i].bytes;
        ready[i] = xf[i].start + lm_path_latency(t, xf[i].path);
        done[i] = rem[i] <= 0;
        xf[i].finish = done[i] ? ready[i] : -1;
        left -= done[i];
    }
    double now = 0;
    for (int i = 0; i < n; i++) now = i == 0 || xf[i].start < now ? xf[i].start : now;
    while (left > 0) {
        double next = lm_fluid_step(t, n, path, ready, rem, total, done, now, INFINITY, rate, NULL, act);
        if (!isfinite(next)) break;
        for (int i = 0; i < n; i++)
            if (done[i] && xf[i].finish < 0) xf[i].finish = next, left--;
        now = next;
    }
}

void lm_init(lm_t *m, const topology_t *t)
{
    memset(m, 0, sizeof *m);
    m->topo = t;
    pthread_mutex_init(&m->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&m->changed, &ca);
    pthread_condattr_destroy(&ca);
    m->last = gs_mono_s();
}

void lm_destroy(lm_t *m)
{
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->changed);
}

/* Moves the model from its last update to `now` event by event (latencies
 * elapsing, transfers finishing, each re-sharing the links), then sets
 * the rates in force at `now`. */
static void advance(lm_t *m, double now)
{
    int n = m->nactive;
    const topo_path_t *path[LM_MAX_ACTIVE] = {0}, *act[LM_MAX_ACTIVE] = {0};
    double ready[LM_MAX_ACTIVE] = {0}, rem[LM_MAX_ACTIVE] = {0}, total[LM_MAX_ACTIVE] = {0}, rate[LM_MAX_ACTIVE];
    char done[LM_MAX_ACTIVE];
    for (int i = 0; i < n; i++) {
        const struct lm_active *a = &m->active[i];
        path[i] = a->path, ready[i] = a->ready, rem[i] = a->remaining, total[i] = a->bytes, done[i] = (char)a->done;
    }
    while (m->last < now)
        m->last = lm_fluid_step(m->topo, n, path, ready, rem, total, done, m->last, now, rate, m->link_bytes, act);
    lm_fluid_step(m->topo, n, path, ready, rem, total, done, now, now, rate, NULL, act); /* rates at `now` */
    for (int i = 0; i < n; i++) {
        struct lm_active *a = &m->active[i];
        a->remaining = rem[i], a->done = done[i], a->rate = rate[i];
    }
}

static int find(const lm_t *m, uint64_t id)
{
    for (int i = 0; i < m->nactive; i++)
        if (m->active[i].id == id) return i;
    return -1;
}

uint64_t lm_begin(lm_t *m, const topo_path_t *path, double bytes)
{
    pthread_mutex_lock(&m->lock);
    while (m->nactive == LM_MAX_ACTIVE) pthread_cond_wait(&m->changed, &m->lock);
    double now = gs_mono_s();
    advance(m, now);
    uint64_t id = ++m->next_id;
    m->active[m->nactive++] = (struct lm_active){path, bytes, bytes, 0, now + lm_path_latency(m->topo, path), bytes <= 0, id};
    advance(m, now);
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
    return id;
}

void lm_wait(lm_t *m, uint64_t id)
{
    pthread_mutex_lock(&m->lock);
    for (;;) {
        double now = gs_mono_s();
        advance(m, now);
        int i = find(m, id);
        struct lm_active *a = &m->active[i];
        if (a->done) {
            m->active[i] = m->active[--m->nactive];
            advance(m, now);
            pthread_cond_broadcast(&m->changed);
            break;
        }
        /* wake when the latency elapses (rates are set then), else at the
         * end the current rates give; another transfer's start or end wakes
         * this one earlier to recompute */
        double eta = a->ready > now ? a->ready : a->rate > 0 ? now + a->remaining / a->rate : now + 1e-3;
        struct timespec ts = {(time_t)eta, (long)((eta - floor(eta)) * 1e9)};
        pthread_cond_timedwait(&m->changed, &m->lock, &ts);
    }
    pthread_mutex_unlock(&m->lock);
}

void lm_transfer(lm_t *m, const topo_path_t *path, double bytes)
{
    lm_wait(m, lm_begin(m, path, bytes));
}
