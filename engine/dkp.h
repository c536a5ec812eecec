/* dkp.h - dynamic kernel placement (GraphTensor §V-A) as a program rewrite:
 * a GATHER whose only consumer is a MATMUL, (A X) W, may be reordered to
 * A (X W), because the gather is linear. The forward pass and the derived
 * backward pass both follow the rewritten order.
 *
 * Cost model (Table I, adapted to full-graph training): a gather of width
 * F costs gamma*E*F + delta*N*F, a (M x K)(K x M') matmul costs
 * alpha*M*K*M' + beta*M*M'. With n_src = n_dst = N the matmuls cost the same
 * in both orders, so the choice compares gather work only:
 *   aggregation-first: gather(din) forward, gather(din) backward only if
 *                      the layer's input needs a gradient;
 *   combination-first: gather(dout) forward and backward.
 * alpha..delta are fitted by least squares from the kernel timings of the
 * first epoch (dkp_fit) and give each choice's predicted saving. */
#ifndef GS_DKP_H
#define GS_DKP_H

#include "program.h"

typedef enum { DKP_OFF = 0, DKP_ON = 1, DKP_AUTO = 2 } dkp_mode_t;

typedef struct {
    int layer;
    int combination_first;   /* 1: A (X W); 0: (A X) W */
    int64_t din, dout;
    int input_needs_grad;
    double agg_flops_fwd[2]; /* [aggregation-first, combination-first] */
    double agg_flops_bwd[2];
    double predicted_saving_s; /* by the fitted model, vs the other order (0 until fitted) */
} dkp_choice_t;

typedef struct {
    double alpha, beta, gamma, delta;
    int fitted;
    int ngemm, ngather;
    double gemm[64][3];   /* (M*K*M', M*M', seconds) samples */
    double gather[64][3]; /* (E*F, N*F, seconds) samples */
} dkp_model_t;

/* Rewrites p in place; fills up to max choices, returns how many sites. */
int dkp_rewrite(program_t *p, dkp_mode_t mode, int64_t n, int64_t edges, dkp_choice_t *choices, int max);
/* Least-squares fit of alpha..delta from the collected samples; then the
 * predicted saving of each choice. */
void dkp_fit(dkp_model_t *m, dkp_choice_t *choices, int n, int64_t nv, int64_t edges);

#endif
