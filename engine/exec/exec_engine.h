/* exec_engine.h - the execution interface (docs/ARCHITECTURE.md,
 * "Execution engines"): how a program's Scatter-Gather stages and
 * ApplyVertex products run. The executor (exec.c) hands every gather and
 * every matmul, forward and backward, to its engine and runs every other
 * op itself through the compute table of its place (kops.h); it never
 * knows which engine it holds. Engines:
 *   memory   exec_memory.c: the place's own kernels, tensors in its memory;
 *   stream   engine/stream/stream_engine.c: chunk by chunk through the cpu backend's
 *            virtual devices or the CUDA plugin's logical devices;
 * and wrappers that add to another engine (the distributed engine fills a
 * rank's ghost rows before a source-indexed read and returns their
 * gradients after it, through src_ready and src_grad_ready).
 * Tensors cross the interface as xtensor_t: a key that stays the same for
 * a value across steps and batches (what caches such as the memory plan
 * are keyed by), its data, and its rows and columns. */
#ifndef GS_EXEC_ENGINE_H
#define GS_EXEC_ENGINE_H

#include <stdint.h>

#include "base/error.h"
#include "engine/graph/graph.h"
#include "engine/kernels/kernels.h"
#include "engine/kernels/kops.h"
#include "engine/program/program.h"

typedef struct exec exec_t;

/* A value's tensor: key = 2 * value id (+ 1 for its gradient). */
typedef struct {
    int key;
    float *data;
    int64_t rows, cols;
} xtensor_t;

/* A sum gather over hop `hop`'s block g: forward, out (g->n rows) (+)= the
 * in-edge sum of in (g->nsrc rows); backward, out (g->nsrc rows) (+)= the
 * out-edge sum of in (g->n rows). f values move per edge; a typed gather
 * picks the edge type's f-wide block of the input (TYPED_IN, forward) or
 * of the output (TYPED_OUT, backward). */
typedef struct {
    const graph_t *g;
    int hop, layer;
    agg_weight_t agg;
    typed_mode_t typed;
    xtensor_t in, out;
    int64_t f;
    int acc;
} gather_call_t;

/* An ApplyVertex product out (rows, f) = a (rows, c) w (c, f), and its
 * backward: da (+)= dy w^T, dw (+)= a^T dy (either may be NULL). a_vertex
 * says whether a is a vertex tensor (an edge tensor's product stays in
 * the executor's place whatever the engine). */
typedef struct {
    int layer, a_vertex;
    xtensor_t a;      /* (rows, c) */
    const float *w;   /* (c, f) */
    int64_t f;
    xtensor_t out;    /* forward: (rows, f) */
    xtensor_t dy;     /* backward: (rows, f) */
    xtensor_t da;     /* backward: (rows, c); data NULL when not wanted */
    int acc_a;
    float *dw;        /* backward: (c, f), or NULL */
    int acc_w;
} matmul_call_t;

/* A graph op other than a sum gather, offered to the engine before the
 * executor runs it on its place (the engine may decline): the max gather
 * (MP-GCN), the attention gather (GAT) and the plain programs'
 * edge-tensor ops. Max forward: out (g->n
 * rows) = the max over in-edges of in (g->nsrc rows), each element's
 * winning source row into argmax; backward: out (g->nsrc rows) (+)= in
 * (the output's gradient, g->n rows) routed to the winners. Attention
 * forward: out = the in-edge sum of in scaled per head by att; backward:
 * only the input's gradient (the scales' own stays with the executor).
 * Scatters: out (g->m edge rows) from in's source or destination rows;
 * the gather of an edge tensor: in (g->m rows) into out's vertex rows,
 * weighted by agg; and their backward passes. The fused gather (G-GCN):
 * forward, out = the in-edge sum of expr over the leaves; backward, in is
 * the output's gradient and each leaf's gradient in dleaf (data NULL:
 * not wanted) is written or, with dacc[k], added. f values per row.
 * sag: a source scatter (op OP_SCATTER_SRC forward, OP_GATHER_EDGE
 * backward) and the gather of its edge rows that follows it, weighted by
 * agg, offered as one op because nothing else reads their edge tensor
 * (TF-SAGA's chunk dataflow: the edge rows need not leave the device):
 * forward, out (g->n rows) = the in-edge sum of in (g->nsrc rows);
 * backward, out (g->nsrc rows) (+)= the out-edge sum of in (the output's
 * gradient, g->n rows), the same weights. An engine that declines leaves
 * both to the executor. */
typedef struct {
    op_kind_t op;
    int sag;
    const graph_t *g;
    int hop, layer;
    xtensor_t in, out;
    int64_t f;
    int acc;
    int32_t *argmax;  /* max: (g->n, f) */
    const float *att; /* attention: (g->m, heads) per-edge head scales */
    int64_t heads;
    agg_weight_t agg; /* the gather of an edge tensor: its edge weights */
    const fused_expr_t *expr;          /* fused: its expression */
    int nleaf;
    xtensor_t leaf[FUSE_MAX_LEAVES];  /* fused: source leaves g->nsrc rows, destination leaves g->n */
    xtensor_t dleaf[FUSE_MAX_LEAVES]; /* fused backward */
    int dacc[FUSE_MAX_LEAVES];
} graph_call_t;

/* An ApplyVertex op after a gather (gather_apply): a vertex product whose
 * a is the previous op's output (the gather's for the first), or an
 * elementwise op forward whose first operand is that output and whose
 * other operand, if any, is a parameter of param_floats floats (a bias);
 * e holds the executor's own call's arguments (host pointers). */
typedef struct {
    int is_matmul;
    matmul_call_t m;
    ew_args_t e;
    int64_t param_floats;
    xtensor_t out; /* its output */
    int home;      /* its rows go to the host: read past the chain (an op, the loss, a backward rule); an
                    * engine that runs fewer ops sends the last one's home too */
} apply_op_t;
#define APPLY_MAX_OPS 6

typedef struct {
    const char *name;
    int on_host; /* 1: its gathers and products are host work (the timeline's host lane, host_ms) */
    int (*gather)(void *self, const gather_call_t *c, gs_err_t *err);
    int (*gather_bwd)(void *self, const gather_call_t *c, gs_err_t *err);
    int (*matmul)(void *self, const matmul_call_t *c, gs_err_t *err);
    int (*matmul_bwd)(void *self, const matmul_call_t *c, gs_err_t *err);
    /* Runs graph op c (backward: its vector-Jacobian rule) and sets *done,
     * or leaves *done 0 for the executor to run it. May be NULL. */
    int (*graph_op)(void *self, const graph_call_t *c, int backward, int *done, gs_err_t *err);
    /* A forward sum gather and the ApplyVertex ops that follow it, each
     * reading the one before (apply_op_t), as one op: NeuGraph §3.2's
     * column order, each destination interval's accumulator consumed
     * where it was summed (the outputs marked home reach the host). Sets
     * *ran to -1 (nothing run: the executor runs them all), or runs the
     * gather and ops[0, *ran). May be NULL. */
    int (*gather_apply)(void *self, const gather_call_t *g, const apply_op_t *ops, int nops, int *ran, gs_err_t *err);
    /* The executor wrote t with one of its own ops (copies elsewhere go stale). May be NULL. */
    void (*host_wrote)(void *self, const xtensor_t *t);
    /* Before the first op that reads value v of ex by source index at
     * hop: rows past the ones computed here (block nbase..nsrc) are
     * filled. gathered: that op is this engine's own gather of v, which
     * may then wait for the rows itself (and work on what has arrived
     * first). May be NULL. */
    int (*src_ready)(void *self, exec_t *ex, int v, int hop, int gathered, gs_err_t *err);
    /* After that op's backward: v's gradient rows past the computed ones
     * are returned to where they came from. May be NULL. */
    int (*src_grad_ready)(void *self, exec_t *ex, int v, int hop, gs_err_t *err);
} exec_engine_ops_t;

typedef struct {
    const exec_engine_ops_t *ops;
    void *self;
} exec_engine_t;

/* The in-memory engine of a place (exec_memory.c); self is the kplace_t. */
extern const exec_engine_ops_t exec_memory_ops;

#endif
