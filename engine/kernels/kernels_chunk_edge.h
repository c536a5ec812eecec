/* kernels_chunk_edge.h - the edge-tensor ops of the plain SAGA programs
 * (`--fuse off`: scatter_src, scatter_dst and the gather of an edge
 * tensor, kernels.h) over one sub-chunk of a streamed pass, on
 * device-local buffers: the cpu backend's device kernels. The pulls that
 * read edge rows are k_pull with src_edge; this is the other direction,
 * the scatter that writes them: each edge of the sub-chunk writes (or
 * adds) its row of the sub-chunk's edge rows (in sub-chunk order; the
 * copy home puts each at its edge id). One writer per edge row. */
#ifndef GS_KERNELS_CHUNK_EDGE_H
#define GS_KERNELS_CHUNK_EDGE_H

#include <stdint.h>

#include "kernels_chunk_max.h"

/* For listed row r (output interval row orow[r]) and its edges q:
 * m[q] (+)= s_q * x[from_dst ? orow[r] : lidx[q]], s_q = w[q] (1 when w
 * is NULL); rows of m are f wide, of x x_stride. */
void k_chunk_scatter(const k_chunk_t *c, int64_t nd, const float *x, int from_dst, const float *w, float *m, int acc);

#endif
