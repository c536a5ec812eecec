/* linkmodel.c - see linkmodel.h. */
#include "linkmodel.h"

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

static double path_latency(const topology_t *t, const topo_path_t *p)
{
    double s = 0;
    for (int k = 0; k < p->nlinks; k++) s += t->links[p->link[k]].latency;
    return s;
}

void lm_simulate(const topology_t *t, lm_transfer_t *xf, int n)
{
    if (n > 1024) n = 1024;
    double rem[1024], ready[1024], rate[1024];
    const topo_path_t *act[1024] = {0};
    int left = n;
    for (int i = 0; i < n; i++) {
        rem[i] = xf[i].bytes;
        ready[i] = xf[i].start + path_latency(t, xf[i].path);
        xf[i].finish = -1;
        if (rem[i] <= 0) xf[i].finish = ready[i], left--;
    }
    double now = 0;
    for (int i = 0; i < n; i++) now = i == 0 || xf[i].start < now ? xf[i].start : now;
    while (left > 0) {
        for (int i = 0; i < n; i++) act[i] = xf[i].finish < 0 && ready[i] <= now ? xf[i].path : NULL;
        fair_rates(t, n, act, rate);
        double next = INFINITY;
        for (int i = 0; i < n; i++) {
            if (xf[i].finish >= 0) continue;
            if (act[i] && rate[i] > 0) next = fmin(next, now + rem[i] / rate[i]);
            else if (ready[i] > now) next = fmin(next, ready[i]);
        }
        if (!isfinite(next)) break;
        for (int i = 0; i < n; i++)
            if (act[i]) {
                rem[i] -= rate[i] * (next - now);
                if (rem[i] <= 1e-6 * xf[i].bytes) xf[i].finish = next, left--;
            }
        now = next;
    }
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
    m->last = mono_now();
}

void lm_destroy(lm_t *m)
{
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->changed);
}

/* Advances every ready transfer to `now` and recomputes the fair rates. */
static void advance(lm_t *m, double now)
{
    const topo_path_t *act[LM_MAX_ACTIVE] = {0};
    double rate[LM_MAX_ACTIVE];
    for (int i = 0; i < m->nactive; i++) {
        struct lm_active *a = &m->active[i];
        double from = a->ready > m->last ? a->ready : m->last;
        if (!a->done && now > from) {
            double moved = fmin(a->remaining, a->rate * (now - from));
            a->remaining -= moved;
            for (int k = 0; k < a->path->nlinks; k++) m->link_bytes[a->path->link[k]] += moved;
            if (a->remaining <= 1e-3) a->done = 1;
        }
    }
    m->last = now;
    for (int i = 0; i < m->nactive; i++) {
        struct lm_active *a = &m->active[i];
        act[i] = !a->done && a->ready <= now ? a->path : NULL;
    }
    fair_rates(m->topo, m->nactive, act, rate);
    for (int i = 0; i < m->nactive; i++) m->active[i].rate = rate[i];
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
    double now = mono_now();
    advance(m, now);
    uint64_t id = ++m->next_id;
    m->active[m->nactive++] = (struct lm_active){path, bytes, 0, now + path_latency(m->topo, path), bytes <= 0, id};
    advance(m, now);
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
    return id;
}

void lm_wait(lm_t *m, uint64_t id)
{
    pthread_mutex_lock(&m->lock);
    for (;;) {
        double now = mono_now();
        advance(m, now);
        int i = find(m, id);
        struct lm_active *a = &m->active[i];
        if (a->done) {
            m->active[i] = m->active[--m->nactive];
            advance(m, now);
            pthread_cond_broadcast(&m->changed);
            break;
        }
        double start = a->ready > now ? a->ready : now;
        double eta = a->rate > 0 ? start + a->remaining / a->rate : start + 1e-3;
        struct timespec ts = {(time_t)eta, (long)((eta - floor(eta)) * 1e9)};
        pthread_cond_timedwait(&m->changed, &m->lock, &ts);
    }
    pthread_mutex_unlock(&m->lock);
}

void lm_transfer(lm_t *m, const topo_path_t *path, double bytes)
{
    lm_wait(m, lm_begin(m, path, bytes));
}
