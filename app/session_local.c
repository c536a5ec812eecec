/* session_local.c - what the workbench does to a session in this
 * process from outside: its interface (session_if.h: snapshot, commands,
 * pending knobs, the profiler's history and window) and the pause at
 * --epochs. */
#include "session.h"

void session_pause_at(session_t *s, long n)
{
    pthread_mutex_lock(&s->lock);
    s->pause_at = n;
    pthread_mutex_unlock(&s->lock);
}

static void if_snapshot(void *self, session_snapshot_t *out) { session_snapshot(self, out); }
static int if_command(void *self, const char *line, char *reply, int n) { return session_command(self, line, reply, n); }
static void if_pending(void *self, const char *knob, char *out, size_t n) { session_pending(self, knob, out, n); }
static int if_history(void *self, prof_event_t *out, int max) { return prof_history(&((session_t *)self)->prof, out, max); }
static void if_window(void *self, prof_window_t *out) { prof_get_window(&((session_t *)self)->prof, out); }
static uint64_t if_latest(void *self) { return prof_latest_ns(&((session_t *)self)->prof); }

session_if_t session_local(session_t *s)
{
    return (session_if_t){s, if_snapshot, if_command, if_pending, if_history, if_window, if_latest};
}
