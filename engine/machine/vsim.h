/* vsim.h - the virtual timeline of a batch of device tasks (vclock.h): the
 * cpu backend runs each task for real when it is issued (issue order is a
 * valid order: a stream waits only for events already recorded) and logs
 * it; at a sync the log is replayed here as a discrete-event simulation of
 * the modeled machine. Each device stream runs its tasks in order; a task
 * starts at the later of its stream's last end, its issue time and (for a
 * wait) the recording of its event; a kernel lasts its modeled time; a
 * copy first spends its host-side time (the selective filter), then its
 * bytes flow through its path's links, sharing each link max-min fairly
 * with concurrent copies (linkmodel.h); without a topology a copy moves at
 * copy_bw. The outcome is each task's span and the batch's makespan. */
#ifndef GS_VSIM_H
#define GS_VSIM_H

#include "topology.h"

typedef enum { VS_COPY, VS_KERNEL, VS_RECORD, VS_WAIT } vs_kind_t;

typedef struct {
    int stream;                /* dev * lanes + lane */
    vs_kind_t kind;
    double issue;              /* virtual time the host issued it */
    double dur;                /* kernel: modeled seconds; copy: host-side seconds before it flows */
    double bytes;              /* copy */
    const topo_path_t *path;   /* copy, NULL without a topology */
    int event;                 /* record / wait */
    double t0, t1;             /* out: the task's span (a copy's span starts at its transfer) */
} vs_task_t;

/* Replays n tasks over nstreams streams and nevents events (ids < nevents).
 * Returns the makespan's end (at least start). link_bytes (per link of
 * topo) receives the bytes each link carried; may be NULL. */
double vsim_run(const topology_t *topo, double copy_bw, vs_task_t *task, int n, int nstreams, int nevents, double start,
                double *link_bytes);

/* The measure of the union of n intervals [iv[2i], iv[2i+1]) (sorts iv). */
double vsim_union(double *iv, int n);

#endif
