/* dropout_mask.h - the dropout mask as a pure function of coordinates,
 * shared by the host ops and the CUDA plugin's kernels so that both drop
 * the same elements. A row is keyed by its original vertex id (or, for an
 * edge tensor, its edge's original endpoints), so masks do not depend on
 * vertex order, chunking or the device. 16-bit threshold resolution. */
#ifndef GS_DROPOUT_MASK_H
#define GS_DROPOUT_MASK_H

#include <stdint.h>

#include "base/rng.h"

GS_HD static inline uint64_t gs_drop_row_key(uint64_t key, const int32_t *orig_id, const int32_t *src,
                                             const int32_t *dst, int edge, int64_t r)
{
    uint64_t rid = edge ? ((uint64_t)(uint32_t)orig_id[src[r]] << 32 | (uint32_t)orig_id[dst[r]])
                        : (uint64_t)(uint32_t)orig_id[r];
    return gs_hash2(key, rid);
}

/* 1/(1-p) if element (r, j) of the row keyed rowkey is kept, else 0:
 * element j takes 16 bits of the hash of (rowkey, j / 4). */
GS_HD static inline float gs_drop_scale(uint64_t rowkey, int64_t j, float p)
{
    uint64_t h = gs_mix64(rowkey + (uint64_t)(j >> 2));
    uint32_t bits = (uint32_t)(h >> (16 * (j & 3))) & 0xffffu;
    return (float)bits < p * 65536.0f ? 0.0f : 1.0f / (1.0f - p);
}

/* The same for elements j0 .. j0 + n - 1 of a row (j0 a multiple of 4),
 * one hash per four elements (a pass over the row, not a hash per
 * element; hashing a piece first and then expanding it measured no
 * faster): scale[i] = gs_drop_scale(rowkey, j0 + i, p), bit for bit
 * (drop = p * 65536 and keep = 1 / (1 - p), as there). Callers draw a
 * row GS_DROP_PIECE elements at a time (a buffer on their stack). */
#define GS_DROP_PIECE 1024
GS_HD static inline void gs_drop_scales(uint64_t rowkey, int64_t j0, int64_t n, float p, float *scale)
{
    float drop = p * 65536.0f, keep = 1.0f / (1.0f - p);
    for (int64_t q = 0; 4 * q < n; q++) {
        uint64_t h = gs_mix64(rowkey + (uint64_t)((j0 >> 2) + q));
        for (int64_t i = 0; i < 4 && 4 * q + i < n; i++)
            scale[4 * q + i] = (float)((uint32_t)(h >> (16 * i)) & 0xffffu) < drop ? 0.0f : keep;
    }
}

#endif
