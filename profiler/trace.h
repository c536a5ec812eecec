/* trace.h - Chrome trace-event JSON writer (opens in Perfetto and
 * chrome://tracing): one pid per device or rank (pid 0 is the host), one
 * tid per lane, "X" spans with the chunk coordinates, layer, phase, bytes
 * and FLOPs as args, "C" counters, and "M" events naming processes and
 * threads. Written to a temporary file and renamed into place on close,
 * so a crash never leaves a half-written trace under the real name.
 * With a size cap (--trace-max), the trace is rotated whenever it reaches
 * half the cap: the part written so far is closed into PATH.1 (replacing
 * the one before, whose events are dropped) and a new part begins, so
 * PATH holds the newest events, PATH.1 the ones before, each a complete
 * trace, and the two together stay under the cap. */
#ifndef GS_PROF_TRACE_H
#define GS_PROF_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "event.h"

#define TRACE_MAX_PID 16

typedef struct {
    FILE *f;
    char path[4096], tmp[4200];
    uint64_t t_base; /* ns subtracted from every timestamp */
    uint8_t named[TRACE_MAX_PID][PL__COUNT + 1];
    uint8_t pid_named[TRACE_MAX_PID];
    uint64_t events;      /* in the part being written */
    uint64_t bytes;       /* written to that part */
    uint64_t max_bytes;   /* the cap on PATH and PATH.1 together (0: none) */
    uint64_t rotations, kept, dropped; /* parts closed; events in PATH.1; events dropped */
    gs_err_t failed;      /* a rotation that failed (the trace stops there) */
    int broken;
} trace_t;

int trace_open(trace_t *t, const char *path, uint64_t t_base, uint64_t max_bytes, gs_err_t *err);
void trace_span(trace_t *t, const prof_event_t *e);
void trace_counter(trace_t *t, const char *name, int pid, uint64_t ts_ns, double value);
/* A global instant marker (an epoch's end) across every process's track. */
void trace_instant(trace_t *t, const char *name, uint64_t ts_ns);
/* Finishes the JSON, fsyncs and renames into place. */
int trace_close(trace_t *t, gs_err_t *err);
/* What was written: "PATH", or with rotations, where the events are and
 * how many were dropped. */
void trace_summary(const trace_t *t, char *out, size_t n);

#endif
