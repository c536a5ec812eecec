/* session_state.h - the workbench's session as data: the trainer the
 * engine thread alone touches, the requests the UI and console queue for
 * it under the session lock, and the snapshot the engine publishes under
 * the snapshot lock (session.h has the threads and the commands;
 * session_publish.h what the engine publishes). */
#ifndef GS_SESSION_STATE_H
#define GS_SESSION_STATE_H

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
    unsigned cora_owned;       /* the knobs the workbench's Cora setting owns (cora_setting.h): a load moves them */
} session_t;

#endif
