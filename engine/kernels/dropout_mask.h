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

/* The 16 mask bits of element j of the row keyed rowkey: the top half of a
 * 32-bit hash of (the row key folded to 32 bits, j), so a row's mask is one
 * vectorised pass (a register of elements an instruction on the host:
 * dropout_rows.h; a 64-bit hash per four elements cost the dropout op 2x a
 * copy of the tensor). */
#define GS_DROP_STEP 0x9e3779b9U /* the hash's input advances by this per element */
GS_HD static inline uint32_t gs_drop_key32(uint64_t rowkey) { return (uint32_t)(rowkey ^ rowkey >> 32); }
GS_HD static inline uint32_t gs_drop_bits(uint64_t rowkey, int64_t j)
{
    return gs_mix32(gs_drop_key32(rowkey) + (uint32_t)j * GS_DROP_STEP) >> 16;
}

/* 1/(1-p) if element (r, j) of the row keyed rowkey is kept, else 0. */
GS_HD static inline float gs_drop_scale(uint64_t rowkey, int64_t j, float p)
{
    return (float)gs_drop_bits(rowkey, j) < p * 65536.0f ? 0.0f : 1.0f / (1.0f - p);
}

#endif
