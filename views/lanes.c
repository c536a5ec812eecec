/* lanes.c - see lanes.h. */
#include "lanes.h"

#include <stdio.h>

static int add(lane_row_t *rows, int n, int device, int lane, const char *label)
{
    rows[n].device = device, rows[n].lane = lane;
    snprintf(rows[n].label, sizeof rows[n].label, "%s", label);
    return n + 1;
}

int timeline_lanes(const view_state_t *v, lane_row_t *rows)
{
    int n = 0;
    char lab[16];
    if (v->ranks) {
        static const int rank_lanes[] = {PL_COMPUTE, PL_NETSEND, PL_NETRECV};
        int nr = v->ranks < PROF_MAX_DEV - 1 ? v->ranks : PROF_MAX_DEV - 1;
        for (int d = 0; d < nr; d++)
            for (int k = 0; k < 3; k++) {
                snprintf(lab, sizeof lab, "r%d %s", d, prof_lane_name((prof_lane_t)rank_lanes[k]));
                n = add(rows, n, d, rank_lanes[k], lab);
            }
        return n;
    }
    if (v->sampled) {
        n = add(rows, n, -1, PL_SAMPLE, "S sample");
        n = add(rows, n, -1, PL_REINDEX, "R reindex");
        n = add(rows, n, -1, PL_LOOKUP, "K lookup");
        n = add(rows, n, 0, PL_H2D, "T copy");
        return add(rows, n, 0, PL_COMPUTE, "d0 step");
    }
    static const int dev_lanes[] = {PL_H2D, PL_COMPUTE, PL_D2H, PL_D2D};
    n = add(rows, n, -1, PL_COMPUTE, "host cpu");
    int nd = v->ndev < PROF_MAX_DEV - 1 ? v->ndev : PROF_MAX_DEV - 1;
    for (int d = 0; d < nd; d++)
        for (int k = 0; k < 4; k++) {
            snprintf(lab, sizeof lab, "d%d %s", d, prof_lane_name((prof_lane_t)dev_lanes[k]));
            n = add(rows, n, d, dev_lanes[k], lab);
        }
    return n;
}
