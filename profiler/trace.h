/* trace.h - Chrome trace-event JSON writer (opens in Perfetto and
 * chrome://tracing): one pid per device or rank (pid 0 is the host), one
 * tid per lane, "X" spans with the chunk coordinates, layer, phase, bytes
 * and FLOPs as args, "C" counters, and "M" events naming processes and
 * threads. Written to a temporary file and renamed into place on close,
 * so a crash never leaves a half-written trace under the real name. */
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
    uint64_t events;
} trace_t;

int trace_open(trace_t *t, const char *path, uint64_t t_base, gs_err_t *err);
void trace_span(trace_t *t, const prof_event_t *e);
void trace_counter(trace_t *t, const char *name, int pid, uint64_t ts_ns, double value);
/* Finishes the JSON, fsyncs and renames into place. */
int trace_close(trace_t *t, gs_err_t *err);

#endif
