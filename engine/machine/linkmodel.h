/* linkmodel.h - the fluid model of transfers sharing links.
 * Active transfers get max-min fair rates (progressive filling): each link's
 * bandwidth is split fairly among the transfers crossing it, and a transfer
 * limited elsewhere leaves its unused share to the others. A transfer starts
 * after its path's latency and finishes when its bytes have flowed, so it
 * never completes before its modeled time. Two uses:
 *   - lm_simulate: offline, a batch of transfers with start times;
 *   - lm_t: online, for copy engines running in real time; a copy calls
 *     lm_transfer, which blocks until the model says it is done. */
#ifndef GS_LINKMODEL_H
#define GS_LINKMODEL_H

#include <pthread.h>
#include <stdint.h>

#include "topology.h"

typedef struct {
    const topo_path_t *path;
    double bytes;
    double start;  /* seconds */
    double finish; /* output */
} lm_transfer_t;

/* Computes finish times for n transfers on topology t. */
void lm_simulate(const topology_t *t, lm_transfer_t *xf, int n);

/* One event step of the fluid model over n flows. From `now`, the ready
 * (ready[i] <= now) unfinished flows get their fair rates and move on to
 * the next event (a flow's latency elapses or a flow finishes) or to
 * `until`, whichever comes first. Returns the time reached (INFINITY when
 * nothing is left to happen); sets done[i] for flows that finished and
 * adds moved bytes to link_bytes (may be NULL). rate and act are the
 * caller's scratch of n entries. */
double lm_fluid_step(const topology_t *t, int n, const topo_path_t *const *path, const double *ready, double *rem,
                     const double *total, char *done, double now, double until, double *rate, double *link_bytes,
                     const topo_path_t **act);
/* Seconds of latency along a path. */
double lm_path_latency(const topology_t *t, const topo_path_t *p);
/* The narrowest link's bandwidth along a path (INFINITY for an empty path). */
double lm_path_bw(const topology_t *t, const topo_path_t *p);

#define LM_MAX_ACTIVE 64

typedef struct {
    const topology_t *topo;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    double last;                 /* model time of the last rate update */
    int nactive;
    struct lm_active {
        const topo_path_t *path;
        double bytes, remaining; /* total and left to move */
        double rate;             /* bytes/s */
        double ready;            /* latency elapsed at this model time */
        int done;
        uint64_t id;
    } active[LM_MAX_ACTIVE];
    uint64_t next_id;
    double link_bytes[TOPO_MAX_LINKS]; /* bytes carried per link (counters) */
} lm_t;

void lm_init(lm_t *m, const topology_t *t);
void lm_destroy(lm_t *m);
/* Blocks the caller until `bytes` have crossed `path` in modeled time
 * (measured on CLOCK_MONOTONIC), sharing links with concurrent callers. */
void lm_transfer(lm_t *m, const topo_path_t *path, double bytes);
/* The same in two steps, so a copy engine can do its memcpy while the
 * modeled transfer runs: the copy then takes max(memcpy, modeled time). */
uint64_t lm_begin(lm_t *m, const topo_path_t *path, double bytes);
void lm_wait(lm_t *m, uint64_t id);

#endif
