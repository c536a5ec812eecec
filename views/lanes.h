/* lanes.h - which lanes the timeline draws, in order, with their labels:
 * per rank of a distributed run (compute, network out, network in); for a
 * sampled run the preprocessing stages on the host (S, R, K), then the
 * batch transfers and the steps on the emulated device; otherwise the host
 * then per device (h2d, compute, d2h, d2d). Pure logic, unit-tested. */
#ifndef GS_VIEWS_LANES_H
#define GS_VIEWS_LANES_H

#include "view_state.h"

#define LANES_MAX (4 * (PROF_MAX_DEV - 1) + 1) /* the host and 4 lanes of each device drawn */

typedef struct {
    int device; /* the profiler's device index: -1 the host */
    int lane;   /* prof_lane_t */
    char label[16];
} lane_row_t;

/* Fills rows (LANES_MAX at most) and returns how many. */
int timeline_lanes(const view_state_t *v, lane_row_t *rows);

#endif
