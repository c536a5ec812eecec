/* session.h - owns the engine thread for the workbench. The engine trains
 * epoch after epoch (or one step at a time when paused); the UI thread
 * never touches the trainer directly: it sends commands through the
 * session and reads a snapshot that the engine refreshes after every
 * epoch. Knob changes go through knobs.h and apply at the epoch boundary. */
#ifndef GS_SESSION_H
#define GS_SESSION_H

#include <pthread.h>

#include "../engine/knobs.h"
#include "../engine/train.h"
#include "../profiler/profiler.h"
#include "metrics_csv.h"

#define SESSION_HISTORY 512

typedef struct {
    epoch_stats_t epochs[SESSION_HISTORY]; /* the most recent, oldest first */
    int nepochs;
    prof_totals_t last_totals;             /* profiler totals of the last epoch */
    int paused, finished, failed;
    char error[512];
    char dataset[64], model[32], topology[32];
    char backend[16]; /* where the kernels run: memory (host), cpu (virtual devices) or cuda */
    char gpu_note[256]; /* why the GPU timeline is missing, if it is */
    int devices, chunks, streaming, gpu;
    double link_scale;
    int nlinks;
    char link_name[TOPO_MAX_LINKS][24];
    double link_rate[TOPO_MAX_LINKS]; /* bytes/s over the last epoch */
} session_snapshot_t;

typedef struct {
    trainer_t t;
    prof_t prof;
    pthread_t engine;
    pthread_mutex_t lock;      /* trainer knobs and the run state */
    pthread_cond_t wake;
    pthread_mutex_t snap_lock; /* the snapshot */
    session_snapshot_t snap;
    int paused, quit, started;
    long steps;                /* epochs to run while paused (step / run N) */
    long max_epochs;           /* stop after this many (0 = no limit) */
    char checkpoint[4096];     /* saved after every epoch when set */
    train_cfg_t reload;        /* load / model: the configuration to reopen with */
    int reload_pending;
    metrics_csv_t metrics;     /* every epoch's row; written each epoch when it has a path */
    char gpu_note[256];        /* set when CUPTI could not start */
} session_t;

/* checkpoint and metrics may be empty. */
int session_open(session_t *s, train_cfg_t *cfg, long max_epochs, const char *checkpoint, const char *metrics,
                 gs_err_t *err);
/* Asks the engine to stop after the current epoch and joins it. */
void session_close(session_t *s);
void session_snapshot(session_t *s, session_snapshot_t *out);

/* Runs one console command line; writes a one-line reply into reply.
 * Returns 0, GS_EINPUT for a bad command (nothing changed), or 1 for quit. */
int session_command(session_t *s, const char *line, char *reply, int replysz);
/* NULL-terminated command names (for completion and help). */
const char *const *session_command_names(void);
const char *session_command_help(void);

#endif
