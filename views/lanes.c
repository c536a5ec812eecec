/* lanes.c - see lanes.h. */
#include "lanes.h"

#include <stdio.h>

static int add(lane_row_t *rows, int n, int device, int lane, const char *label)
{
    rows[n].device = device, rows[n].lane = lane;
    snprintf(rows[n].label, sizeof rows[n].label, "%s", label);
    return n + 1;
}

/* A group of lanes for each of g devices or ranks, labelled "<prefix><i> <LANE>". */
static int add_groups(lane_row_t *rows, int n, int g, char prefix, const int *lanes, int k)
{
    char lab[16];
    if (g > PROF_MAX_DEV - 1) g = PROF_MAX_DEV - 1; /* past what the profiler keeps */
    for (int d = 0; d < g; d++)
        for (int j = 0; j < k; j++) {
            snprintf(lab, sizeof lab, "%c%d %s", prefix, d, prof_lane_name((prof_lane_t)lanes[j]));
            n = add(rows, n, d, lanes[j], lab);
        }
    return n;
}

int timeline_lanes(const view_state_t *v, lane_row_t *rows)
{
    static const int rank_lanes[] = {PL_COMPUTE, PL_NETSEND, PL_NETRECV}, dev_lanes[] = {PL_H2D, PL_COMPUTE, PL_D2H, PL_D2D};
    if (v->kind.ranks) return add_groups(rows, 0, v->kind.ranks, 'r', rank_lanes, 3);
    int n = 0;
    if (v->kind.driver == DRIVER_SAMPLED) {
        n = add(rows, n, -1, PL_SAMPLE, "S sample");
        n = add(rows, n, -1, PL_REINDEX, "R reindex");
        n = add(rows, n, -1, PL_LOOKUP, "K lookup");
        n = add(rows, n, 0, PL_H2D, "T copy");
        return add(rows, n, 0, PL_COMPUTE, "d0 step");
    }
    n = add(rows, n, -1, PL_COMPUTE, "host cpu");
    return add_groups(rows, n, v->ndev, 'd', dev_lanes, 4);
}
