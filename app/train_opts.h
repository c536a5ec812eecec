/* train_opts.h - the flags of `gnnscope train` and of the workbench
 * (`gnnscope [tui]`): every run option of engine/train/knob_table.c, plus the
 * command's own (checkpoints, traces, JSON; the workbench's --max-epochs
 * and --script). Each command starts from its own defaults (the workbench
 * and the demos stream through 2 emulated devices under one switch), and
 * --help prints those. */
#ifndef GS_TRAIN_OPTS_H
#define GS_TRAIN_OPTS_H

#include "engine/train/train.h"

/* The --backend choices, in order. */
enum { BACKEND_MEMORY, BACKEND_CPU, BACKEND_CUDA, BACKEND_AUTO };
/* OPTS_TUI: the workbench (knob keys show their effects on Cora);
 * OPTS_DEMO: a classroom script's base, which its #flags complete. */
typedef enum { OPTS_TRAIN, OPTS_TUI, OPTS_DEMO } opts_cmd_t;

typedef struct {
    train_cfg_t cfg;
    char checkpoint[4096], resume[4096], trace[4096], metrics[4096], script[4096];
    char pace[32]; /* tui: how a script's says wait in a terminal (script_parse_pace) */
    int json, quiet, profile, backend;
    uint64_t trace_max;  /* --trace-max: a trace's size cap (profiler/trace.h), 0 = none */
    int ranks;           /* --ranks N: launch N MPI ranks (launch.c) */
    int dist;            /* --dist: this process is one rank of a job someone launched */
    char hostfile[4096]; /* passed to mpirun */
    int64_t max_epochs; /* tui: quit after this many epochs (0 = never) */
    char serve[4096];   /* tui: serve the session on this Unix socket (remote.h) */
    unsigned cora_owned; /* tui: the knobs its Cora setting owns (cora_setting.h) */
} train_opts_t;

/* Parses argv into o, starting from cmd's defaults. GS_EINPUT with err on
 * bad usage. --backend auto says on stderr why it did not pick the GPU;
 * --devices N beyond the topology picks a topology and says which. */
int train_opts_parse(opts_cmd_t cmd, int argc, char **argv, train_opts_t *o, int *help, gs_err_t *err);
/* Prints usage, then every flag with what it accepts and cmd's default. */
void train_opts_help(opts_cmd_t cmd, const char *usage);

#endif
