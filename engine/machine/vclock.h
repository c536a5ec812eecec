/* vclock.h - emulated time (docs/ARCHITECTURE.md, "Emulated time"). The
 * cpu backend's devices run every kernel and copy for real, but what a
 * task costs is read off the modeled machine, on a virtual timeline:
 *   a copy       its link-model time on its path (vsim.c shares links);
 *   a kernel     --kernel-time roofline: max(FLOPs / the GPU's FLOP/s,
 *                bytes / its memory bandwidth) plus a launch; or measured:
 *                the process CPU time it took, scaled from a host core's
 *                rate to the GPU's;
 *   a host op    roofline: max(FLOPs / the modeled host's FLOP/s, bytes /
 *                its memory bandwidth); measured: its CPU time spread over
 *                the worker threads.
 * With roofline times a run is deterministic. `now` only moves forward:
 * host ops advance it, and a batch of device tasks ends it at its makespan
 * (vsim.h). The wall clock mode (--clock wall) keeps no vclock. */
#ifndef GS_VCLOCK_H
#define GS_VCLOCK_H

#include "topology.h"

typedef enum { CLOCK_VIRTUAL = 0, CLOCK_WALL = 1 } clock_kind_t;
typedef enum { KTIME_ROOFLINE = 0, KTIME_MEASURED = 1 } ktime_kind_t;

typedef struct vclock {
    ktime_kind_t ktime;
    double now;                  /* seconds on the virtual timeline */
    double gpu_flops, gpu_bw, launch_s, host_flops, host_bw;
    double core_flops;           /* measured times: a host core's FLOP/s */
    int threads;                 /* measured host ops: CPU time is shared by this many */
    double host_s;               /* host op time charged since the caller reset it */
    int ops_on_gpu;              /* 1: the executor's ops stand for the emulated GPU's kernels (the sampled
                                  * driver's steps): priced by its roofline, or measured CPU time scaled to it */
} vclock_t;

/* Starts at `start` with t's modeled rates; core_flops and threads scale measured times. */
void vclock_init(vclock_t *c, const topology_t *t, ktime_kind_t kt, double core_flops, int threads, double start);
/* A device kernel's modeled seconds. */
double vclock_kernel_s(const vclock_t *c, double flops, double bytes, double cpu_s);
/* A host op's modeled seconds (what vclock_host_op charges). */
double vclock_host_s(const vclock_t *c, double flops, double bytes, double cpu_s);
/* Charges a host op at `now` and moves past it; its span in *t0, *t1. */
void vclock_host_op(vclock_t *c, double flops, double bytes, double cpu_s, double *t0, double *t1);
/* The process's CPU seconds so far (for measured times). */
double vclock_cpu_s(void);

#endif
