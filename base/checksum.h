/* checksum.h - a 64-bit checksum of byte ranges for gnnscope's own files
 * (checkpoints, the dataset cache): four multiply-xor lanes over 8-byte
 * words, so it runs near memory speed, folded with splitmix64. It detects
 * corruption (bad disks, partial copies); it is not a cryptographic hash.
 * Chain calls to cover several ranges: h = gs_checksum(h, p, n). */
#ifndef GS_CHECKSUM_H
#define GS_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rng.h"

#define GS_CHECKSUM_SEED 0x67736e73636f7065ULL

static inline uint64_t gs_checksum(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t lane[4] = {h, h ^ 0x9e3779b97f4a7c15ULL, h ^ 0xc2b2ae3d27d4eb4fULL, h ^ 0x165667b19e3779f9ULL};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * k, 8);
            lane[k] = (lane[k] ^ w) * 0x100000001b3ULL;
            lane[k] ^= lane[k] >> 29;
        }
    uint64_t out = gs_hash5(lane[0], lane[1], lane[2], lane[3], (uint64_t)n);
    for (; i < n; i++) out = gs_hash2(out, p[i]);
    return out;
}

#endif
