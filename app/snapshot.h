/* snapshot.h - what a run publishes for the workbench: its recent epochs,
 * the profiler's totals, its state and configuration, and every live
 * knob's value as text. The engine thread fills it at each epoch boundary
 * (session.c); the workbench reads a copy, from this process or over the
 * remote protocol (remote_server.c, remote_client.c). */
#ifndef GS_SNAPSHOT_H
#define GS_SNAPSHOT_H

#include <stdint.h>

#include "engine/train/knob_table.h"
#include "engine/train/train.h"
#include "profiler/profiler.h"

#define SESSION_HISTORY 512
#define SESSION_MAX_KNOBS 48
/* session_command's return for `quit` (beside GS_OK, GS_EINPUT and GS_EFAIL). */
#define SESSION_QUIT 100

typedef struct {
    char name[24], value[48];
    int idle; /* the run leaves its mechanism unused (a streaming knob of a run in memory) */
} session_knob_t;

typedef struct {
    epoch_stats_t epochs[SESSION_HISTORY]; /* the most recent, oldest first */
    int nepochs;
    prof_totals_t last_totals;             /* profiler totals of the last epoch */
    int paused, finished, failed;
    int idle;          /* paused, and every command so far served */
    char error[512];
    char notice[512];  /* the outcome of the last request the engine served (checkpoint, load, set) */
    uint64_t notice_seq;
    char dataset[64], model[32], topology[128];
    char backend[16]; /* where the kernels run: memory (host), cpu (virtual devices) or cuda */
    char gpu_note[256]; /* why the GPU timeline is missing, if it is */
    run_kind_t kind;                  /* the run's driver, engine (its devices) and place (its ranks) */
    int chunks, gpu;                  /* gpu: a run on the CUDA plugin (in memory or on its logical devices) */
    double link_scale;
    int nlinks;
    char link_name[TOPO_MAX_LINKS][24];
    double link_rate[TOPO_MAX_LINKS]; /* bytes/s over the last epoch */
    train_cfg_t cfg;                  /* the configuration in force */
    knob_facts_t facts;               /* what knob values the run allows */
    session_knob_t knobs[SESSION_MAX_KNOBS]; /* every live knob's value in force, as text */
    int nknobs;
    part_report_t parts;              /* a streamed run's split and its parts' times */
    int64_t epoch;                    /* epochs completed */
    uint64_t epochs_total;            /* epochs published since the session opened (a load does not reset it) */
} session_snapshot_t;

#endif
