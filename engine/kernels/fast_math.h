/* fast_math.h - an exp(x) for float that the compiler vectorises (libm's
 * expf is a call per element). Cody-Waite range reduction to
 * x = n ln2 + r, |r| <= ln2/2, a degree-6 polynomial for exp(r) (the
 * classic Cephes expf coefficients) and 2^n built in the exponent bits.
 * Measured relative error <= 1.2e-7 (about one ulp) over [-87, 88];
 * inputs are clamped to that range (exp(-87.3) ~ 1e-38, exp(88.3) ~ 2e38),
 * NaN passes through. Written with selects, not fminf/fmaxf, so that the
 * vectoriser keeps NaN semantics without -ffast-math; GCC if-converts the
 * selects (and so vectorises a loop of them) only under
 * -fno-trapping-math, which the Makefile gives engine/kernels/. */
#ifndef GS_FAST_MATH_H
#define GS_FAST_MATH_H

#include <stdint.h>

#include "base/rng.h" /* GS_HD */

GS_HD static inline float gs_expf(float x)
{
    float c = x < -87.3f ? -87.3f : x;
    c = c > 88.3f ? 88.3f : c;
    float n = (c * 1.44269504088896341f + 12582912.0f) - 12582912.0f; /* round to nearest: 1.5 * 2^23 */
    float r = (c - n * 0.693359375f) - n * -2.12194440e-4f;          /* ln2 in two parts */
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    union {
        int32_t i;
        float f;
    } scale = {.i = ((int32_t)n + 127) << 23};
    float y = p * scale.f;
    return x != x ? x : y;
}

/* The logistic function, 1 / (1 + e^-x), as every host op computes it. */
GS_HD static inline float gs_sigmoidf(float x) { return 1.0f / (1.0f + gs_expf(-x)); }

#endif
