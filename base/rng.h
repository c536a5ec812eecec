/* rng.h - counter-based randomness (docs/ARCHITECTURE.md, "Invariants").
 * Every random value is a pure hash of its coordinates (seed, epoch, layer,
 * vertex, feature ...), never the next draw of a stream, so any chunking,
 * ordering or device split draws identical values. */
#ifndef GS_RNG_H
#define GS_RNG_H

#include <math.h>
#include <stdint.h>

/* The hashes are shared with the CUDA plugin's kernels. */
#ifdef __CUDACC__
#define GS_HD __host__ __device__
#else
#define GS_HD
#endif

/* splitmix64 finaliser: a bijective 64-bit mixer. */
GS_HD static inline uint64_t gs_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* A 32-bit finaliser (two multiply-xorshift rounds): what a loop of 32-bit
 * lanes vectorises, where gs_mix64's 64-bit products do not (AVX2).
 * GS_MIX32_IN_PLACE mixes x in place: a uint32_t, or a vector of them (the
 * host's dropout mixes sixteen lanes at once: dropout_rows.h). */
#define GS_MIX32_IN_PLACE(x) ((x) ^= (x) >> 16, (x) *= 0x7feb352dU, (x) ^= (x) >> 15, (x) *= 0x846ca68bU, (x) ^= (x) >> 16)
GS_HD static inline uint32_t gs_mix32(uint32_t x)
{
    GS_MIX32_IN_PLACE(x);
    return x;
}
GS_HD static inline uint64_t gs_hash2(uint64_t a, uint64_t b) { return gs_mix64(gs_mix64(a) ^ b); }
GS_HD static inline uint64_t gs_hash3(uint64_t a, uint64_t b, uint64_t c) { return gs_mix64(gs_hash2(a, b) ^ c); }
GS_HD static inline uint64_t gs_hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return gs_mix64(gs_hash3(a, b, c) ^ d);
}
GS_HD static inline uint64_t gs_hash5(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
    return gs_mix64(gs_hash4(a, b, c, d) ^ e);
}

/* Uniform in [0, 1) from the top 24 bits of a hash. */
GS_HD static inline float gs_uniform(uint64_t h) { return (float)(h >> 40) * (1.0f / 16777216.0f); }

/* Standard normal from one hash (Box-Muller on its two 32-bit halves). */
GS_HD static inline float gs_normal(uint64_t h)
{
    double u1 = ((double)(h >> 32) + 1.0) / 4294967297.0;
    double u2 = (double)(h & 0xffffffffu) / 4294967296.0;
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

#endif
