/* run_json.h - the JSON summary of `gnnscope train --json`: the run's
 * shape and results, every per-epoch counter flagged for it (stats.h), the
 * knobs in force (engine/train/knob_table.c), DKP's choices, and the streaming
 * engine's own report (its facts), as one object on one line. */
#ifndef GS_RUN_JSON_H
#define GS_RUN_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "engine/device/cuda_plugin.h"
#include "engine/train/train.h"

typedef struct {
    double *loss, *ms, *eval_ms, *flops, *test_acc; /* per epoch of this run */
    int n;
    epoch_stats_t last;
    uint64_t events, dropped; /* profiler events recorded and dropped */
    int gpu_measured;         /* a cuda run with CUPTI on: gpu is its last epoch's */
    gpu_metrics_t gpu;
} run_log_t;

void run_json_print(FILE *f, const trainer_t *t, const run_log_t *log);
/* s as a JSON string. */
void json_str(FILE *f, const char *s);

#endif
