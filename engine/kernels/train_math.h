/* train_math.h - the per-row loss and per-element optimiser update, shared
 * by the host ops (kops_cpu.c) and the CUDA plugin's kernels so that both
 * compute the same function. Softmax cross-entropy with float
 * exponentials (fast_math.h's, vectorised: libm's double exp() twice an
 * element made the loss 17x its memory bound) summed in double in eight
 * lanes, and a float log;
 * Adam as torch.optim.Adam with L2 weight decay added to the gradient. */
#ifndef GS_TRAIN_MATH_H
#define GS_TRAIN_MATH_H

#include <math.h>
#include <stdint.h>

#include "base/rng.h" /* GS_HD */
#include "fast_math.h"

/* Loss of one row of logits z (c classes) with label y; when d is not NULL,
 * adds the row's gradient of the mean over `counted` rows into it. The
 * reference form of the host's vector code (xent_cpu.c), which must compute
 * the same bits: element j's exponential is summed (in float, as PyTorch's
 * float32 softmax sums) into lane j % 8, and the lanes fold as 4, 2, 1
 * (lane i takes lane i + w). The exponentials are at most 1 (one of them
 * is 1), so a lane of c / 8 of them keeps ~7 digits; summed in double
 * they cost the vector code a tenth of its time (two conversions and two
 * adds of half-registers where one add of floats does). */
GS_HD static inline double gs_xent_row(const float *z, int64_t c, int32_t y, int64_t counted, float *d)
{
    float mx = z[0];
    for (int64_t j = 1; j < c; j++) mx = z[j] > mx ? z[j] : mx;
    float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t j = 0; j < c; j++) lane[j % 8] += gs_expf(z[j] - mx);
    for (int w = 4; w > 0; w /= 2)
        for (int i = 0; i < w; i++) lane[i] += lane[i + w];
    float s = lane[0];
    if (d) {
        float inv = (float)(1.0 / ((double)s * (double)counted)); /* softmax_j / counted = e_j / (s counted) */
        for (int64_t j = 0; j < c; j++) d[j] += gs_expf(z[j] - mx) * inv;
        d[y] -= 1.0f / (float)counted;
    }
    return (double)gs_logf(s) + mx - z[y]; /* a float log, as PyTorch's float32 log_softmax */
}

/* An Adam step's factors, once a step, from the learning rate and the
 * bias corrections c1, c2: as PyTorch's Adam orders it, the step lr / c1
 * and the denominator sqrt(v) / sqrt(c2) + eps, with 1 / sqrt(c2) a
 * factor, so an element costs one division and one square root (it took
 * three divisions: a third of the optimiser's time). */
typedef struct {
    float step, inv_sqrt_c2;
} gs_adam_step_t;

GS_HD static inline gs_adam_step_t gs_adam_factors(float lr, float c1, float c2)
{
    gs_adam_step_t a = {lr / c1, 1.0f / sqrtf(c2)};
    return a;
}

/* One Adam step of element j with the step's factors a. */
GS_HD static inline void gs_adam_elem(float *w, const float *g, float *m, float *v, int64_t j, float wd, gs_adam_step_t a)
{
    const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
    float gj = g[j] + wd * w[j];
    m[j] = b1 * m[j] + (1.0f - b1) * gj;
    v[j] = b2 * v[j] + (1.0f - b2) * gj * gj;
    w[j] -= a.step * m[j] / (sqrtf(v[j]) * a.inv_sqrt_c2 + eps);
}

#endif
