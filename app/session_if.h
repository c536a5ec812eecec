/* session_if.h - what the workbench's views, keys and console use of a
 * run: its snapshot, its commands, pending knob values, and the profiler's
 * recent events and window. The run is either a session in this process
 * (session_local) or one that rank 0 of a distributed job serves over a
 * Unix socket (remote.h); the workbench does not know which. */
#ifndef GS_SESSION_IF_H
#define GS_SESSION_IF_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

typedef struct session_if {
    void *self;
    void (*snapshot)(void *self, session_snapshot_t *out);
    int (*command)(void *self, const char *line, char *reply, int n);
    void (*pending)(void *self, const char *knob, char *out, size_t n);
    /* up to max of the most recent profiler events, oldest first */
    int (*history)(void *self, prof_event_t *out, int max);
    void (*window)(void *self, prof_window_t *out);
    uint64_t (*latest_ns)(void *self);
} session_if_t;


#endif
