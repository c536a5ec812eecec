/* remote_check.h - what a frame of the remote protocol (remote.h) may
 * hold, checked before anything in it is used. The two ends are one build
 * (the hello compares the records' layouts), so records travel as bytes;
 * these functions decide whether the bytes are a record this build could
 * have written: every count within its array, every index within its
 * table, every string NUL-terminated within its field and free of control
 * bytes, every configuration value one its option accepts, every number a
 * view divides or draws by finite. A failure names the field. Pure
 * functions of the bytes (the remote fuzz harness calls them). */
#ifndef GS_REMOTE_CHECK_H
#define GS_REMOTE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

/* A request's payload (the server's side). 0, or -1 with why. */
int remote_check_request(uint32_t kind, const char *p, uint64_t len, char *why, size_t n);

/* The replies (the client's side): each fills its out from p[0..len) when
 * they hold one valid record, else returns -1 with why. */
int remote_decode_u64(const char *p, uint64_t len, uint64_t *out, char *why, size_t n);
int remote_decode_snapshot(const char *p, uint64_t len, session_snapshot_t *out, char *why, size_t n);
/* events: the server's sequence after them, and k events into out (room for PROF_HISTORY) */
int remote_decode_events(const char *p, uint64_t len, uint64_t *seq, prof_event_t *out, uint32_t *k, char *why, size_t n);
int remote_decode_window(const char *p, uint64_t len, prof_window_t *out, char *why, size_t n);
/* a command's outcome: its code and reply text (into text[0..ntext)) */
int remote_decode_command(const char *p, uint64_t len, int32_t *rc, char *text, size_t ntext, char *why, size_t n);
/* a knob's pending value as text (p is NUL-terminated by the frame reader) */
int remote_decode_text(const char *p, uint64_t len, char *text, size_t ntext, char *why, size_t n);

/* Whether a snapshot is one a session could have published. */
int snapshot_check(const session_snapshot_t *s, char *why, size_t n);
int prof_event_check(const prof_event_t *e, char *why, size_t n);

#endif
