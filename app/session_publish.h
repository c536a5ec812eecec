/* session_publish.h - what the session's engine thread publishes for the
 * UI: the snapshot (the run's state, its knobs, the epochs so far and the
 * links' rates), with each epoch's metrics row and checkpoint, and the
 * one-line notices (a change applied or refused, a warning). Engine
 * thread only: these read the trainer, which no other thread touches;
 * each takes the snapshot lock for what it writes. */
#ifndef GS_SESSION_PUBLISH_H
#define GS_SESSION_PUBLISH_H

#include "session_state.h"

/* The snapshot after an epoch (st) or a change (st NULL); failed with
 * error marks the run failed. Saves --checkpoint and appends the metrics
 * row after an epoch, either of which can fail the epoch. */
void session_publish(session_t *s, const epoch_stats_t *st, int failed, const char *error);
void session_notice(session_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The trainer's warnings (a damaged cache rebuilt) as notices, then cleared. */
void session_notice_warnings(session_t *s, trainer_t *t);

#endif
