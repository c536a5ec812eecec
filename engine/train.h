/* train.h - full-batch training: softmax cross-entropy on the train split,
 * Adam with L2 weight decay (as torch.optim.Adam), counter-based dropout,
 * evaluation on train/valid/test, best-validation tracking, checkpoints.
 * A trainer owns the dataset, graph, program, parameters and executor. */
#ifndef GS_TRAIN_H
#define GS_TRAIN_H

#include <stdint.h>

#include "../datasets/dataset.h"
#include "dkp.h"
#include "exec.h"
#include "graph.h"
#include "models/model.h"
#include "partition.h"
#include "program.h"
#include "sched/streamer.h"

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
    feat_norm_t feat_norm;
    int use_cache;
    device_kind_t device;
    /* streaming engine (train_stream.c); stream = 0 trains in memory */
    int stream;
    int devices;
    uint64_t device_mem;   /* bytes per device, 0 = unlimited */
    char topology[32];
    double link_scale;     /* 0 = auto: host FLOP/s / modeled GPU FLOP/s */
    int links_native;      /* 1: no interconnect model */
    int chunks;            /* P, 0 = auto */
    order_kind_t order;
    stream_knobs_t knobs;
    /* optional observers (the profiler, from the app layer) */
    task_hook_t on_task;
    op_hook_t on_op;
    void *observer;
} train_cfg_t;

/* Fills the defaults documented in `gnnscope train --help`. */
void train_cfg_defaults(train_cfg_t *c);

typedef struct {
    int64_t epoch;    /* 1-based epoch just finished */
    double loss;      /* training loss of this epoch's step */
    double train_acc, val_acc, test_acc;
    double epoch_ms;  /* forward + backward + optimiser step */
    double eval_ms;   /* evaluation forward */
    double flops;     /* FLOPs of the training step */
    /* streaming counters (zero in memory mode) */
    double h2d_bytes, d2h_bytes, d2d_bytes;
    double overlap;   /* fraction of transfer time hidden behind compute */
    double filter_ms; /* host time filtering rows for selective scheduling */
    double kept_bytes; /* H2D bytes the memory plan's device copies made unnecessary */
} epoch_stats_t;

typedef struct {
    train_cfg_t cfg;
    dataset_t ds;
    graph_t g;
    program_t prog;
    params_t params;
    exec_t ex;
    const kops_t *K;  /* where the tensors live (kops.h) */
    const graph_t *kg; /* K's mirror of g: g itself on the host */
    graph_t kg_mirror;
    tensor_t x;       /* (N, F) normalised features, in K's memory */
    tensor_t dlogits; /* (N, C), in K's memory */
    int32_t *label_k, *split_k[3]; /* labels and splits in K's memory */
    int64_t split_labelled[3];     /* rows of each split with a label */
    const model_def_t *model;
    int64_t epoch;    /* epochs completed */
    int64_t adam_t;
    double best_val, test_at_best;
    int64_t best_epoch;
    dkp_choice_t dkp[64];
    int ndkp;
    dkp_model_t dkp_model; /* alpha..delta, fitted after the first epoch */
    double load_ms;  /* dataset load (cache or source files) */
    double graph_ms; /* CSR/CSC construction */
    /* streaming state (train_stream.c) */
    backend_t *backend;
    const backend_ops_t *bops; /* the backend's table: cpu, or the CUDA plugin's */
    topology_t topo;
    streamer_t streamer;
    int chunks;             /* P in force */
    double host_flops, link_scale;
    backend_stats_t last_stats;
    /* knobs.c: values set while running, applied at the next epoch */
    train_cfg_t pending;
    int has_pending;
    volatile int abort_epoch; /* set from another thread: streamed passes stop after the current chunk */
} trainer_t;

int trainer_open(trainer_t *t, const train_cfg_t *cfg, gs_err_t *err);
/* Rebuilds the op program (after a DKP change) and its executor; the
 * parameters and the optimiser state are kept. */
int trainer_rebuild_program(trainer_t *t, gs_err_t *err);
/* (Re)fills t->x from the dataset's features, normalised per cfg, and the
 * labels and splits, in K's memory (after a renumbering, too). */
int trainer_load_features(trainer_t *t, gs_err_t *err);
void trainer_close(trainer_t *t);
/* One training step plus evaluation. */
int trainer_epoch(trainer_t *t, epoch_stats_t *st, gs_err_t *err);

/* Loss and its gradient, exposed for tests: mean cross-entropy of logits
 * (N, C) over the rows in idx; writes dlogits (zero outside idx). */
double train_xent(const tensor_t *logits, const int32_t *label, const int32_t *idx, int64_t n, tensor_t *dlogits);
void train_adam_step(params_t *ps, int64_t t, float lr, float weight_decay);

/* train_stream.c: orders the vertices, opens the backend and the streamer. */
int trainer_stream_open(trainer_t *t, gs_err_t *err);
void trainer_stream_close(trainer_t *t);
void trainer_stream_epoch_begin(trainer_t *t);
void trainer_stream_epoch_end(trainer_t *t, epoch_stats_t *st);
/* Device bytes the largest streamed op of p needs with P = chunks and k
 * sub-chunks: a gather or an ApplyVertex matmul (for --chunks auto). */
uint64_t trainer_stream_working_set(const program_t *p, int64_t n, int chunks, int k);

/* checkpoint.c: atomic save; resume checks the model and dataset match. */
int trainer_save(const trainer_t *t, const char *path, gs_err_t *err);
int trainer_resume(trainer_t *t, const char *path, gs_err_t *err);

#endif
