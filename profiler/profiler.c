/* profiler.c - see profiler.h. */
#include "profiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW_NS 100000000ull /* 100 ms, until prof_set_window */
#define RING_EVENTS 8192

uint64_t prof_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static __thread prof_t *tls_owner;
static __thread prof_ring_t *tls_ring;

static prof_ring_t *thread_ring(prof_t *p)
{
    if (tls_owner == p && tls_ring) return tls_ring;
    pthread_mutex_lock(&p->lock);
    int i = atomic_load(&p->nrings);
    prof_ring_t *r = NULL;
    if (i < PROF_MAX_RINGS && prof_ring_init(&p->rings[i], RING_EVENTS) == 0) {
        r = &p->rings[i];
        atomic_store(&p->nrings, i + 1);
    }
    pthread_mutex_unlock(&p->lock);
    tls_owner = p;
    tls_ring = r;
    return r;
}

void prof_record(prof_t *p, const prof_event_t *e)
{
    prof_ring_t *r = thread_ring(p);
    if (r) prof_ring_push(r, e);
}

static void close_window(prof_t *p, uint64_t end);

/* Folds one event; called with p->lock held. Windows are spans of the
 * events' own time axis (the wall clock's, or an emulated clock's), so
 * their rates are the timeline's: a window closes when an event starts
 * past its end. */
static void fold(prof_t *p, const prof_event_t *e)
{
    int d = e->device + 1;
    if (d < 0 || d >= PROF_MAX_DEV || e->lane >= PL__COUNT) return;
    if (e->t1 > p->latest_ns) p->latest_ns = e->t1;
    if (e->t0 >= p->win_start_ns + p->window_ns) {
        close_window(p, p->win_start_ns + p->window_ns);
        if (e->t0 >= p->win_start_ns + p->window_ns) p->win_start_ns = e->t0; /* a gap: the next window starts here */
    }
    double dt = (double)(e->t1 - e->t0) * 1e-9;
    p->totals.busy_s[d][e->lane] += dt, p->totals.bytes[d][e->lane] += e->bytes, p->totals.flops[d] += e->flops;
    p->totals.events++;
    p->win_acc.busy_s[d][e->lane] += dt, p->win_acc.bytes[d][e->lane] += e->bytes;
    p->history[p->hist_written % PROF_HISTORY] = *e;
    p->hist_written++;
    if (p->tracing) trace_span(&p->trace, e);
}

static void close_window(prof_t *p, uint64_t now)
{
    if (now <= p->win_start_ns) return;
    double w = (double)(now - p->win_start_ns) * 1e-9;
    if (w <= 0) return;
    p->window.window_s = w;
    for (int d = 0; d < PROF_MAX_DEV; d++)
        for (int l = 0; l < PL__COUNT; l++) {
            double busy = p->win_acc.busy_s[d][l] / w;
            p->window.busy[d][l] = busy > 1 ? 1 : busy;
            p->window.bytes_per_s[d][l] = p->win_acc.bytes[d][l] / w;
            if (p->tracing && (p->win_acc.busy_s[d][l] > 0 || p->window.bytes_per_s[d][l] > 0)) {
                char name[48];
                snprintf(name, sizeof name, "%s busy %%", prof_lane_name((prof_lane_t)l));
                trace_counter(&p->trace, name, d, now, 100 * p->window.busy[d][l]);
                if (l != PL_COMPUTE) {
                    snprintf(name, sizeof name, "%s MB/s", prof_lane_name((prof_lane_t)l));
                    trace_counter(&p->trace, name, d, now, p->window.bytes_per_s[d][l] / 1e6);
                }
            }
        }
    memset(&p->win_acc, 0, sizeof p->win_acc);
    p->win_start_ns = now;
}

void prof_epoch_end(prof_t *p, int64_t epoch, double seconds)
{
    prof_drain(p); /* the epoch's events first: its marker goes after the last of them */
    double s = seconds < 1e-3 ? 1e-3 : seconds > 10 ? 10 : seconds;
    char name[32];
    snprintf(name, sizeof name, "epoch %lld", (long long)epoch);
    pthread_mutex_lock(&p->lock);
    p->window_ns = (uint64_t)(s * 1e9);
    if (p->tracing && p->latest_ns) trace_instant(&p->trace, name, p->latest_ns);
    pthread_mutex_unlock(&p->lock);
}

void prof_drain(prof_t *p)
{
    pthread_mutex_lock(&p->lock);
    int n = atomic_load(&p->nrings);
    prof_event_t e;
    for (int i = 0; i < n; i++)
        while (prof_ring_pop(&p->rings[i], &e)) fold(p, &e);
    pthread_mutex_unlock(&p->lock);
}

static void *aggregator_main(void *arg)
{
    prof_t *p = arg;
    struct timespec nap = {0, 20000000}; /* 20 ms */
    while (!atomic_load(&p->stop)) {
        prof_drain(p);
        nanosleep(&nap, NULL);
    }
    prof_drain(p);
    return NULL;
}

int prof_init(prof_t *p, gs_err_t *err)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
    p->history = calloc(PROF_HISTORY, sizeof *p->history);
    if (!p->history) return gs_fail(err, GS_EFAIL, "out of memory for the profiler history");
    p->t_base = p->win_start_ns = prof_now_ns();
    p->window_ns = WINDOW_NS;
    if (pthread_create(&p->aggregator, NULL, aggregator_main, p) != 0) {
        free(p->history);
        return gs_fail(err, GS_EFAIL, "cannot start the profiler thread");
    }
    p->running = 1;
    return GS_OK;
}

void prof_shutdown(prof_t *p)
{
    if (!p->running) return;
    atomic_store(&p->stop, 1);
    pthread_join(p->aggregator, NULL);
    p->running = 0;
    gs_err_t ignored;
    prof_trace_stop(p, &ignored);
    for (int i = 0; i < atomic_load(&p->nrings); i++) prof_ring_free(&p->rings[i]);
    free(p->history);
    pthread_mutex_destroy(&p->lock);
    if (tls_owner == p) tls_owner = NULL, tls_ring = NULL;
}

void prof_take_totals(prof_t *p, prof_totals_t *out)
{
    prof_drain(p);
    pthread_mutex_lock(&p->lock);
    *out = p->totals;
    out->dropped = 0;
    for (int i = 0; i < atomic_load(&p->nrings); i++) out->dropped += atomic_load(&p->rings[i].dropped);
    memset(&p->totals, 0, sizeof p->totals);
    pthread_mutex_unlock(&p->lock);
}

void prof_get_window(prof_t *p, prof_window_t *out)
{
    pthread_mutex_lock(&p->lock);
    *out = p->window;
    pthread_mutex_unlock(&p->lock);
}

uint64_t prof_latest_ns(prof_t *p)
{
    pthread_mutex_lock(&p->lock);
    uint64_t t = p->latest_ns;
    pthread_mutex_unlock(&p->lock);
    return t;
}

int prof_history(prof_t *p, prof_event_t *out, int max)
{
    uint64_t seq = 0;
    return prof_history_since(p, &seq, out, max);
}

int prof_history_since(prof_t *p, uint64_t *seq, prof_event_t *out, int max)
{
    pthread_mutex_lock(&p->lock);
    uint64_t fresh = p->hist_written - (*seq < p->hist_written ? *seq : p->hist_written);
    uint64_t n = fresh < PROF_HISTORY ? fresh : PROF_HISTORY;
    if ((uint64_t)max < n) n = (uint64_t)max;
    for (uint64_t i = 0; i < n; i++) out[i] = p->history[(p->hist_written - n + i) % PROF_HISTORY];
    *seq = p->hist_written;
    pthread_mutex_unlock(&p->lock);
    return (int)n;
}

void prof_set_trace_max(prof_t *p, uint64_t bytes) { p->trace_max = bytes; }

int prof_trace_start(prof_t *p, const char *path, gs_err_t *err)
{
    pthread_mutex_lock(&p->lock);
    int rc = GS_OK;
    if (p->tracing) rc = gs_fail(err, GS_EINPUT, "trace: already writing %s", p->trace.path);
    else if ((rc = trace_open(&p->trace, path, p->t_base, p->trace_max, err)) == GS_OK) p->tracing = 1;
    pthread_mutex_unlock(&p->lock);
    return rc;
}

int prof_trace_stop(prof_t *p, gs_err_t *err)
{
    char path[16];
    int rc = prof_trace_stop_report(p, path, sizeof path, err);
    return rc < 0 ? GS_OK : rc;
}

int prof_trace_stop_report(prof_t *p, char *what, size_t n, gs_err_t *err)
{
    prof_drain(p);
    pthread_mutex_lock(&p->lock);
    int rc = -1;
    if (p->tracing) {
        close_window(p, p->latest_ns > p->win_start_ns ? p->latest_ns : p->win_start_ns + 1); /* last counters */
        rc = trace_close(&p->trace, err);
        trace_summary(&p->trace, what, n);
        p->tracing = 0;
    }
    pthread_mutex_unlock(&p->lock);
    return rc;
}
