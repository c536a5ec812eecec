/* stream_store.h - non-temporal stores of whole eight-float vectors, for a
 * kernel writing a fresh output larger than the last-level cache that is
 * not read back soon: the line is written without first being read for
 * ownership, so the write costs its bytes once (as glibc's memcpy does for
 * large copies, which is what the roofline's streaming bandwidth measures).
 * Only where the build has AVX and the address is 32-byte aligned; plain
 * stores elsewhere. A kernel that streamed ends its range with
 * GS_STREAM_FENCE() before another thread may read what it wrote. */
#ifndef GS_STREAM_STORE_H
#define GS_STREAM_STORE_H

#include <stdint.h>

#include "fast_math_v8.h"

#if defined(__AVX__)
#include <immintrin.h>
#define GS_STREAM_BUILD 1
#define GS_STREAM_STORE8(p, x) _mm256_stream_ps((p), (__m256)(x))
#define GS_STREAM_FENCE() _mm_sfence()
#else
#define GS_STREAM_BUILD 0
#define GS_STREAM_STORE8(p, x) (*(gs_v8f *)(p) = (x))
#define GS_STREAM_FENCE() ((void)0)
#endif

#define GS_STREAM_MIN_FLOATS ((int64_t)4 << 20) /* 16 MB: more than a last-level cache holds */

/* Whether a fresh output of `floats` floats starting at p is streamed. */
static inline int gs_stream_output(const float *p, int64_t floats)
{
    return GS_STREAM_BUILD && floats >= GS_STREAM_MIN_FLOATS && (uintptr_t)p % 32 == 0;
}

#endif
