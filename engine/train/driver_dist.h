/* driver_dist.h - the distributed driver (driver.h): a trainer as one rank
 * of a distributed job (docs/ARCHITECTURE.md, "Distributed training";
 * NeutronStar). Its parts: opening a rank (driver_dist_open.c: the cut,
 * the probes, the plan), the epoch boundary (driver_dist_boundary.c:
 * rank 0's decisions, knob changes, a new cut) and the job's account
 * (driver_dist_report.c); the table and the epoch are driver_dist.c.
 *
 * Every rank loads the dataset as a single process does, orders it
 * (--order) and cuts it into nranks contiguous owned ranges; the same
 * deterministic code gives every rank the same cut, checked by comparing a
 * hash of it. T_v, T_e and T_c are probed on rank 0 and broadcast. Each
 * rank then plans its dependencies (engine/dist/dep_plan.h), builds its blocks,
 * agrees its routes with the others (engine/dist/dist_engine.h), and keeps only
 * what it needs: the feature rows of its level-0 set, the labels and split
 * members of its owned rows, and the graph's topology (for re-planning
 * when --dep or --dep-ratio change). Training is the single process's:
 * the loss is normalised by the whole graph's labelled count, parameter
 * gradients are all-reduced once per step, loss and accuracy counts are
 * summed over the ranks, and dropout masks are keyed by original vertex
 * id; so every mode, ratio and rank count trains the same model. Rank 0
 * decides when to stop and which knob changes apply, and broadcasts both
 * at each epoch boundary (trainer_dist_sync). */
#ifndef GS_DRIVER_DIST_H
#define GS_DRIVER_DIST_H

#include "driver.h"
#include "engine/graph/blocks.h"
#include "engine/dist/dep_plan.h"
#include "engine/dist/dist_comm.h"
#include "engine/dist/dist_engine.h"
#include "engine/machine/netmodel.h"
#include "engine/machine/vclock.h"

/* The whole job's account, gathered on rank 0 at the end of a run
 * (trainer_dist_gather): per rank what it holds, per hop the split, and
 * the last epoch's traffic by hop, direction, sender and receiver. */
typedef struct {
    int nranks, nhops;
    double *owned, *replicated, *mirrors; /* [r], [r][k] (levels 0..L), [r][h] (hops 0..L): |C^h| */
    double *cached;                       /* [r][h]: |R^h|, the remote dependencies cached */
    double *cache_bytes, *held_bytes;     /* [r] */
    double *traffic;                      /* bytes [h][dir][from][to] */
    double *messages;                     /* the same layout */
    double predicted_ms, plan_ms;         /* the slowest rank's */
} dist_report_t;

typedef struct dist_run {
    dist_comm_t *comm;
    int rank, nranks;
    int64_t bounds[DIST_MAX_RANKS + 1];
    int64_t width[DEP_MAX_HOPS + 1], dim[DEP_MAX_HOPS + 1];
    int64_t wgrad[DEP_MAX_HOPS + 1]; /* of width, the floats whose values carry a gradient */
    double vcost[DEP_MAX_HOPS + 1], vback[DEP_MAX_HOPS + 1]; /* seconds per row of each level's vertex ops, their backward */
    dep_plan_t plan;
    blockset_t bs;
    dist_engine_t engine;
    vclock_t clock;
    int virtual_clock;
    network_t net;
    double tv, te, tc;  /* probed costs: seconds per vertex-op FLOP, per edge float, per float sent */
    double pcie_bw, pcie_lat; /* the node's GPU link, when ranks compute on GPUs (0: on the host) */
    int host_cores;     /* the node's host cores */
    double plan_ms;     /* planning and setting up the routes */
    dist_report_t report; /* rank 0, after trainer_dist_gather */
    double held_bytes;  /* what this rank keeps: features, labels, sets, blocks */
    double layer_s[PROG_MAX_LAYERS]; /* this epoch's compute per layer (the partitioner's samples) */
} dist_run_t;

/* driver_dist_open.c: sets up t as rank env.comm's rank (t->data holds
 * the loaded dataset); every rank calls it at once. Its close. */
int trainer_dist_open(trainer_t *t, gs_err_t *err);
void trainer_dist_close(trainer_t *t);
/* driver_dist_open.c: the plan, blocks and routes for d->bounds (a
 * collective), and their release. */
int dist_plan_open(trainer_t *t, dist_run_t *d, gs_err_t *err);
void dist_plan_close(dist_run_t *d);
/* driver_dist_open.c: Algorithm 4's inputs for the program t->ex runs (at
 * the start, and again when a knob gives it a new program): the hop widths,
 * T_v, T_e and T_c probed on rank 0 at the program's widest hop and sent to
 * every rank (a collective), the vertex costs; *t0 (when not NULL) gets rank
 * 0's clock. */
int dist_plan_inputs(const trainer_t *t, dist_run_t *d, double *t0, gs_err_t *err);
/* T_c: seconds per float of a typical forward message on d's modeled
 * path (the same on every rank). */
double dist_comm_cost(const trainer_t *t, const dist_run_t *d);
/* What a rank keeps: its feature rows, labels, sets and blocks, in bytes. */
double dist_held_bytes(const trainer_t *t, const dist_run_t *d);
/* driver_dist_boundary.c, at an epoch boundary, on every rank: rank 0's
 * *stop and pending knob changes are sent to all (others' *stop is
 * replaced by rank 0's). */
int trainer_dist_sync(trainer_t *t, int *stop, gs_err_t *err);
/* Parses a control message ("stop=0|1", "events=0|1" and "knob=value"
 * lines for the knobs that change while a distributed run trains) into
 * *stop and t's pending configuration; GS_EINPUT on anything else
 * (fuzzed: tests/fuzz/fuzz_control.c). */
int dist_control_apply(trainer_t *t, const char *msg, int *stop, gs_err_t *err);
/* When the partitioner asked for a new split (roc's refit model, or the
 * partitioner knob switched), rank 0 cuts it and every rank moves to it:
 * the labels, split members and feature rows of newly owned and needed
 * vertices come from their old owners, then the plan, blocks and routes
 * are rebuilt. */
int trainer_dist_resplit(trainer_t *t, gs_err_t *err);
/* Puts want in force (old was): re-plans when the split changed; a
 * device or streaming knob is refused. */
int trainer_dist_apply(trainer_t *t, const train_cfg_t *old, const train_cfg_t *want, gs_err_t *err);
/* driver_dist_report.c, after an epoch's evaluation, on every rank: the
 * loss, accuracies and the distributed counters summed (or averaged)
 * over the ranks into st, the partitioner's samples, and the spans to
 * rank 0's observer. */
int trainer_dist_epoch_end(trainer_t *t, epoch_stats_t *st, gs_err_t *err);
/* The executor's op observer on a rank: the op's span into the rank's log. */
void dist_log_op(void *user, const instr_t *in, int phase, double t0, double t1, double flops);
/* At the end of a run, on every rank: the job's account into rank 0's
 * t->dist->report; its release. */
int trainer_dist_gather(trainer_t *t, gs_err_t *err);
void dist_report_free(dist_report_t *r);

#endif
