/* fast_math_v8.h - fast_math.h's gs_expf and gs_logf on a vector's lanes at once (GCC
 * vector types: eight lanes, or the build's native width GS_VN, one AVX or
 * AVX-512 register where the build has it, narrower pieces or scalar code
 * otherwise), for host code whose per-element loop the vectoriser cannot
 * see through. The same operations in the same order as the scalar
 * functions (the build contracts no multiply-adds: -std=c11), so every
 * lane's result has the scalar function's bits; a select, or x86's max
 * and min where their rule is the ?:'s, stands for each ?:. Host only. */
#ifndef GS_FAST_MATH_V8_H
#define GS_FAST_MATH_V8_H

#include <stdint.h>

typedef float gs_v8f __attribute__((vector_size(32), aligned(4)));   /* unaligned loads and stores */
typedef int32_t gs_v8i __attribute__((vector_size(32), aligned(4)));

/* The build's native width: GS_VN lanes, one register (sixteen with
 * AVX-512, eight otherwise). Kernels whose loops compare lanes use these:
 * GCC 12 lowers a comparison of a vector wider than the build's registers
 * lane by lane through scalar compares (a 16-lane dropout on an AVX2 Zen 3
 * ran at 2.8x a copy's time, the 16-class loss at 9.7x its bound), while
 * it splits the arithmetic well. Passed by pointer, as the others. */
#ifndef GS_VN /* -DGS_VN=16 tests the AVX-512 layout on any machine */
#ifdef __AVX512F__
#define GS_VN 16
#else
#define GS_VN 8
#endif
#endif
typedef float gs_vnf __attribute__((vector_size(4 * GS_VN), aligned(4)));
typedef int32_t gs_vni __attribute__((vector_size(4 * GS_VN), aligned(4)));
typedef uint32_t gs_vnu __attribute__((vector_size(4 * GS_VN), aligned(4)));

/* x in every lane (a macro: a function returning a vector would change the ABI where AVX is off) */
#define GS_V8_BCAST(x) ((gs_v8f){(x), (x), (x), (x), (x), (x), (x), (x)})

/* Lanes of a where mask m is set (all ones), of b elsewhere; VI is the
 * vectors' integer lane type. */
#define GS_VEC_SELECT(VI, m, a, b) ((__typeof__(a))(((VI)(a) & (m)) | ((VI)(b) & ~(m))))
#define GS_V8_SELECT(m, a, b) ((gs_v8f)GS_VEC_SELECT(gs_v8i, m, a, b))

/* Lane i: a[i] > b[i] ? a[i] : b[i], and a[i] < b[i] ? a[i] : b[i] (a NaN
 * or a tie gives b[i]), for vectors of integer lane type VI: by compare
 * and select, or (the _VN forms, for the native width, which ignore VI) by
 * x86's own max and min, whose rule this is: one instruction instead of
 * two or three. */
#define GS_VEC_MAX(VI, a, b) GS_VEC_PICK(VI, a, b, >)
#define GS_VEC_MIN(VI, a, b) GS_VEC_PICK(VI, a, b, <)
/* a and b evaluated once each (a statement expression: GCC and Clang) */
#define GS_VEC_PICK(VI, a, b, OP)                                                                                      \
    __extension__({                                                                                                    \
        __typeof__(a) pa_ = (a), pb_ = (b);                                                                            \
        GS_VEC_SELECT(VI, pa_ OP pb_, pa_, pb_);                                                                       \
    })
#if GS_VN == 16 && defined(__AVX512F__)
#include <immintrin.h>
#define GS_VN_MAX(VI, a, b) ((gs_vnf)_mm512_max_ps((__m512)(a), (__m512)(b)))
#define GS_VN_MIN(VI, a, b) ((gs_vnf)_mm512_min_ps((__m512)(a), (__m512)(b)))
#elif GS_VN == 8 && defined(__AVX__)
#include <immintrin.h>
#define GS_VN_MAX(VI, a, b) ((gs_vnf)_mm256_max_ps((__m256)(a), (__m256)(b)))
#define GS_VN_MIN(VI, a, b) ((gs_vnf)_mm256_min_ps((__m256)(a), (__m256)(b)))
#else
#define GS_VN_MAX GS_VEC_MAX
#define GS_VN_MIN GS_VEC_MIN
#endif

/* gs_expf of each lane of x, a vector of type VF whose lanes' integer type is
 * VI (a macro: a function taking or returning a vector would change the ABI
 * where the build lacks the vector's width; x is evaluated once). A lane
 * count the build has no registers for is split by the compiler. The
 * clamps are MAXF and MINF (GS_VEC_MAX and GS_VEC_MIN, or the native
 * width's GS_VN_MAX and GS_VN_MIN: GS_EXPF_VN); gs_expf's x >= lo ? x : lo
 * is max(x, lo) by their rule, a NaN giving lo as there. */
#define GS_EXPF_VEC(out, x, VF, VI) GS_EXPF_CLAMPED(out, x, VF, VI, GS_VEC_MAX, GS_VEC_MIN)
#define GS_EXPF_VN(out, x) GS_EXPF_CLAMPED(out, x, gs_vnf, gs_vni, GS_VN_MAX, GS_VN_MIN)
#define GS_EXPF_CLAMPED(out, x, VF, VI, MAXF, MINF)                                                                    \
    do {                                                                                                               \
        VF x_ = (x), z_ = {0};                                                                                         \
        VF c_ = MAXF(VI, x_, z_ - 87.3f);                                                                              \
        c_ = MINF(VI, z_ + 88.3f, c_);                                                                                 \
        VF n_ = (c_ * 1.44269504088896341f + 12582912.0f) - 12582912.0f;                                               \
        VF r_ = (c_ - n_ * 0.693359375f) - n_ * -2.12194440e-4f;                                                       \
        VF p_ = z_ + 1.9875691500e-4f;                                                                                 \
        p_ = p_ * r_ + 1.3981999507e-3f;                                                                               \
        p_ = p_ * r_ + 8.3334519073e-3f;                                                                               \
        p_ = p_ * r_ + 4.1665795894e-2f;                                                                               \
        p_ = p_ * r_ + 1.6666665459e-1f;                                                                               \
        p_ = p_ * r_ + 5.0000001201e-1f;                                                                               \
        p_ = p_ * r_ * r_ + r_ + 1.0f;                                                                                 \
        VF y_ = p_ * (VF)((__builtin_convertvector(n_, VI) + 127) << 23);                                              \
        (out) = GS_VEC_SELECT(VI, x_ != x_, x_, y_);                                                                   \
    } while (0)
#define GS_EXPF_V8(out, x) GS_EXPF_VEC(out, x, gs_v8f, gs_v8i)

/* gs_logf of each lane, as GS_EXPF_VEC. */
#define GS_LOGF_VEC(out, x, VF, VI)                                                                                    \
    do {                                                                                                               \
        VF x_ = (x), z_ = {0};                                                                                         \
        VI b_ = (VI)x_;                                                                                                \
        VF e_ = __builtin_convertvector(((b_ >> 23) & 0xff) - 126, VF);                                                \
        VF m_ = (VF)((b_ & (int32_t)0x807fffff) | 0x3f000000);                                                         \
        VI low_ = m_ < 0.707106781186547524f;                                                                          \
        e_ = GS_VEC_SELECT(VI, low_, e_ - 1.0f, e_);                                                                   \
        VF f_ = GS_VEC_SELECT(VI, low_, m_ + m_, m_) - 1.0f;                                                           \
        VF q_ = f_ * f_;                                                                                               \
        VF p_ = z_ + 7.0376836292e-2f;                                                                                 \
        p_ = p_ * f_ - 1.1514610310e-1f;                                                                               \
        p_ = p_ * f_ + 1.1676998740e-1f;                                                                               \
        p_ = p_ * f_ - 1.2420140846e-1f;                                                                               \
        p_ = p_ * f_ + 1.4249322787e-1f;                                                                               \
        p_ = p_ * f_ - 1.6668057665e-1f;                                                                               \
        p_ = p_ * f_ + 2.0000714765e-1f;                                                                               \
        p_ = p_ * f_ - 2.4999993993e-1f;                                                                               \
        p_ = p_ * f_ + 3.3333331174e-1f;                                                                               \
        VF y_ = ((p_ * f_ * q_ + e_ * -2.12194440e-4f) - 0.5f * q_ + f_) + e_ * 0.693359375f;                          \
        y_ = GS_VEC_SELECT(VI, x_ == 1.0f / 0.0f, x_, y_);                                                             \
        (out) = GS_VEC_SELECT(VI, x_ != x_, x_, y_);                                                                   \
    } while (0)
#define GS_LOGF_V8(out, x) GS_LOGF_VEC(out, x, gs_v8f, gs_v8i)

#endif
