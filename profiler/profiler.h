/* profiler.h - collects events from producer threads without blocking
 * them: each producer thread gets its own SPSC ring (ring.h) on its first
 * event; one aggregator thread drains the rings every few milliseconds
 * into per-epoch totals, windowed rates (busy fraction per device and lane,
 * bytes/s per lane, over 100 ms of the events' own time, which on an
 * emulated clock is the modeled machine's), a bounded history of recent
 * events for the views, and the trace file when one is being written. */
#ifndef GS_PROFILER_H
#define GS_PROFILER_H

#include <pthread.h>
#include <stdint.h>

#include "base/error.h"
#include "event.h"
#include "ring.h"
#include "trace.h"

#define PROF_MAX_RINGS 64
#define PROF_MAX_DEV 16
#define PROF_HISTORY 65536

typedef struct {
    double busy_s[PROF_MAX_DEV][PL__COUNT]; /* summed span time per device (index device + 1) and lane */
    double bytes[PROF_MAX_DEV][PL__COUNT];
    double flops[PROF_MAX_DEV];
    uint64_t events, dropped;
} prof_totals_t;

typedef struct {
    double busy[PROF_MAX_DEV][PL__COUNT];    /* fraction of the last window */
    double bytes_per_s[PROF_MAX_DEV][PL__COUNT];
    double window_s;
} prof_window_t;

typedef struct prof {
    prof_ring_t rings[PROF_MAX_RINGS];
    _Atomic int nrings;
    pthread_mutex_t lock; /* registration, totals, history, trace */
    pthread_t aggregator;
    int running;
    _Atomic int stop;
    prof_totals_t totals;
    prof_window_t window;
    prof_totals_t win_acc;
    uint64_t win_start_ns;  /* the current window's start, on the events' time axis */
    uint64_t window_ns;     /* the windows' length (prof_set_window) */
    uint64_t latest_ns;     /* the latest event end folded */
    prof_event_t *history;
    uint64_t hist_written;
    trace_t trace;
    int tracing;
    uint64_t trace_max;     /* traces' size cap (trace.h; 0: none) */
    uint64_t t_base;
} prof_t;

uint64_t prof_now_ns(void);
int prof_init(prof_t *p, gs_err_t *err);
void prof_shutdown(prof_t *p);
/* Epoch `epoch`, of `seconds` on the events' time axis, has ended: the
 * utilisation windows become that long (clamped to [1 ms, 10 s]), so the
 * rates are each epoch's, never stale nor 0 for a fast run's busy device;
 * a trace gets an "epoch N" marker after the epoch's last event. */
void prof_epoch_end(prof_t *p, int64_t epoch, double seconds);
/* Records one event from the calling thread (never blocks). */
void prof_record(prof_t *p, const prof_event_t *e);
/* Drains every ring now (the aggregator also does this periodically). */
void prof_drain(prof_t *p);
/* Totals since the last call, then resets them (per-epoch summaries). */
void prof_take_totals(prof_t *p, prof_totals_t *out);
void prof_get_window(prof_t *p, prof_window_t *out);
/* The end of the latest event folded (the live edge of the timeline). */
uint64_t prof_latest_ns(prof_t *p);
/* Copies up to max of the most recent events, oldest first. */
int prof_history(prof_t *p, prof_event_t *out, int max);
/* The same for the events recorded after *seq (a count of events ever
 * kept; 0 at first), which it advances: a view's increments. */
int prof_history_since(prof_t *p, uint64_t *seq, prof_event_t *out, int max);
/* The size cap of traces started from now on (trace.h: rotated at half of it). */
void prof_set_trace_max(prof_t *p, uint64_t bytes);
int prof_trace_start(prof_t *p, const char *path, gs_err_t *err);
int prof_trace_stop(prof_t *p, gs_err_t *err);
/* The same, saying what happened: -1 when no trace was being written,
 * else prof_trace_stop's code, with what was written in what
 * (trace_summary: the path, and where a rotated trace's events are). */
int prof_trace_stop_report(prof_t *p, char *what, size_t n, gs_err_t *err);

#endif
