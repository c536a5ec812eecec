/* view_state.h - everything the views draw, gathered by the app from the
 * session snapshot and the profiler each frame. The views read only this. */
#ifndef GS_VIEW_STATE_H
#define GS_VIEW_STATE_H

#include <stdint.h>

#include "engine/device/cuda_plugin.h"
#include "engine/exec/stats.h"
#include "engine/partition/part_online.h"
#include "engine/train/run_kind.h"
#include "profiler/profiler.h"
#include "timeline_nav.h"

#define VIEW_SPLIT_MIN_W 60 /* a demo's before beside the live timeline from this width */

#define VIEW_HIST 64

#define VIEW_MAX_KNOBS 48

typedef struct {
    char name[24], value[48], pending[96];
    char key; /* the key that cycles it, or 0 */
    int idle; /* its mechanism unused by the run: drawn dim, marked (idle) */
} knob_row_t;

typedef struct {
    char title[256];
    const epoch_stats_t *epochs;
    int nepochs;
    prof_totals_t totals; /* of the last epoch */
    knob_row_t knobs[VIEW_MAX_KNOBS];
    int nknobs;
    prof_window_t window;
    double busy_hist[PROF_MAX_DEV][VIEW_HIST]; /* compute busy fraction per device, oldest first */
    run_kind_t kind;      /* the run's driver, engine and place (its ranks are the lanes of a distributed run) */
    int nhist, ndev, emulated; /* ndev: the devices drawn (a sampled run's emulated one, a GPU) */
    int simulated;        /* --simulate: times only, no loss or accuracy */
    char network[24];     /* its emulated network */
    int gpu;              /* a real GPU: gpu_m holds its live metrics */
    gpu_metrics_t gpu_m;
    const char *gpu_note; /* why GPU spans are missing, or "" */
    char topology[32];
    int nlinks;
    part_report_t parts;  /* a streamed run's split: the partitioner's view of each part */
    const char (*link_name)[24];
    const double *link_rate; /* bytes/s per link over the last epoch */
    const prof_event_t *events;
    int nevents;
    uint64_t t_end, span; /* the timeline window [t_end - span, t_end) in ns */
    uint64_t latest;      /* the latest event's end: how far a frozen window is from live */
    int follow;
    timeline_nav_t nav;   /* the first lane drawn and the cursor (fitted to the layout) */
    int plot_time;        /* the training plot against training time (time to accuracy), not epochs */
    /* a demo's before (its script marked): the timeline's window then, drawn beside the live one (when
     * the timeline is VIEW_SPLIT_MIN_W columns or more), and the demo's metric then and now (with the change) */
    const prof_event_t *before_events;
    int nbefore;
    uint64_t before_t_end, before_span;
    long long before_epoch;
    char metric_before[128], metric_now[128];
    char reply[512];
    const char *input; /* the console line being edited, or NULL when not focused */
    int cursor;
    int help, color;
    const char *help_text;
} view_state_t;

#endif
