/* fast_math.h - exp(x) and log(x) for float that the compiler vectorises
 * (libm's are a call per element). Cody-Waite range reduction to
 * x = n ln2 + r, |r| <= ln2/2, a degree-6 polynomial for exp(r) (the
 * classic Cephes expf coefficients) and 2^n built in the exponent bits.
 * Measured relative error <= 1.2e-7 (about one ulp) over [-87, 88];
 * inputs are clamped to that range (exp(-87.3) ~ 1e-38, exp(88.3) ~ 2e38),
 * NaN passes through (the clamp turns it into -87.3 for the arithmetic, so
 * the float-to-int conversion and the exponent's shift never see one).
 * Written with selects, not fminf/fmaxf, so that the vectoriser keeps NaN
 * semantics without -ffast-math; GCC if-converts the
 * selects (and so vectorises a loop of them) only under
 * -fno-trapping-math, which the Makefile gives engine/kernels/. */
#ifndef GS_FAST_MATH_H
#define GS_FAST_MATH_H

#include <stdint.h>

#include "base/rng.h" /* GS_HD */

GS_HD static inline float gs_expf(float x)
{
    float c = x >= -87.3f ? x : -87.3f;
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

/* log(x) for float: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(1 + f)
 * for f = m - 1 by the classic Cephes logf polynomial (degree 9 in f), then
 * e ln2 added in two parts. For positive normal x (the loss takes it of a
 * softmax denominator >= 1): about one ulp; NaN passes through, +inf gives
 * +inf; zero, negatives and subnormals are outside its domain. */
GS_HD static inline float gs_logf(float x)
{
    union {
        float f;
        int32_t i;
    } u = {.f = x};
    float e = (float)(((u.i >> 23) & 0xff) - 126);
    u.i = (u.i & (int32_t)0x807fffff) | 0x3f000000; /* the mantissa in [1/2, 1) */
    float m = u.f;
    int low = m < 0.707106781186547524f;
    e = low ? e - 1.0f : e;
    float f = (low ? m + m : m) - 1.0f;
    float z = f * f;
    float p = 7.0376836292e-2f;
    p = p * f - 1.1514610310e-1f;
    p = p * f + 1.1676998740e-1f;
    p = p * f - 1.2420140846e-1f;
    p = p * f + 1.4249322787e-1f;
    p = p * f - 1.6668057665e-1f;
    p = p * f + 2.0000714765e-1f;
    p = p * f - 2.4999993993e-1f;
    p = p * f + 3.3333331174e-1f;
    float y = ((p * f * z + e * -2.12194440e-4f) - 0.5f * z + f) + e * 0.693359375f;
    y = x == 1.0f / 0.0f ? x : y;
    return x != x ? x : y;
}

/* The logistic function, 1 / (1 + e^-x), as every host op computes it. */
GS_HD static inline float gs_sigmoidf(float x) { return 1.0f / (1.0f + gs_expf(-x)); }

#endif
