/* stream_pass.h - one streamed pass over the chunk grid (streamer.h),
 * shared by stream_pass.c (the pass, its columns, the naive step where
 * every device loads its blocks from the host) and stream_chain.c (chain
 * and ring: a block enters each group of devices once and is passed
 * device to device). Internal to engine/stream. */
#ifndef GS_STREAM_PASS_H
#define GS_STREAM_PASS_H

#include "edge_chunks.h"
#include "streamer.h"

/* A gather as a pass: in is read by source row, out accumulates per output interval. */
typedef struct {
    agg_weight_t agg;
    typed_mode_t typed;
    xtensor_t in, out;
    int64_t f;
    int acc, layer;
    phase_t phase;
} pass_t;

/* A pass in progress: its buffers, the columns of the current round (one
 * per device), and the events that order reuse of the buffer slots. */
typedef struct {
    const pass_t *ps;
    orient_t *o;
    int slots, naive, nb, nd;
    float *accs[TOPO_MAX_DEV][2], *buf[TOPO_MAX_DEV][2];
    char *ebuf[TOPO_MAX_DEV][2];  /* a streamed sub-chunk's edge structure, per buffer slot */
    int ev_d2h[TOPO_MAX_DEV][2], ev_comp[TOPO_MAX_DEV][2], ev_fwd[TOPO_MAX_DEV][2], ev_ready[TOPO_MAX_DEV][2];
    int *order;                /* [device][t]: the block processed t-th in the device's column */
    int col[TOPO_MAX_DEV], round, ra; /* this round's columns (-1: none), the round, its accumulator slot */
    float *acc[TOPO_MAX_DEV];
} pass_run_t;

/* Whether a block of block_rows rows of which used_rows are used is copied filtered (selective scheduling). */
int stream_use_filter(const streamer_t *s, int64_t used_rows, int64_t block_rows);
/* The gather kernel of one sub-chunk: its edges (its structure on the
 * device, ev) from the block in `in` (rows as ev's lidx numbers them: the
 * whole block, or packed rows when filtered) into the column's
 * accumulator. */
kernel_call_t stream_chunk_call(const pass_t *ps, const sub_t *u, const edge_view_t *ev, const float *in, float *acc);
/* The edge structure of sub-chunk `at` of the pass's orientation on
 * device d for this pass, into buffer slot `slot` when streamed. */
int stream_chunk_edges(streamer_t *s, pass_run_t *pr, int d, size_t at, lidx_kind_t lk, int slot, chunk_tag_t tag,
                       edge_view_t *ev, gs_err_t *err);
/* The chunk coordinates of block blk in column c: (row, col) is (source
 * interval, destination interval) in the forward pass. */
chunk_tag_t stream_block_tag(const streamer_t *s, const pass_t *ps, int blk, int c);
/* stream_chain.c: the shared rows of every (round, block, group) for the
 * current multidev mode, when selective scheduling may filter passed
 * blocks; step t of a chain or ring round. */
int stream_ensure_groups(streamer_t *s, orient_t *o, gs_err_t *err);
int stream_chained_step(streamer_t *s, pass_run_t *pr, int t, gs_err_t *err);
/* Device d takes block t into its buffer `slot`: from the host (prev <
 * 0; rs's rows when filt) or from device prev's buffer pslot; then
 * gathers its column's sub-chunk of t (stream_chain.c). */
int stream_hop(streamer_t *s, pass_run_t *pr, int d, int t, int slot, int prev, int pslot, const rowset_t *rs, int filt,
               gs_err_t *err);
/* A round of the ring (NGra §4.2): every block round every device. */
int stream_ring_round(streamer_t *s, pass_run_t *pr, gs_err_t *err);
/* The end of a pass (every device synced, the memory plan's op closed,
 * the overlap counted; returns rc or the sync's failure), and whether the
 * user asked to quit (a pass stops after the chunks already queued). */
int stream_pass_end(streamer_t *s, int rc, gs_err_t *err);
int stream_pass_aborted(const streamer_t *s, gs_err_t *err);
/* stream_rowpass.c: pass ps over orientation o in the row order. */
int stream_row_pass(streamer_t *s, orient_t *o, const pass_t *ps, gs_err_t *err);

#endif
