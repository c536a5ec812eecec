/* prepro_sched.h - GraphTensor's service-wide tensor scheduler (§V-B,
 * Fig. 13-14) on emulated time: where each batch's preprocessing subtasks
 * and its training step fall on the modeled machine's timeline. The
 * subtasks run for real (sampler.h, the trainer's driver); their times
 * are read off the model (their counted accesses and bytes at the modeled
 * host's per-thread costs, prepro_sched.c), so a run is deterministic.
 *
 * The modeled host has `threads` preprocessing threads (--prepro-threads)
 * sharing its memory bandwidth (a parallel subtask on k threads runs k
 * times faster); the device link is the topology's host-to-device path of
 * device 0. Per hop h:
 *   S_h  A: the draw, parallel; H: id-map updates;
 *   R_h  the block's edges in local rows, parallel;
 *   K_h  the feature rows hop h added (K_top: the targets' own), parallel;
 *   T    each block and each looked-up piece over the link.
 * The id map is shared: where several threads update it under a lock,
 * each update pays for the lock's handoff, a cache-line transfer per
 * waiting thread (prepro_sched.c), so the locked part grows with the
 * threads while the draw shrinks (GraphTensor §V-B, "Relaxing
 * contention", Fig. 14a). Modes:
 * serial     GraphTensor's Dynamic-GT (and DGL, Fig. 19): every subtask
 *            of a batch in order, each on every thread it can use (the
 *            map's updates after the draw, without a shared lock, so S and
 *            R run at full speed, as the paper's Fig. 20 shows), then the
 *            transfers; batch b+1's preprocessing runs while batch b
 *            trains (two buffers), but nothing inside a batch overlaps;
 * blocking   the same order with no overlap anywhere: a batch is prepared
 *            after the previous step ends (PyG's loader, single-buffered);
 * basic      the service-wide scheduler before its contention relief
 *            (Fig. 13): S on every thread but one, each updating the map
 *            under its lock; the last thread runs K_top at once and K_h
 *            and R_h as soon as hop h's map is done, R's map reads queueing
 *            behind S's lock while S runs (Fig. 14a's two contentions);
 * pipelined  GraphTensor's scheduler (the default): as basic with the
 *            contention relaxed: S's draw on every thread but one and its
 *            map updates serialized on one of them without a lock,
 *            overlapped with the draw; R_h only once sampling ends (R_h
 *            kept off S_{h-1}); K as in basic.
 * In basic and pipelined every thread joins the side thread when sampling
 * ends; each piece is transferred as soon as it is ready, after S_1 (the
 * barrier that sizes the device buffers); and, as in serial, batch b+1's
 * preprocessing runs while batch b trains, in the second of two buffers
 * (it may start once batch b-1's step freed it). */
#ifndef GS_PREPRO_SCHED_H
#define GS_PREPRO_SCHED_H

#include "sampler.h"
#include "engine/machine/topology.h"

#define PREPRO_DEFAULT_THREADS 8
#define PREPRO_MAX_THREADS 256

typedef enum { PREPRO_SERIAL = 0, PREPRO_PIPELINED = 1, PREPRO_BLOCKING = 2, PREPRO_BASIC = 3 } prepro_mode_t;
typedef enum { STAGE_SAMPLE, STAGE_REINDEX, STAGE_LOOKUP, STAGE_TRANSFER, STAGE_COMPUTE, STAGE__COUNT } prepro_stage_t;

/* One span of the schedule, for the profiler: a preprocessing subtask of
 * batch `batch` (hop: the block it builds or the rows it looks up, 0 for
 * the targets' own rows), or one op of a training step (op names it;
 * batch -1: the epoch's evaluation). */
typedef struct stage_span {
    prepro_stage_t stage;
    int hop, phase, layer;
    int64_t batch;
    double t0, t1, bytes, flops;
    const char *op;
} stage_span_t;
typedef void (*stage_hook_t)(void *user, const stage_span_t *sp);

typedef struct {
    prepro_mode_t mode;
    int threads;               /* the modeled preprocessing threads, 2..PREPRO_MAX_THREADS */
    stage_hook_t on_span;      /* optional: every subtask's span */
    void *span_user;
    int64_t batch;             /* the batch being placed */
    double thread_bw;          /* bytes/s of one modeled host thread */
    double probe_s;            /* an id-map access: a cache hit, or a miss for a map past the cache */
    double link_bw, link_lat;  /* host -> device 0 */
    double pre_free;           /* when the preprocessing threads are next free */
    double link_free;          /* when the host-to-device link is */
    double step_end, step_end_prev; /* the last batch's training step ends, and the one before */
    double stage_s[STAGE__COUNT]; /* summed span time per stage since the last reset */
    double stall_s;            /* steps waiting for their batch's preprocessing */
    double lock_s;             /* basic: of the sampling, the id map's lock handed between its threads */
    double lock_sr_s;          /* basic: of the reindexing, its map reads waiting behind the sampling's lock */
} prepro_sched_t;

/* The graph's vertices size the id map. Keeps mode, threads and the hook. */
void prepro_sched_init(prepro_sched_t *s, const topology_t *t, int64_t vertices, double start);
/* Places the preprocessing of batch `index` (its sampler work, feat
 * features wide) in s->mode; returns when the batch is on the device. */
double prepro_sched_batch(prepro_sched_t *s, const batch_t *b, int64_t index, int64_t feat);
/* Places its training step of step_s seconds, starting when both the
 * batch (ready) and the device are; returns the step's end. */
double prepro_sched_step(prepro_sched_t *s, double ready, double step_s);

#endif
