/* session.h - the workbench's run: the engine thread and the commands that
 * reach it. The engine thread alone touches the trainer (docs/
 * ARCHITECTURE.md, "Threads"): the UI thread and the console send it
 * requests (knob changes, checkpoints, a new dataset or model) under the
 * session lock, and the engine applies them at the next epoch boundary,
 * outside the lock, then publishes a snapshot that the UI reads. A knob
 * value is validated in full when it is typed, so a value the run cannot
 * use is refused at once and changes nothing. Nothing done under either
 * lock is unbounded. */
#ifndef GS_SESSION_H
#define GS_SESSION_H

#include "session_state.h"

/* comm: rank 0's MPI communication of a distributed run (cfg->dist), or
 * NULL. checkpoint and metrics may be empty. With start_paused the engine
 * waits for a step (or resume) before its first epoch. */
int session_open(session_t *s, const train_cfg_t *cfg, struct dist_comm *comm, long max_epochs, const char *checkpoint,
                 const char *metrics, int start_paused, gs_err_t *err);
/* The engine pauses (once) when the run reaches epoch n: the workbench's --epochs. */
void session_pause_at(session_t *s, long n);
/* The knobs the workbench's Cora setting owns at the start (cora_setting.h);
 * a console set of one gives it to the user, and a load moves the others. */
void session_own_cora_setting(session_t *s, unsigned owned);
/* Asks the engine to stop after the current chunk and joins it. */
void session_close(session_t *s);
void session_snapshot(session_t *s, session_snapshot_t *out);
/* The pending value of a live knob as text, or "" when none is pending. */
void session_pending(session_t *s, const char *knob, char *out, size_t n);

/* Runs one console command line; writes a one-line reply into reply.
 * Returns GS_OK, GS_EINPUT for a bad command (nothing changed), GS_EFAIL
 * when it failed, or SESSION_QUIT for quit. */
int session_command(session_t *s, const char *line, char *reply, int replysz);
/* The interface of a session in this process (session_if.h). */
session_if_t session_local(session_t *s);
/* NULL-terminated command names (for completion and help). */
const char *const *session_command_names(void);
const char *session_command_help(void);

#endif
