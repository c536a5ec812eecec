/* event.h - the profiler's event model (docs/ARCHITECTURE.md, "Profiler and views"): a span on one lane
 * of one device (or rank), with the chunk it belongs to, its bytes and
 * FLOPs. Times are CLOCK_MONOTONIC nanoseconds. */
#ifndef GS_PROF_EVENT_H
#define GS_PROF_EVENT_H

#include <stdint.h>

typedef enum {
    PL_H2D,
    PL_D2H,
    PL_D2D,
    PL_COMPUTE,
    PL_HOSTFILTER,
    PL_NETSEND,
    PL_NETRECV,
    PL_SAMPLE,  /* sampled runs' host preprocessing: S, R and K (prepro_sched.h) */
    PL_REINDEX,
    PL_LOOKUP,
    PL__COUNT
} prof_lane_t;

typedef enum { PH_FWD, PH_BWD, PH_OPT, PH_LOAD, PH_SAMPLE, PH__COUNT } prof_phase_t;

typedef struct {
    uint64_t t0, t1; /* ns */
    double bytes, flops;
    int16_t device, rank;
    uint8_t lane, phase;
    int16_t layer;
    int32_t row, col, sub;
    char op[16];
} prof_event_t;

const char *prof_lane_name(prof_lane_t l);
const char *prof_phase_name(prof_phase_t p);

#endif
