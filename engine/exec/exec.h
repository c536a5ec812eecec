/* exec.h - runs an op program forward over a layer's blocks and derives
 * its backward pass by walking the instructions in reverse.
 *
 * Vertex sets (docs/ARCHITECTURE.md, "Vertex sets"): every vertex value
 * has a level, the number of gathers between it and the input (the input
 * is level 0); hop h is the step from level h-1 to level h and has its own
 * block (graph.h): the edges from a source set of nsrc rows into a
 * destination set of n rows, which are the first n source rows. A value at
 * level k has block[k]->n rows (level 0: block[1]->nsrc) and room for
 * block[k+1]->nsrc, the rows a gather of the next hop reads; an edge value
 * of hop h has block[h]->m rows. An elementwise op over values of several
 * levels works on the rows of the latest (the sets are nested, each a
 * prefix of the one before). Full-graph training binds the graph itself to
 * every hop, so every tensor has N rows. Dropout masks are keyed by each
 * row's original vertex id through the block's orig_id. With share_buffers
 * a value's or gradient's data is valid only within its life in the step
 * (buffer_plan.h); the output stays valid after the step.
 *
 * Gathers and matmuls run through the executor's engine (exec_engine.h);
 * every other op runs on the place's compute table (kops.h). Tensors are
 * allocated at the first bind and grow only when a later bind needs more. */
#ifndef GS_EXEC_H
#define GS_EXEC_H

#include "engine/program/dkp.h"
#include "exec_engine.h"
#include "engine/graph/graph.h"
#include "engine/kernels/kops.h"
#include "op_tally.h"
#include "params.h"
#include "slabs.h"
#include "engine/program/program.h"
#include "engine/graph/tensor.h"

/* Hops a program may have (gathers on one dependency chain). */
#define EXEC_MAX_HOPS 66

/* Observer of host work: called after each op that ran on the host with
 * its phase (0 forward, 1 backward), its span in seconds (CLOCK_MONOTONIC,
 * or the emulated clock's) and FLOPs. */
typedef void (*op_hook_t)(void *user, const instr_t *in, int phase, double t0, double t1, double flops);

struct exec {
    const program_t *prog;
    kplace_t kp;        /* the params' place: every value lives there */
    params_t *params;
    exec_engine_t engine;
    int nhops;
    const graph_t *block[EXEC_MAX_HOPS + 1]; /* block[h], h = 1..nhops, in kp's memory */
    int8_t *level;      /* per value: level (vertex values) or hop (edge values) */
    int8_t *hop;        /* per instruction: the hop whose block it uses, 0 for none */
    uint8_t *first_src; /* per instruction: bit k set when operand k is read by source index here first */
    int64_t *cap;       /* per value: rows allocated */
    tensor_t *val;      /* per value: forward result (inputs/params are views) */
    tensor_t *grad;     /* per value: gradient, allocated when requires_grad */
    uint8_t *grad_set;  /* per value: gradient written during this backward */
    int nvals, ncode;   /* the program's sizes when exec_init ran (exec_free goes by these) */
    uint8_t *owned;     /* per value: its tensors are the executor's (vertex and edge values) */
    int32_t **argmax;   /* per instruction: gather_max winners */
    int64_t *argmax_cap;
    uint64_t **relu_mask; /* per instruction: a RELU's sign bits, with shared buffers on a place that keeps them */
    int64_t *relu_mask_cap;
    uint64_t seed;
    int64_t epoch;
    int training;
    double flops;      /* floating-point operations of the last forward + backward */
    double own_s;      /* seconds of host work (the executor's own ops, and a host engine's) since the caller reset it */
    double agg_flops[PROG_MAX_LAYERS][2]; /* per layer, [forward, backward]: FLOPs of the
                                             Gather-stage ops of the last training step */
    dkp_model_t *samples; /* when set, forward matmuls and gathers record their timings */
    struct vclock *clock; /* emulated time (engine/machine/vclock.h): host ops are charged on it; NULL: the wall clock */
    op_hook_t on_op;      /* optional observer (the profiler) */
    void *op_user;
    op_tally_t *tally;    /* optional: the training steps' host work per op (--profile ops), the owner's */
    /* Set before the first bind by an owner whose engine keeps no copies of
     * host tensors (the in-memory engine): vertex and edge tensors then
     * share the slabs of the program's buffer plan (buffer_plan.h), so a
     * value or gradient holds its data only while the step needs it. */
    int share_buffers;
    slabs_t slabs;
    int skip_last;     /* this forward pass: the last op the engine ran with one before it (a scatter's gather, a gather's ApplyVertex ops), or -1 */
    int failed;        /* an engine op failed; err says why */
    gs_err_t err;
};

/* Levels and hops of prog; the engine is set after (the memory engine of kp by default). */
int exec_init(exec_t *ex, const program_t *prog, kplace_t kp, params_t *params, uint64_t seed, gs_err_t *err);
void exec_free(exec_t *ex);
/* Whether instruction in keeps sign bits (a RELU whose output's buffer is
 * shared, on a place whose kernels keep them): its rule then reads those. */
int exec_masks_relu(const exec_t *ex, const instr_t *in);
/* Binds block[1..nhops] (at least block[1]) for the next steps (sizing, and growing, the tensors). */
int exec_bind(exec_t *ex, const graph_t *const *block, gs_err_t *err);
/* Binds g to every hop (full-graph training). */
int exec_bind_graph(exec_t *ex, const graph_t *g, gs_err_t *err);
/* Rows of a vertex value at level k under the current binding; rows of
 * value v; the block whose orig_id keys v's rows (dropout masks): the one
 * reading its level, else (the last level, or a program without gathers)
 * the one writing it. */
int64_t exec_level_rows(const exec_t *ex, int k);
int64_t exec_rows_of(const exec_t *ex, int v);
const graph_t *exec_keys_of(const exec_t *ex, int v);
/* Runs the program on features x (level 0 rows). Dropout is active when
 * training. A failed engine op sets ex->failed and ex->err. */
const tensor_t *exec_forward(exec_t *ex, const tensor_t *x, int training, int64_t epoch);
/* Backpropagates dout (the output's gradient) into ex->params->g. */
void exec_backward(exec_t *ex, const tensor_t *dout);
/* Host work outside the program (the loss, the optimiser step): mark its
 * start, then book it like the executor's own ops (on the clock, in
 * own_s, to the observer when in or phase 2 says what it was). */
typedef struct {
    double t0, c0;
} exec_mark_t;
exec_mark_t exec_mark(const exec_t *ex);
void exec_host_work(exec_t *ex, exec_mark_t m, const instr_t *in, int phase, double flops, op_traffic_t bytes);
/* The tensor of value v (gradient when grad), as the engine sees it. */
xtensor_t exec_xtensor(const exec_t *ex, int v, int grad);
/* Whether instruction in's phase (0 forward, 1 backward) writes over what
 * it reads, in one buffer (buffer_plan.h's in-place ops): its output over
 * its first operand, or that operand's gradient over its output's. */
int exec_in_place(const exec_t *ex, const instr_t *in, int phase);
/* Whether it only reads its tensors: a bias's backward in place (its
 * operand's gradient is its output's; it reads that for its column sums). */
int exec_reads_only(const exec_t *ex, const instr_t *in, int phase);

#endif
