/* program_types.h - the vocabulary of op programs (program.h): value
 * domains, the ops, instructions, values, fused-gather expressions and
 * the program itself. The op table (op_table.h) describes each op; the
 * builder (program.c) and every pass read both. */
#ifndef GS_PROGRAM_TYPES_H
#define GS_PROGRAM_TYPES_H

#include <stdint.h>

#include "base/error.h"
#include "engine/graph/graph.h"

typedef enum { DOM_INPUT, DOM_PARAM, DOM_VERTEX, DOM_EDGE } val_domain_t;

typedef enum {
    OP_MATMUL,        /* Y = A W                      A: (R, K), W param (K, M) */
    OP_BIAS,          /* Y = A + b                    b param (1, M) */
    OP_ADD,           /* Y = A + B */
    OP_MUL,           /* Y = A * B (elementwise) */
    OP_LERP,          /* Y = (1 - Z) * A + Z * B      in = {Z, A, B} */
    OP_RELU,
    OP_LEAKY_RELU,    /* fparam = negative slope */
    OP_ELU,
    OP_SIGMOID,
    OP_TANH,
    OP_DROPOUT,       /* fparam = drop probability; mask = hash(seed, epoch, instr, row, col) */
    OP_HEAD_DOT,      /* Y[r,k] = sum_h A[r,k,h] a[k,h]; iparam = K heads, a param (1, K*H) */
    OP_GATHER,        /* vertex -> vertex, Y[v] = sum_in w_e A[u]; iparam = agg_weight_t */
    OP_GATHER_MAX,    /* vertex -> vertex, max over in-neighbours */
    OP_SCATTER_SRC,   /* vertex -> edge, Y[e] = A[src] */
    OP_SCATTER_DST,   /* vertex -> edge, Y[e] = A[dst] */
    OP_GATHER_EDGE,   /* edge -> vertex, Y[v] = sum_in w_e M[e]; iparam = agg_weight_t */
    OP_EDGE_UADDV,    /* vertex x vertex -> edge, Y[e] = L[src] + R[dst] */
    OP_EDGE_SOFTMAX,  /* edge -> edge, softmax per destination and head */
    OP_GATHER_ATTN,   /* in = {X (N,K*H), A (E,K)}; Y[v,k,:] = sum_in A[e,k] X[u,k,:]; iparam = K */
    OP_GATHER_TYPED,  /* Z (N, T*H) -> (N, H), picks block type(e); iparam = agg_weight_t */
    OP_GATHER_FUSED,  /* leaves (N, F) -> (N, F): Y[v] = sum_in w_e expr(leaves at src or dst); iparam = fused index */
    OP_SCATTER_TYPED, /* vertex -> edge, Y[e] = Z[src, type(e)*H : +H]; Z (N, T*H) */
    OP_EDGE_MATMUL_TYPED, /* edge -> edge, Y[e] = X[e] A[:, type(e)*M : +M]; A param (K, T*M) */
    OP_GATHER_EDGE_MAX,   /* edge -> vertex, Y[v] = max over in-edges of M[e] (MP-GCN's Gather.accumulator = max) */
    OP__COUNT
} op_kind_t;

typedef enum { STAGE_SCATTER, STAGE_APPLY_EDGE, STAGE_GATHER, STAGE_APPLY_VERTEX } saga_stage_t;

typedef struct {
    op_kind_t op;
    int out;
    int in[3];
    int nin;
    float fparam;
    int iparam;
    int layer;
    saga_stage_t stage;
} instr_t;

/* Layers a program may tag (--layers is at most 64; GG-NN steps share one). */
#define PROG_MAX_LAYERS 64

typedef enum { INIT_GLOROT, INIT_ZERO } init_kind_t;

typedef struct {
    val_domain_t dom;
    int64_t rows; /* params only; vertex/edge rows are N/E */
    int64_t cols;
    int requires_grad;
    int param; /* index into the model's parameters, or -1 */
    init_kind_t init;
    char name[32];
} value_t;

/* A fused gather's per-edge expression (fuse.h writes them): registers
 * 0..nleaf-1 hold the leaves' rows, read at the edge's destination (bit k
 * of leaf_dst set) or its source; step s computes register nleaf + s from
 * earlier registers with an elementwise op (ADD, MUL, LERP, RELU,
 * LEAKY_RELU, ELU, SIGMOID, TANH); the last register is gathered with
 * weight agg. */
#define FUSE_MAX_LEAVES 3
#define FUSE_MAX_STEPS 8
typedef struct {
    uint8_t op;   /* op_kind_t */
    int8_t a, b, c; /* registers, -1 unused */
    float fparam;
} fuse_step_t;

typedef struct {
    int nleaf, nstep;
    uint8_t leaf_dst;
    int agg; /* agg_weight_t */
    fuse_step_t step[FUSE_MAX_STEPS];
} fused_expr_t;

typedef struct {
    value_t *vals;
    int nvals, cap_vals;
    instr_t *code;
    int ncode, cap_code;
    int input, output;
    int nparams;
    fused_expr_t *fused; /* OP_GATHER_FUSED's expressions, by iparam */
    int nfused, cap_fused;
    int ntypes;      /* edge types of the graph (GG-NN) */
    int ndropout;    /* dropout sites so far: each gets a stable mask key */
    int cur_layer;   /* tag for instructions being emitted */
    saga_stage_t cur_stage;
    int failed;      /* sticky: a builder call failed */
    gs_err_t err;
} program_t;

#endif
