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

#include <pthread.h>

#include "engine/train/train.h"
#include "metrics_csv.h"
#include "session_if.h"
#include "session_mark.h"

#define SESSION_MAX_SAVES 4

typedef struct {
    trainer_t *t;              /* the engine thread's alone (a load swaps it) */
    train_env_t env;           /* the trainer's observers (the profiler) and, on rank 0, its MPI communication */
    prof_t prof;
    pthread_t engine;
    pthread_mutex_t lock;      /* requests and the run state */
    pthread_cond_t wake;
    pthread_mutex_t snap_lock; /* the snapshot and the metrics rows */
    session_snapshot_t snap;
    int paused, quit, started;
    int dist;                  /* rank 0 of a distributed run (fixed at open) */
    int idle;                  /* the engine waits, every request served */
    long steps;                /* epochs to run while paused (step / run N) */
    long max_epochs;           /* stop after this many (0 = no limit) */
    long pause_at;             /* pause once the run reaches this epoch (0 = never; the workbench's --epochs) */
    char checkpoint[4096];     /* saved after every epoch when set */
    train_cfg_t want;          /* set: the pending configuration, validated */
    int has_want;
    train_cfg_t applying;      /* the engine took it and applies it: still pending for get until published */
    int has_applying;
    train_cfg_t reload;        /* load / model: the configuration to reopen with */
    int reload_pending;
    char saves[SESSION_MAX_SAVES][4096]; /* checkpoint save requests, served at the next boundary */
    int nsaves;
    metrics_csv_t metrics;     /* every epoch's row; written each epoch when it has a path */
    char gpu_note[256];        /* set when CUPTI could not start */
    session_mark_t mark;       /* the console's mark (under snap_lock) */
} session_t;

/* comm: rank 0's MPI communication of a distributed run (cfg->dist), or
 * NULL. checkpoint and metrics may be empty. With start_paused the engine
 * waits for a step (or resume) before its first epoch. */
int session_open(session_t *s, const train_cfg_t *cfg, struct dist_comm *comm, long max_epochs, const char *checkpoint,
                 const char *metrics, int start_paused, gs_err_t *err);
/* The engine pauses (once) when the run reaches epoch n: the workbench's --epochs. */
void session_pause_at(session_t *s, long n);
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
