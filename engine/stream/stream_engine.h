/* stream_engine.h - the streaming execution engine (exec_engine.h): the
 * executor's gathers and ApplyVertex products run chunk by chunk through
 * a backend's devices (the cpu backend's virtual devices, or the CUDA
 * plugin's logical devices), while the executor's tensors stay in host
 * memory. Opening it picks the topology and scales its links, chooses P
 * (--chunks auto: the smallest P whose working set fits --device-mem),
 * and opens the backend and the streamer; the vertex order comes from
 * stream_plan, because renumbering the vertices is the data's business.
 * Edge-domain products run on the host. Limits: the full graph only (one
 * square block bound to every hop). */
#ifndef GS_STREAM_ENGINE_H
#define GS_STREAM_ENGINE_H

#include <stdatomic.h>

#include "engine/exec/exec_engine.h"
#include "engine/kernels/kops.h"
#include "engine/program/program.h"
#include "engine/exec/stats.h"
#include "engine/graph/order.h"
#include "engine/machine/vclock.h"
#include "streamer.h"

/* What a streamed run asks of its devices (the trainer's configuration,
 * projected: engine/train/trainer_stream.c). */
typedef struct {
    int real;              /* the CUDA plugin's logical devices: no link model, real counters */
    int devices;
    uint64_t device_mem;   /* bytes per device, 0 = unlimited */
    char topology[128];    /* the interconnect model (engine/machine/topology.h) */
    double link_scale;     /* 0 = auto */
    int links_native;      /* 1: no interconnect model */
    clock_kind_t clock;
    ktime_kind_t ktime;
    int chunks;            /* P, 0 = auto */
    order_kind_t order;
    uint64_t seed;         /* the random order's */
    stream_knobs_t knobs;
    task_hook_t on_task;   /* the observer's hook (the profiler), or NULL */
    void *observer;
    int simulate;          /* --simulate: the host's tensors in kops_sim, the devices' copies and kernels skipped */
    unsigned edge_fields;  /* the per-edge values the program's gathers read (stream_edge_fields) */
} stream_cfg_t;

/* P and the vertex order: perm[new] = old (NULL: keep the numbering) and
 * the P + 1 interval bounds in the new numbering. */
typedef struct {
    int p;
    int32_t *perm;
    int64_t *bounds;
    uint64_t need; /* the largest streamed op's device bytes at p (stream_plan; 0: not computed) */
} stream_plan_t;

typedef struct {
    stream_cfg_t cfg;          /* what it was opened with */
    topology_t topo;
    backend_t *backend;
    const backend_ops_t *bops; /* the cpu backend's table, or the CUDA plugin's */
    streamer_t streamer;
    int chunks;                /* P in force */
    int real;                  /* a real GPU: counters are real, no link model */
    double host_flops, link_scale;
    backend_stats_t last_stats;
    kplace_t host;             /* where the executor's tensors live */
    vclock_t clock;            /* emulated time, when virtual */
    int virtual_clock;         /* 1: the backend and the executor run on `clock` */
    task_hook_t on_task;       /* the observer's hook (the profiler), or NULL */
    void *observer;
    int planned_at_begin;      /* the memory plan was in force when this epoch began */
    int steady;                /* the last epoch ran under one memory plan throughout (or none is made):
                                  its parts' times describe the split, not a profiling epoch */
} stream_engine_t;

/* Chooses P and the vertex order of g (the current numbering) under c for
 * program p. plan's arrays are the caller's to free (stream_plan_free). */
int stream_plan(const stream_cfg_t *c, const program_t *p, const graph_t *g, stream_plan_t *plan, gs_err_t *err);
/* Whether c's device cap can hold program p's widest pass over n vertices
 * at the most chunks allowed (checked before anything of the model's size
 * is allocated). */
int stream_cap_check(const stream_cfg_t *c, const program_t *p, int64_t n, int64_t m, gs_err_t *err);
void stream_plan_free(stream_plan_t *plan);
/* Whether plan's intervals (say, a partitioner's uneven ones) fit c's
 * device cap with program p over g (in plan's numbering once plan->perm
 * is applied). */
int stream_plan_fits(const stream_cfg_t *c, const program_t *p, const graph_t *g, const stream_plan_t *plan, gs_err_t *err);
/* Opens the devices and the chunks of g (already in plan's order). */
int stream_engine_open(stream_engine_t *se, const stream_cfg_t *c, const graph_t *g, const stream_plan_t *plan,
                       const atomic_int *abort_flag, gs_err_t *err);
void stream_engine_close(stream_engine_t *se);
/* The engine's clock for the executor's host ops: NULL on the wall clock. */
vclock_t *stream_engine_clock(stream_engine_t *se);
/* The engine as the executor holds it. */
exec_engine_t stream_engine_exec(stream_engine_t *se);
/* Epoch boundaries: counters start, and fold into st at the end. */
void stream_engine_epoch_begin(stream_engine_t *se, int have_profile);
void stream_engine_epoch_end(stream_engine_t *se, epoch_stats_t *st);
/* What the engine reports about itself (the JSON summary reads these, not
 * its structs): a value or a text, optionally in a named group. */
typedef struct {
    const char *group; /* NULL: top level */
    char name[32];
    double value;
    const char *text;  /* non-NULL: a text value */
} engine_fact_t;
/* Fills up to max facts of the run so far; returns how many. */
int stream_engine_facts(const stream_engine_t *se, double epoch_s, engine_fact_t *out, int max);

/* The per-edge values (SUB_*) the gathers of p read: the weights of each
 * aggregation it names, the edge types when it is typed. */
unsigned stream_edge_fields(const program_t *p);
/* Device bytes the largest streamed op of p needs with P = chunks over n
 * vertices in equal intervals, m edges spread evenly over the sub-chunks,
 * and the blocks and block buffers the knobs give (k sub-chunks and
 * streamer_block_buffers; the row order: whole intervals, two). */
uint64_t stream_working_set(const program_t *p, int64_t n, int64_t m, int chunks, const stream_knobs_t *kn);

#endif
