/* config.h - the configuration of a training run: every field a flag or a
 * knob sets (knob_table.c describes each one once), as values only. A
 * configuration is copied into snapshots, sent to the workbench over the
 * remote protocol, saved beside checkpoints and compared between epochs,
 * so it holds no pointers: what a run reports to and runs over (its
 * observers, a rank's MPI communication) is its environment, train_env_t.
 * Each mechanism takes its own part (stream_cfg_of for the streaming
 * engine, dep_params_t for the dependency plan). stream = 0 trains in
 * memory; dist = 1 makes this process one rank of an MPI job. */
#ifndef GS_CONFIG_H
#define GS_CONFIG_H

#include <stdint.h>

#include "base/options.h"
#include "engine/device/backend.h"
#include "engine/dist/dep_plan.h"
#include "engine/exec/exec.h"
#include "engine/graph/order.h"
#include "engine/machine/vclock.h"
#include "engine/partition/partitioner.h"
#include "engine/program/dkp.h"
#include "engine/stream/streamer.h"

typedef enum { FEAT_NORM_AUTO, FEAT_NORM_ROW, FEAT_NORM_NONE } feat_norm_t;
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
    int fuse;              /* 1: hoist and fuse the plain SAGA-NN program (engine/program/fuse.h) */
    feat_norm_t feat_norm;
    /* sampled mini-batch training (engine/sample/); batch_size = 0 trains full-batch */
    int64_t batch_size;
    opt_list_t fanout;     /* per hop, the targets' own first; one value: every hop */
    int prepro;            /* prepro_mode_t */
    int prepro_threads;    /* the modeled host's preprocessing threads (prepro_sched.h) */
    int no_cache;          /* 1: neither read nor write the binary dataset cache */
    device_kind_t device;
    /* streaming engine; stream = 0 trains in memory */
    int stream;
    int devices;
    uint64_t device_mem;   /* bytes per device, 0 = unlimited */
    char topology[128];
    double link_scale;     /* 0 = auto */
    int links_native;      /* 1: no interconnect model */
    clock_kind_t clock;    /* emulated devices: the virtual clock, or the wall clock */
    ktime_kind_t ktime;    /* on the virtual clock: roofline or measured kernel times */
    int simulate;          /* 1: kernels and copies skipped, vertex tensors untouched (kops_sim.c); no losses */
    int chunks;            /* P, 0 = auto */
    order_kind_t order;
    partitioner_kind_t partitioner; /* where the intervals (or the ranks' ranges) are cut */
    char partition_model[256]; /* ROC's learned cost model: read at the start when it exists, written as it learns ("": none) */
    stream_knobs_t knobs;
    /* distributed engine (engine/dist/); dist = 0 trains in one process */
    int dist;              /* this process is one MPI rank of a job */
    dep_mode_t dep;        /* remote dependencies: cached, communicated, hybrid */
    double dep_ratio;      /* hybrid: the cached fraction, -1 = Algorithm 4 */
    uint64_t dep_mem;      /* hybrid: the memory limit S, 0 = none */
    int ring, overlap;     /* ring-ordered sends; compute while mirrors arrive */
    int rank_gpu;          /* 1: a rank computes on its node's modeled GPU, messages staged over PCIe; 0: on its host CPU */
    int queue_locked;      /* 1: messages enqueued under one lock (the baseline); 0: at precomputed positions */
    char network[24];      /* the emulated cluster network (engine/machine/netmodel.h) */
    double rank_timeout;   /* seconds a rank waits for another before the job ends (dist_comm.h) */
} train_cfg_t;

struct dist_event_s; /* engine/dist/dist_engine.h */
struct stage_span;   /* engine/sample/prepro_sched.h */
struct dist_comm;    /* engine/dist/dist_comm.h */

/* A run's environment: its observers (the profiler, from the app layer;
 * any may be NULL) and, for a rank (cfg.dist), its MPI communication. */
typedef struct {
    task_hook_t on_task;   /* every device task of a streamed run */
    op_hook_t on_op;       /* every host op */
    /* a distributed run's rank 0: every rank's spans, gathered each epoch */
    void (*on_dist_event)(void *user, const struct dist_event_s *e);
    /* a sampled run: each preprocessing subtask and each op of a step, on the emulated timeline */
    void (*on_stage)(void *user, const struct stage_span *sp);
    void *observer;        /* the observers' user pointer */
    struct dist_comm *comm;
    int tally_ops;         /* keep the training steps' host work per op (--profile ops; trainer_t.tally) */
} train_env_t;

/* Fills the defaults documented in `gnnscope train --help`. */
void train_cfg_defaults(train_cfg_t *c);

#endif
