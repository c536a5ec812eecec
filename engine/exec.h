/* exec.h - runs an op program forward over a graph and derives its
 * backward pass by walking the instructions in reverse. Also owns the
 * model parameters' storage (weights, gradients and Adam moments).
 * Values are allocated once at exec_init, so epochs allocate nothing. */
#ifndef GS_EXEC_H
#define GS_EXEC_H

#include "dkp.h"
#include "graph.h"
#include "kops.h"
#include "program.h"
#include "sched/streamer.h"
#include "tensor.h"

typedef struct {
    const kops_t *K; /* where the tensors live */
    int n;
    tensor_t *w, *g, *m, *v; /* weights, gradients, Adam first and second moments */
    char (*names)[32];
} params_t;

/* Allocates parameters for prog in K's memory and initialises them (Glorot
 * uniform from a hash of (seed, parameter, element), or zero). */
int params_init(params_t *ps, const program_t *prog, uint64_t seed, const kops_t *K, gs_err_t *err);
void params_free(params_t *ps);
int64_t params_count(const params_t *ps);

/* Observer of host-side work: called after each op with its phase (0
 * forward, 1 backward) and CLOCK_MONOTONIC span, and after the optimiser
 * step with in = NULL and phase 2. */
typedef void (*op_hook_t)(void *user, const instr_t *in, int phase, double t0, double t1, double flops);

typedef struct {
    const program_t *prog;
    const graph_t *g;  /* K's mirror of the graph */
    const kops_t *K;   /* the params' place: every value lives there */
    params_t *params;
    tensor_t *val;     /* per value: forward result (inputs/params are views) */
    tensor_t *grad;    /* per value: gradient, allocated when requires_grad */
    uint8_t *grad_set; /* per value: gradient written during this backward */
    int32_t **argmax;  /* per instruction: gather_max winners */
    uint64_t seed;
    int64_t epoch;
    int training;
    double flops;      /* floating-point operations of the last forward + backward */
    double agg_flops[PROG_MAX_LAYERS][2]; /* per layer, [forward, backward]: FLOPs of the
                                             Gather-stage ops of the last training step */
    streamer_t *stream; /* when set, gathers stream through the backend's devices */
    dkp_model_t *samples; /* when set, forward matmuls and gathers record their timings */
    op_hook_t on_op;      /* optional observer (the profiler) */
    void *op_user;
    int failed;        /* a streamed op failed; err says why */
    gs_err_t err;
} exec_t;

/* Whether a streamed run puts this instruction's matmul on the devices. */
int exec_streams_matmul(const program_t *P, const instr_t *in);

/* g must be params->K's mirror of the graph (kops.h). */
int exec_init(exec_t *ex, const program_t *prog, const graph_t *g, params_t *params, uint64_t seed, gs_err_t *err);
void exec_free(exec_t *ex);
/* Runs the program on features x (N, F). Dropout is active when training.
 * With a streamer, a failed pass sets ex->failed and ex->err. */
const tensor_t *exec_forward(exec_t *ex, const tensor_t *x, int training, int64_t epoch);
/* Backpropagates dout (the output's gradient) into ex->params->g. */
void exec_backward(exec_t *ex, const tensor_t *dout);

#endif
