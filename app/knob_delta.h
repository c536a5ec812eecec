/* knob_delta.h - the line the workbench shows once a knob it changed has
 * run an epoch: the counter that knob moves, before and after, and the
 * ratio ("selective on: gather_h2d_bytes 107.5 MB -> 24.04 MB (4.47x)"),
 * replacing the "at the next epoch" message. Before is the last epoch
 * finished when the knob was set; after is the first epoch that ran with
 * it and did not record a memory plan (a changed knob drops the plan, and
 * the epochs that record the next one keep nothing: up to two, then the
 * third is taken as it is). Also the counters' value and ratio wording,
 * shared with the scripts' effect lines. */
#ifndef GS_KNOB_DELTA_H
#define GS_KNOB_DELTA_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

/* The counter a knob moves (epoch_ms for one without a closer one). */
const stat_desc_t *knob_counter(const char *knob);
/* v in the counter's unit for people ("107.5 MB", "39.0%", "8.2 ms"). */
void stat_value_str(const stat_desc_t *d, double v, char *out, size_t n);
/* The change from before to after: a share's points gained ("+38
 * points"), else before / after ("4.47x") or why there is none ("none
 * left", "from none", "both zero"). */
void stat_change_str(const stat_desc_t *d, double before, double after, char *out, size_t n);

#define KNOB_DELTA_SETTLE 3 /* the epochs with a change a delta line waits for at most */

typedef struct {
    int active;
    char knob[32], value[64];
    const stat_desc_t *d;
    double before;
    uint64_t seen_total; /* epochs published while the change was still pending */
} knob_delta_t;

/* Starts watching knob, just set to value, from the snapshot of that moment
 * (nothing to compare with before a first epoch: stays inactive). */
void knob_delta_start(knob_delta_t *k, const char *knob, const char *value, const session_snapshot_t *snap);
/* With the knob's pending value now ("" once applied) and a fresh
 * snapshot: 1 and the line in out when an epoch has run with the change. */
int knob_delta_poll(knob_delta_t *k, const char *pending, const session_snapshot_t *snap, char *out, size_t n);

#endif
