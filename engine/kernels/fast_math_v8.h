/* fast_math_v8.h - fast_math.h's gs_expf and gs_logf on eight lanes at once (GCC vector
 * types: AVX where the build has it, SSE pairs or scalar code otherwise),
 * for host code whose per-element loop the vectoriser cannot see through.
 * The same operations in the same order as the scalar functions (the build
 * contracts no multiply-adds: -std=c11), so every lane's result has the
 * scalar function's bits; a select stands for each ?:. Host only. */
#ifndef GS_FAST_MATH_V8_H
#define GS_FAST_MATH_V8_H

#include <stdint.h>

typedef float gs_v8f __attribute__((vector_size(32), aligned(4)));   /* unaligned loads and stores */
typedef int32_t gs_v8i __attribute__((vector_size(32), aligned(4)));

/* x in every lane (a macro: a function returning a vector would change the ABI where AVX is off) */
#define GS_V8_BCAST(x) ((gs_v8f){(x), (x), (x), (x), (x), (x), (x), (x)})

/* Lanes of a where mask m is set (all ones), of b elsewhere. */
#define GS_V8_SELECT(m, a, b) ((gs_v8f)(((gs_v8i)(a) & (m)) | ((gs_v8i)(b) & ~(m))))

/* gs_expf of each lane (a macro for the same ABI reason; x is evaluated once). */
#define GS_EXPF_V8(out, x)                                                                                             \
    do {                                                                                                               \
        gs_v8f x_ = (x);                                                                                               \
        gs_v8f c_ = GS_V8_SELECT(x_ < GS_V8_BCAST(-87.3f), GS_V8_BCAST(-87.3f), x_);                                   \
        c_ = GS_V8_SELECT(c_ > GS_V8_BCAST(88.3f), GS_V8_BCAST(88.3f), c_);                                            \
        gs_v8f n_ = (c_ * 1.44269504088896341f + 12582912.0f) - 12582912.0f;                                           \
        gs_v8f r_ = (c_ - n_ * 0.693359375f) - n_ * -2.12194440e-4f;                                                   \
        gs_v8f p_ = GS_V8_BCAST(1.9875691500e-4f);                                                                     \
        p_ = p_ * r_ + 1.3981999507e-3f;                                                                               \
        p_ = p_ * r_ + 8.3334519073e-3f;                                                                               \
        p_ = p_ * r_ + 4.1665795894e-2f;                                                                               \
        p_ = p_ * r_ + 1.6666665459e-1f;                                                                               \
        p_ = p_ * r_ + 5.0000001201e-1f;                                                                               \
        p_ = p_ * r_ * r_ + r_ + 1.0f;                                                                                 \
        gs_v8f y_ = p_ * (gs_v8f)((__builtin_convertvector(n_, gs_v8i) + 127) << 23);                                  \
        (out) = GS_V8_SELECT(x_ != x_, x_, y_);                                                                        \
    } while (0)

/* gs_logf of each lane (a macro for the same reason; x is evaluated once). */
#define GS_LOGF_V8(out, x)                                                                                             \
    do {                                                                                                               \
        gs_v8f x_ = (x);                                                                                               \
        gs_v8i b_ = (gs_v8i)x_;                                                                                        \
        gs_v8f e_ = __builtin_convertvector(((b_ >> 23) & 0xff) - 126, gs_v8f);                                        \
        gs_v8f m_ = (gs_v8f)((b_ & (int32_t)0x807fffff) | 0x3f000000);                                                 \
        gs_v8i low_ = m_ < 0.707106781186547524f;                                                                      \
        e_ = GS_V8_SELECT(low_, e_ - 1.0f, e_);                                                                        \
        gs_v8f f_ = GS_V8_SELECT(low_, m_ + m_, m_) - 1.0f;                                                            \
        gs_v8f z_ = f_ * f_;                                                                                           \
        gs_v8f p_ = GS_V8_BCAST(7.0376836292e-2f);                                                                     \
        p_ = p_ * f_ - 1.1514610310e-1f;                                                                               \
        p_ = p_ * f_ + 1.1676998740e-1f;                                                                               \
        p_ = p_ * f_ - 1.2420140846e-1f;                                                                               \
        p_ = p_ * f_ + 1.4249322787e-1f;                                                                               \
        p_ = p_ * f_ - 1.6668057665e-1f;                                                                               \
        p_ = p_ * f_ + 2.0000714765e-1f;                                                                               \
        p_ = p_ * f_ - 2.4999993993e-1f;                                                                               \
        p_ = p_ * f_ + 3.3333331174e-1f;                                                                               \
        gs_v8f y_ = ((p_ * f_ * z_ + e_ * -2.12194440e-4f) - 0.5f * z_ + f_) + e_ * 0.693359375f;                      \
        y_ = GS_V8_SELECT(x_ == 1.0f / 0.0f, x_, y_);                                                                  \
        (out) = GS_V8_SELECT(x_ != x_, x_, y_);                                                                        \
    } while (0)

#endif
