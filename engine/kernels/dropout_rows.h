/* dropout_rows.h - the host's dropout applied a row at a time, one
 * register of elements a step (GS_VN: sixteen with AVX-512, eight
 * otherwise): each lane's mask bits are drawn as gs_drop_bits draws them
 * (dropout_mask.h), compared with the threshold and applied in the
 * same pass, so the mask never goes through memory and a row costs one
 * read and one write of its floats (drawing the mask into a buffer first
 * and multiplying after cost the forward op ~20% more on a 120K x 128
 * tensor; bench/bench_dropout.sh). Bit for bit gs_drop_scale's result,
 * element by element (test_kernels). Host only: GCC's vector extensions
 * at the build's native width (fast_math_v8.h), or scalar code. */
#ifndef GS_DROPOUT_ROWS_H
#define GS_DROPOUT_ROWS_H

#include <string.h>

#include "dropout_mask.h"
#include "stream_store.h"

/* Lane i of *scale: gs_drop_scale(rowkey, j + i, p) for the row whose key
 * folds to key32, with drop = p * 65536 and keep = 1 / (1 - p): +0 where
 * the element is dropped, keep where it is kept. (By pointer: a vector
 * returned by value changes the ABI where the build lacks its width.) */
static inline void gs_drop_scale_vn(uint32_t key32, int64_t j, float drop, float keep, gs_vnf *scale)
{
    gs_vnu lane;
    for (int i = 0; i < GS_VN; i++) lane[i] = (uint32_t)i;
    gs_vnu x = key32 + ((uint32_t)j + lane) * GS_DROP_STEP;
    GS_MIX32_IN_PLACE(x);
    gs_vnf bits = __builtin_convertvector((gs_vni)(x >> 16), gs_vnf); /* below 2^16: exact */
    gs_vni dropped = bits < (gs_vnf){} + drop;
    *scale = (gs_vnf)((gs_vni)((gs_vnf){} + keep) & ~dropped);
}

/* How gs_drop_apply writes out[j]: stored, stored non-temporally (out
 * 32-byte aligned: stream_store.h), or added to what is there. */
enum { GS_DROP_STORE, GS_DROP_STREAM, GS_DROP_ADD };

/* out[j] = in[j] * gs_drop_scale(rowkey, j, p) for j < f, written as mode
 * says: the forward op (in the input, out the output) and the backward
 * (in the output's gradient, out the input's). */
static inline void gs_drop_apply(float *out, const float *in, uint64_t rowkey, int64_t f, float p, int mode)
{
    uint32_t key32 = gs_drop_key32(rowkey);
    float drop = p * 65536.0f, keep = 1.0f / (1.0f - p);
    int64_t j = 0;
    for (; j + GS_VN <= f; j += GS_VN) {
        gs_vnf v;
        gs_drop_scale_vn(key32, j, drop, keep, &v);
        v *= *(const gs_vnf *)(in + j);
        if (mode == GS_DROP_STREAM) {
            gs_v8f piece[GS_VN / 8];
            memcpy(piece, &v, sizeof piece);
            for (int k = 0; k < GS_VN / 8; k++) GS_STREAM_STORE8(out + j + 8 * k, piece[k]);
        } else if (mode == GS_DROP_ADD) {
            *(gs_vnf *)(out + j) += v;
        } else {
            *(gs_vnf *)(out + j) = v;
        }
    }
    for (; j < f; j++) {
        float v = in[j] * gs_drop_scale(rowkey, j, p);
        out[j] = mode == GS_DROP_ADD ? out[j] + v : v;
    }
}

#endif
