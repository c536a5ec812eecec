/* kops.h - the compute ops that the executor (engine/exec/) and the
 * trainer's steps (engine/train/trainer_step.c) run on value tensors, as one table per place where the tensors
 * live: kops_cpu (host memory, the reference) and the CUDA plugin's table
 * (device memory). Every op takes the context its table's `open` made
 * (the host's is empty; a GPU's holds its stream and library handles), so
 * two contexts can run side by side. A table and a context together are a
 * place (kplace_t). Every pointer handed to a table's ops belongs to that
 * table's place; `upload` and `download` are the only crossings. The sparse
 * kernels take the table's own mirror of the graph (graph_mirror): for the
 * host that is the graph itself, for a GPU a graph_t whose arrays are in
 * device memory. Device tables run asynchronously on their context's
 * stream; `sync` waits and reports a device error. */
#ifndef GS_KOPS_H
#define GS_KOPS_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "engine/graph/graph.h"
#include "engine/graph/tensor.h"
#include "engine/program/program.h"
#include "kernels.h"

/* One elementwise op (program.h's BIAS, ADD, MUL, LERP, RELU, LEAKY_RELU,
 * ELU, SIGMOID, TANH, DROPOUT) over (rows, cols). Forward reads a, b, c and
 * writes out; backward reads dy (and a, b, c, y as the op needs) and writes
 * whichever of da, db, dc is not NULL, adding where acc_* is set. DROPOUT
 * with fp = 0 is the identity (evaluation). RELU with a mask (a table whose
 * relu_masks is set): forward also writes bit (a > 0) of each element, one
 * row in GS_MASK_WORDS(cols) 64-bit words, and backward reads those bits
 * instead of y, so y's buffer may be reused once the forward pass is done. */
#define GS_MASK_WORDS(cols) (((cols) + 63) / 64)
typedef struct {
    op_kind_t op;
    const float *a, *b, *c, *y, *dy;
    float *out, *da, *db, *dc;
    int acc_a, acc_b, acc_c;
    int64_t rows, cols;
    float fp;
    const graph_t *g; /* dropout: the block whose orig_id keys the rows (and in_src/in_dst an edge tensor's) */
    int edge;         /* dropout over an edge tensor */
    uint64_t key;     /* dropout: hash of (seed, epoch, site) */
    uint64_t *mask;   /* RELU: its sign bits, or NULL */
    int64_t row0;     /* dropout: a block's rows, keyed as rows row0, row0 + 1, ... of g (0: the whole tensor) */
} ew_args_t;

/* Writes or adds v into dst, as an op's `acc` flag says. */
#define GS_PUT(dst, accflag, v) ((accflag) ? ((dst) += (v)) : ((dst) = (v)))

/* A table's own state, opaque outside its implementation. */
typedef struct kops_ctx kops_ctx_t;

typedef struct kops {
    const char *name;
    int device; /* 1: the pointers are device memory */
    /* A context for the ops below (NULL with err set on failure); close frees it. */
    kops_ctx_t *(*open)(gs_err_t *err);
    void (*close)(kops_ctx_t *cx);
    /* memory: alloc returns zeroed memory, or NULL */
    void *(*alloc)(kops_ctx_t *cx, size_t bytes);
    void (*release)(kops_ctx_t *cx, void *p);
    void (*zero)(kops_ctx_t *cx, void *p, size_t bytes);
    void (*copy)(kops_ctx_t *cx, void *dst, const void *src, size_t bytes);
    void (*upload)(kops_ctx_t *cx, void *dst, const void *host, size_t bytes);
    void (*download)(kops_ctx_t *cx, void *host, const void *src, size_t bytes);
    int (*sync)(kops_ctx_t *cx, gs_err_t *err);
    /* Names the work issued next (for a device profiler); NULL on the host. */
    void (*annotate)(kops_ctx_t *cx, int layer, int phase, const char *op);
    int (*graph_mirror)(kops_ctx_t *cx, const graph_t *host, graph_t *out, gs_err_t *err);
    void (*graph_release)(kops_ctx_t *cx, graph_t *mirror);
    /* kernels.h, in this place */
    void (*gemm)(kops_ctx_t *cx, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c,
                 int acc);
    void (*gather_sum)(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *x, int64_t f, float *y, int acc);
    void (*gather_sum_bwd)(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dx, int acc);
    void (*gather_max)(kops_ctx_t *cx, const graph_t *g, const float *x, int64_t f, float *y, int32_t *argmax);
    void (*gather_max_bwd)(kops_ctx_t *cx, const graph_t *g, const int32_t *argmax, const float *dy, int64_t f, float *dx, int acc);
    void (*scatter_src)(kops_ctx_t *cx, const graph_t *g, const float *x, int64_t f, float *y);
    void (*scatter_dst)(kops_ctx_t *cx, const graph_t *g, const float *x, int64_t f, float *y);
    void (*scatter_src_bwd)(kops_ctx_t *cx, const graph_t *g, const float *dy, int64_t f, float *dx, int acc);
    void (*scatter_dst_bwd)(kops_ctx_t *cx, const graph_t *g, const float *dy, int64_t f, float *dx, int acc);
    void (*gather_edge)(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *m, int64_t f, float *y, int acc);
    void (*gather_edge_bwd)(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *dy, int64_t f, float *dm, int acc);
    void (*edge_uaddv)(kops_ctx_t *cx, const graph_t *g, const float *l, const float *r, int64_t k, float *s);
    void (*edge_softmax)(kops_ctx_t *cx, const graph_t *g, const float *s, int64_t k, float *a);
    void (*edge_softmax_bwd)(kops_ctx_t *cx, const graph_t *g, const float *a, const float *da, int64_t k, float *ds, int acc);
    void (*gather_attn)(kops_ctx_t *cx, const graph_t *g, const float *x, const float *a, int64_t k, int64_t h, float *y);
    void (*gather_attn_bwd)(kops_ctx_t *cx, const graph_t *g, const float *a, const float *dy, int64_t k, int64_t h, float *dx, int acc);
    void (*sddmm)(kops_ctx_t *cx, const graph_t *g, const float *p, const float *q, int64_t k, int64_t h, float *out, int acc);
    void (*gather_typed)(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *z, int64_t h, float *y, int acc);
    void (*gather_typed_bwd)(kops_ctx_t *cx, const graph_t *g, agg_weight_t w, const float *dy, int64_t h, float *dz, int acc);
    /* dense ops the program and the trainer need */
    void (*ew_forward)(kops_ctx_t *cx, const ew_args_t *a);
    void (*ew_backward)(kops_ctx_t *cx, const ew_args_t *a);
    /* out[j] (+)= sum over rows of x[r, j] */
    void (*colsum)(kops_ctx_t *cx, const float *x, int64_t rows, int64_t cols, float *out, int acc);
    /* y[r,k] = sum_h a[r,k,h] w[k,h]; backward writes da (+)= and dw (+)= */
    void (*head_dot)(kops_ctx_t *cx, const float *a, const float *w, int64_t rows, int64_t k, int64_t h, float *y);
    void (*head_dot_bwd)(kops_ctx_t *cx, const float *a, const float *w, const float *dy, int64_t rows, int64_t k, int64_t h, float *da,
                         int acc_a, float *dw, int acc_w);
    /* Mean softmax cross-entropy of logits (nrows, c) over the idx rows
     * with a label >= 0 (`counted` of them, known to the caller); writes
     * dlogits (zero outside idx) when not NULL. unlisted_zero: the caller
     * knows dlogits already holds zero outside idx, so the table may
     * leave those rows alone (zeroing them anyway is correct). */
    double (*xent)(kops_ctx_t *cx, const float *logits, int64_t nrows, int64_t c, const int32_t *label, const int32_t *idx, int64_t n,
                   int64_t counted, float *dlogits, int unlisted_zero);
    /* How many idx rows with a label >= 0 have their argmax equal to it. */
    int64_t (*correct)(kops_ctx_t *cx, const float *logits, int64_t c, const int32_t *label, const int32_t *idx, int64_t n);
    /* Adam with L2 weight decay; c1, c2 are the bias corrections. */
    void (*adam)(kops_ctx_t *cx, float *w, const float *g, float *m, float *v, int64_t n, float lr, float wd, float c1, float c2);
    /* The fused gather (kernels_fused.h); NULL where the place has none:
     * the fusion pass then only hoists (fuse.h). */
    void (*gather_fused)(kops_ctx_t *cx, const graph_t *g, const fused_expr_t *e, const float *const *leaf, int64_t f, float *y);
    void (*gather_fused_bwd)(kops_ctx_t *cx, const graph_t *g, const fused_expr_t *e, const float *const *leaf, const float *dy,
                             int64_t f, float *const *dleaf, const int *acc);
    /* The plain programs' typed messages (GG-NN written on edge tensors);
     * NULL where the place has none: such a program is refused (exec_init). */
    void (*scatter_typed)(kops_ctx_t *cx, const graph_t *g, const float *z, int64_t h, float *y);
    void (*scatter_typed_bwd)(kops_ctx_t *cx, const graph_t *g, const float *dy, int64_t h, float *dz, int acc);
    void (*edge_matmul_typed)(kops_ctx_t *cx, const graph_t *g, const float *x, const float *a, int64_t k, int64_t m, float *y);
    void (*edge_matmul_typed_bwd)(kops_ctx_t *cx, const graph_t *g, const float *x, const float *a, const float *dy, int64_t k,
                                  int64_t m, float *dx, int acc_x, float *da, int acc_a);
    /* MP-GCN's plain program: the max over each vertex's in-edges of an
     * edge tensor, its winners kept as edge positions (kernels.h); NULL
     * where the place has none: such a program is refused (exec_init). */
    void (*gather_edge_max)(kops_ctx_t *cx, const graph_t *g, const float *m, int64_t f, float *y, int32_t *argmax);
    void (*gather_edge_max_bwd)(kops_ctx_t *cx, const graph_t *g, const int32_t *argmax, const float *dy, int64_t f, float *dm,
                                int acc);
    /* 1: the elementwise kernels keep RELU's sign bits (ew_args_t.mask). */
    int relu_masks;
} kops_t;

/* Where tensors live: a table and its context. */
typedef struct {
    const kops_t *K;
    kops_ctx_t *cx;
} kplace_t;

extern const kops_t kops_cpu;
/* The host place (its context is empty). */
kplace_t kplace_host(void);
/* --simulate's host place (kops_sim.c): the same ops doing nothing. */
extern const kops_t kops_sim;
kplace_t kplace_sim(void);
/* place.c: allocates a (rows, cols) tensor in kp's memory (zeroed), or
 * frees one (data NULL after). */
int place_alloc(kplace_t kp, tensor_t *t, int64_t rows, int64_t cols, gs_err_t *err);
void place_free(kplace_t kp, tensor_t *t);

#endif
