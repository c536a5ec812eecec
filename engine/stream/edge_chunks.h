/* edge_chunks.h - a sub-chunk's edge structure on the devices (NeuGraph
 * §3.1: an edge chunk is streamed to the GPU with the vertex rows it
 * reads). Before its gather runs, a sub-chunk's structure (the offsets of
 * its listed output rows, those rows, each edge's input row, and its
 * weight and type when the gather uses them) is on the device: copied
 * into the pass's structure buffer as one packed H2D transfer (streamed),
 * or found in the device's store of structures kept from an earlier pass
 * (resident). --edge-chunks picks: stream (every pass copies them),
 * resident (each is copied once and kept; a device that cannot hold them
 * all is an error), auto (kept while they fit; when the cap runs out, the
 * store is given up and they stream until the knobs change). Every copy's
 * bytes count in edge_h2d_bytes and its time in the sub-chunk's profiled
 * copy time (the swap heuristic's input). Internal to engine/stream. */
#ifndef GS_EDGE_CHUNKS_H
#define GS_EDGE_CHUNKS_H

#include "streamer.h"

/* Which input-row numbering a gather of a sub-chunk uses: the whole
 * block's, the filtered rows' (selective scheduling), or its device
 * group's shared rows (chain and ring). */
typedef enum { LIDX_FULL = 0, LIDX_SEL = 1, LIDX_GRP = 2 } lidx_kind_t;

/* A sub-chunk's structure in device memory, as the kernel reads it. */
typedef struct {
    const int64_t *ptr;
    const int32_t *orow, *lidx;
    const float *w;       /* NULL: weight 1 */
    const int32_t *etype; /* per position; NULL unless typed */
    const int32_t *ids;   /* each edge's input row within the whole block (asked for by a max gather), else NULL */
} edge_view_t;

/* Puts sub-chunk u (index `at` of orientation o) on device d for a gather
 * of weights agg (typed: with edge types; ids: with each edge's row in
 * the whole block, which a max gather's winners are), reading lidx_kind's numbering:
 * from the store, or by a packed copy into the store or into `slot` (a
 * streamed buffer, half of streamer_edge_need). The copy is issued on d's
 * H2D lane; the caller orders the kernel after it. *out receives the
 * device addresses. Fails only with --edge-chunks resident when d
 * cannot hold the structure. */
int edge_load(streamer_t *s, int d, const orient_t *o, size_t at, lidx_kind_t lidx_kind, agg_weight_t agg, int typed,
              int ids, void *slot, chunk_tag_t tag, edge_view_t *out, gs_err_t *err);

#endif
