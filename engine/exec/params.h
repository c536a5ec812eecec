/* params.h - a model's parameters and optimiser state in a place's memory
 * (kops.h): per parameter its weights, gradient and Adam moments, with the
 * name the program gave it. Weights start Glorot-uniform from a hash of
 * (seed, parameter, element), or zero, so every process and every place
 * draws the same initial model. */
#ifndef GS_PARAMS_H
#define GS_PARAMS_H

#include "engine/kernels/kops.h"
#include "engine/program/program.h"
#include "engine/graph/tensor.h"

typedef struct {
    kplace_t kp; /* where the tensors live */
    int n;
    tensor_t *w, *g, *m, *v; /* weights, gradients, Adam first and second moments */
    char (*names)[32];
} params_t;

/* Allocates parameters for prog in kp's memory and initialises them. */
int params_init(params_t *ps, const program_t *prog, uint64_t seed, kplace_t kp, gs_err_t *err);
void params_free(params_t *ps);
int64_t params_count(const params_t *ps);
/* One Adam step (as torch.optim.Adam, L2 weight decay added to the gradient) at step t >= 1. */
void params_adam_step(params_t *ps, int64_t t, float lr, float weight_decay);

#endif
