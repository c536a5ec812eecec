/* dkp.h - dynamic kernel placement (GraphTensor §V-A) as a program rewrite:
 * a GATHER whose only consumer is a MATMUL, (A X) W, may be reordered to
 * A (X W), because the gather is linear. The forward pass and the derived
 * backward pass both follow the rewritten order.
 *
 * Cost model (Table I): a gather of width F over E edges costs gamma*E*F +
 * delta*N*F, N the rows it reads and writes (n_src + n_dst: Table I counts
 * only the written side, but a device kernel reads the sources' rows too),
 * an (M x K)(K x M') matmul alpha*M*K*M' + beta*M*M'. A layer's gather reads n_src rows and writes n_dst (the whole
 * graph: both N; a sampled block: its sources and destinations), so per
 * order, forward and backward:
 *   aggregation-first: gather(din) into n_dst, matmul and weight gradient
 *                      on n_dst rows; the input's gradient (a matmul on
 *                      n_dst rows and a gather(din) into n_src) only if the
 *                      layer's input needs one;
 *   combination-first: matmul and weight gradient on n_src rows, gather
 *                      (dout) into n_dst, its backward into n_src, and the
 *                      input's gradient matmul on n_src rows if needed.
 * Table I's benefits are these totals' differences: (n_src - n_dst) *
 * (alpha din dout + beta dout) per matmul against (din - dout) * (gamma E +
 * delta (n_src + n_dst)) per gather. With n_src = n_dst the matmuls cancel and the choice
 * compares gather work only; on sampled blocks (n_src >> n_dst) the extra
 * matmul rows can outweigh a narrower gather. Before the fit the
 * coefficients are the device's roofline (dkp_coef_roofline). Where the
 * run's kernel times are measured (the wall clock, a GPU, the virtual
 * clock with --kernel-time measured), alpha..delta are fitted by least
 * squares to the first epoch's kernel timings (dkp_fit), as GraphTensor
 * fits at the start of training, and decide every site from then on (a
 * choice's basis). Where kernel times are the roofline's, a fit would
 * only approximate the clock's own model, so the roofline decides.
 * With n_src = n_dst the order depends only on din and dout (every cost
 * scales alike), so a fit can change the full graph's costs but not its
 * orders; on sampled blocks it can. */
#ifndef GS_DKP_H
#define GS_DKP_H

#include "program.h"

typedef enum { DKP_OFF = 0, DKP_ON = 1, DKP_AUTO = 2 } dkp_mode_t;

/* The sizes a layer's gather works on. */
typedef struct {
    int64_t n_src, n_dst, edges;
} dkp_shape_t;

typedef struct {
    double alpha, beta, gamma, delta; /* seconds per MAC, matmul output, gathered edge feature, gathered row feature */
} dkp_coef_t;

typedef struct {
    int layer;
    int combination_first;   /* 1: A (X W); 0: (A X) W */
    int64_t din, dout;
    int input_needs_grad;
    dkp_shape_t shape;       /* what the decision was made for */
    double cost_s[2];        /* each order's time, forward + backward, [aggregation-first, combination-first]: by the
                              * roofline, by the fitted model once fitted */
    double agg_flops_fwd[2]; /* [aggregation-first, combination-first] */
    double agg_flops_bwd[2];
    double predicted_saving_s; /* cost_s of the other order minus this one's */
    int basis_fit;           /* 1: decided and costed by the fitted model; 0: by the roofline */
} dkp_choice_t;

typedef struct {
    dkp_coef_t coef;
    int fitted;
    int ngemm, ngather;
    double gemm[64][3];   /* (M*K*M', M*M', seconds) samples */
    double gather[64][3]; /* (E*F, N*F, seconds) samples */
} dkp_model_t;

/* Kernel costs on a device of `flops` FLOP/s and `bw` bytes/s (4-byte
 * values: a MAC is 2 FLOPs; a gathered edge feature, a matmul output and a
 * gather's row feature are each one access). */
dkp_coef_t dkp_coef_roofline(double flops, double bw);
/* Rewrites p in place, deciding each site with coefficients k for the
 * sizes by_layer[layer] (NULL: the whole graph, n vertices and edges
 * edges); fills up to max choices, returns how many sites. */
int dkp_rewrite(program_t *p, dkp_mode_t mode, const dkp_coef_t *k, const dkp_shape_t *by_layer, int64_t n, int64_t edges,
                dkp_choice_t *choices, int max);
/* Non-negative least-squares fit of alpha, beta from the matmul samples
 * and gamma, delta from the gather samples; a kernel with no usable
 * samples keeps prior's coefficients. Sets m->fitted. */
void dkp_fit(dkp_model_t *m, const dkp_coef_t *prior);

#endif
