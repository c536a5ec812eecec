/* config.h - the configuration of a training run: every field a flag or a
 * knob sets (knobs.c describes each one once). The streaming fields are
 * read by the streaming engine (engine/stream/stream_engine.c); stream = 0 trains
 * in memory. */
#ifndef GS_CONFIG_H
#define GS_CONFIG_H

#include <stdint.h>

#include "engine/device/backend.h"
#include "engine/dist/dep_plan.h"
#include "engine/program/dkp.h"
#include "base/options.h"
#include "engine/graph/order.h"
#include "engine/partition/partitioner.h"
#include "engine/stream/streamer.h"
#include "engine/machine/vclock.h"

typedef enum { FEAT_NORM_AUTO, FEAT_NORM_ROW, FEAT_NORM_NONE } feat_norm_t;
struct dist_event_s; /* engine/dist/dist_engine.h */
struct stage_span;   /* prepro_sched.h */
/* Where training runs: the host (in memory, or streamed through the cpu
 * backend's virtual devices), or a GPU through the CUDA plugin (in memory
 * on the GPU, or streamed through its logical devices). */
typedef enum { DEVICE_HOST, DEVICE_CUDA } device_kind_t;

typedef struct {
    char dataset[4096];
    char model[32];
    int layers;
    int64_t hidden;
    int heads;
    int epochs;
    float lr, weight_decay, dropout;
    uint64_t seed;
    int threads;
    dkp_mode_t dkp;
    int fuse;              /* 1: hoist and fuse the plain SAGA-NN program (fuse.h) */
    feat_norm_t feat_norm;
    /* sampled mini-batch training (sampler.h, prepro_sched.h); batch_size = 0 trains full-batch */
    int64_t batch_size;
    opt_list_t fanout;     /* per hop, the targets' own first; one value: every hop */
    int prepro;            /* prepro_mode_t */
    int no_cache;          /* 1: neither read nor write the binary dataset cache */
    device_kind_t device;
    /* streaming engine; stream = 0 trains in memory */
    int stream;
    int devices;
    uint64_t device_mem;   /* bytes per device, 0 = unlimited */
    char topology[32];
    double link_scale;     /* 0 = auto */
    int links_native;      /* 1: no interconnect model */
    clock_kind_t clock;    /* emulated devices: the virtual clock, or the wall clock */
    ktime_kind_t ktime;    /* on the virtual clock: roofline or measured kernel times */
    int chunks;            /* P, 0 = auto */
    order_kind_t order;
    partitioner_kind_t partitioner; /* where the intervals are cut (engine/partition/partitioner.h) */
    stream_knobs_t knobs;
    /* distributed engine (engine/dist, docs/ARCHITECTURE.md "Distributed
     * training"); dist = 0 trains in one process */
    int dist;              /* this process is one MPI rank of a job */
    dep_mode_t dep;        /* remote dependencies: cached, communicated, hybrid */
    double dep_ratio;      /* hybrid: the cached fraction, -1 = Algorithm 4 */
    uint64_t dep_mem;      /* hybrid: the memory limit S, 0 = none */
    int ring, overlap;     /* ring-ordered sends; compute while mirrors arrive */
    char network[24];      /* the emulated cluster network (engine/machine/netmodel.h) */
    struct dist_comm *comm; /* dist: the rank's MPI communication (from the app) */
    /* dist, rank 0: every rank's spans, gathered each epoch (NULL: not wanted) */
    void (*on_dist_event)(void *user, const struct dist_event_s *e);
    /* optional observers (the profiler, from the app layer) */
    task_hook_t on_task;
    void (*on_op)(void *user, const instr_t *in, int phase, double t0, double t1, double flops);
    /* sampled runs: each preprocessing subtask and each op of a step, on the emulated timeline */
    void (*on_stage)(void *user, const struct stage_span *sp);
    void *observer;
} train_cfg_t;

/* Fills the defaults documented in `gnnscope train --help`. */
void train_cfg_defaults(train_cfg_t *c);

#endif
