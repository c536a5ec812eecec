/* dkp.h - dynamic kernel placement (GraphTensor §V-A) as a program rewrite:
 * a GATHER whose only consumer is a MATMUL, (A X) W, may be reordered to
 * A (X W) because the gather is linear. The forward and the derived
 * backward both follow the rewritten order.
 * This version decides with the FLOP counts of the two orders (E*din vs
 * E*dout aggregation work); the fitted Table I cost model replaces the rule
 * in the streaming engine. */
#ifndef GS_DKP_H
#define GS_DKP_H

#include "program.h"

typedef enum { DKP_OFF = 0, DKP_ON = 1, DKP_AUTO = 2 } dkp_mode_t;

typedef struct {
    int layer;
    int combination_first;   /* 1: A (X W); 0: (A X) W */
    double agg_flops_before; /* aggregation FLOPs per forward in the original order */
    double agg_flops_after;
} dkp_choice_t;

/* Rewrites p in place; fills up to max choices, returns how many sites. */
int dkp_rewrite(program_t *p, dkp_mode_t mode, int64_t edges, dkp_choice_t *choices, int max);

#endif
