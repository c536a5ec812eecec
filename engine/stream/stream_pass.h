/* stream_pass.h - one streamed pass over the chunk grid (streamer.h),
 * shared by stream_pass.c (the pass, its columns, the naive step where
 * every device loads its blocks from the host), stream_kinds.c (what
 * each kind of pass adds: max, attention, edge-tensor ops) and
 * stream_chain.c (chain and ring: a block enters each group of devices
 * once and is passed device to device). Internal to engine/stream. */
#ifndef GS_STREAM_PASS_H
#define GS_STREAM_PASS_H

#include "edge_chunks.h"
#include "stream_swap.h"
#include "streamer.h"

/* What a pass's kernel does: a sum gather (plain, weighted or typed), or
 * the max gather forward (winners kept beside the accumulator and sent
 * home with it) or backward (the winners' rows travel with the block's),
 * or the attention gather, either way (each sub-chunk's head scales travel
 * with its structure); or an edge-tensor op of the plain programs: a
 * gather of edge rows (each sub-chunk's rows of the edge tensor travel
 * with its structure, no vertex block is read) or a scatter into edge
 * rows (each sub-chunk's edge rows written on the device from the block's
 * rows or, from_dst, from the column's own rows, and sent home, where the
 * host puts each at its edge id). The edge kinds run every device on its
 * own (naive). PASS_SAG is a scatter from the block's rows and the gather
 * of its edge rows into the column, one after the other on the device
 * (TF-SAGA's chunk dataflow, NeuGraph §5): the sub-chunk's edge rows are
 * made and used in the device's slot and never travel; the weight goes
 * where the host's ops put it (forward in the gather, backward, where the
 * gather's gradient scatters, in the scatter). It reads blocks as a sum
 * gather does, so chain and ring carry them. */
typedef enum { PASS_SUM, PASS_MAX, PASS_MAX_BWD, PASS_ATTN, PASS_EDGE_GATHER, PASS_SCATTER, PASS_SAG } pass_kind_t;

/* A gather as a pass: in is read by source row, out accumulates per
 * output interval; win is the max gather's winners (N, f) on the host,
 * written forward, read by source row backward. */
typedef struct {
    agg_weight_t agg;
    typed_mode_t typed;
    xtensor_t in, out;
    int64_t f;
    int acc, layer;
    phase_t phase;
    pass_kind_t kind;
    int32_t *win;
    const float *att; /* PASS_ATTN: (E, att_k) head scales by graph edge id; PASS_EDGE_GATHER: the edge tensor (E, att_k = f) */
    int64_t att_k;
    int from_dst;     /* PASS_SCATTER: the edge rows come from their destination's row */
    /* PASS_SUM forward: the ApplyVertex ops run on each column's
     * accumulator before it goes home (stream_apply.c), or none */
    const apply_op_t *apply;
    int napply;
} pass_t;

/* The edge-tensor kinds (every device on its own), and the kinds that
 * keep a sub-chunk's per-edge rows (scales or edge rows) in abuf. */
static inline int pass_is_edge_op(const pass_t *ps) { return ps->kind == PASS_EDGE_GATHER || ps->kind == PASS_SCATTER; }
static inline int pass_has_edge_rows(const pass_t *ps) { return ps->kind == PASS_ATTN || ps->kind == PASS_SAG || pass_is_edge_op(ps); }

/* A pass in progress: its buffers, the columns of the current round (one
 * per device), and the events that order reuse of the buffer slots. */
typedef struct {
    const pass_t *ps;
    orient_t *o;
    int slots, aslots, naive, nb, nd; /* block slots in turn (streamer_block_buffers; 1 unpipelined), accumulator slots */
    float *accs[TOPO_MAX_DEV][2], *buf[TOPO_MAX_DEV][STREAM_MAX_SLOTS];
    int32_t *waccs[TOPO_MAX_DEV][2];               /* PASS_MAX: the accumulators' winners */
    int32_t *wbuf[TOPO_MAX_DEV][STREAM_MAX_SLOTS]; /* PASS_MAX_BWD: the blocks' winners */
    float *abuf[TOPO_MAX_DEV][STREAM_MAX_SLOTS];   /* PASS_ATTN, _EDGE_GATHER, _SCATTER, _SAG: head scales or edge rows */
    int ev_out[TOPO_MAX_DEV][STREAM_MAX_SLOTS];    /* PASS_SCATTER: the last copy home of each slot's edge rows */
    float *param[TOPO_MAX_DEV][APPLY_MAX_OPS], *y[TOPO_MAX_DEV][APPLY_MAX_OPS]; /* ps->apply: each op's parameter, a column of its output */
    int ev_y[TOPO_MAX_DEV][APPLY_MAX_OPS];     /* ps->apply: each op's last column's copy home */
    char *ebuf[TOPO_MAX_DEV][STREAM_MAX_SLOTS]; /* a streamed sub-chunk's edge structure, per block slot */
    int ev_d2h[TOPO_MAX_DEV][2];                /* each accumulator slot's last copy home */
    int ev_comp[TOPO_MAX_DEV][STREAM_MAX_SLOTS], ev_fwd[TOPO_MAX_DEV][STREAM_MAX_SLOTS], ev_ready[TOPO_MAX_DEV][STREAM_MAX_SLOTS];
    int *order;                /* [device][t]: the block processed t-th in the device's column (then a scratch column) */
    pipe_state_t pipe[TOPO_MAX_DEV]; /* --swap: the simulated pipeline each device's last column left */
    int col[TOPO_MAX_DEV], round, ra; /* this round's columns (-1: none), the round, its accumulator slot */
    int loads;                        /* chain: the round's steps that loaded a block (the next one's slot) */
    float *acc[TOPO_MAX_DEV];
} pass_run_t;

/* Whether a block of block_rows rows of which used_rows are used is copied filtered (selective scheduling). */
int stream_use_filter(const streamer_t *s, int64_t used_rows, int64_t block_rows);
/* The sum-gather kernel of one sub-chunk: its edges (its structure on
 * the device, ev) from the block in `in` (rows as ev's lidx numbers them:
 * the whole block, or packed rows when filtered) into the accumulator acc
 * of output interval c; blk is the input block. */
kernel_call_t stream_chunk_call(const streamer_t *s, const pass_t *ps, const sub_t *u, const edge_view_t *ev, int blk, int c,
                                const float *in, float *acc);
/* The kernels of the pass's kind for sub-chunk u on device d, its block
 * blk in buffer `slot` (`in`), into d's column, launched on d's compute
 * lane: stream_chunk_call with the winners (max) or head scales
 * (attention) the pass keeps there; PASS_SAG's scatter, then its gather. */
void stream_pass_launch(streamer_t *s, const pass_run_t *pr, int d, int slot, int blk, const sub_t *u, const edge_view_t *ev,
                        const float *in, chunk_tag_t tag);
/* A sub-chunk's head scales (PASS_ATTN) or edge rows (PASS_EDGE_GATHER, or
 * PASS_SCATTER when it adds; else nothing, PASS_SAG included): its edges'
 * rows, picked by edge id on the host, into device d's slot. */
void stream_chunk_scales(streamer_t *s, pass_run_t *pr, int d, int slot, const sub_t *u, chunk_tag_t tag);
/* A block's rows of the max backward's winners, beside its gradient rows:
 * the same rows (rs when filtered, else the whole block) from the host,
 * or device prev's copy in slot pslot (prev >= 0), into device d's slot. */
void stream_block_winners(streamer_t *s, pass_run_t *pr, int d, int slot, int blk, const int32_t *rows, int64_t nrows, int prev,
                          int pslot, chunk_tag_t tag);
/* Whether a pass reads its input by source block (the edge kinds read
 * edge rows, or the column's own rows, instead). */
int stream_reads_blocks(const pass_t *ps);
/* A scatter's column (PASS_SCATTER): its destination rows come in
 * (from_dst), into the accumulator slot (the kernels of its last column
 * have read it); and after a sub-chunk's kernel, its edge rows go home,
 * each to its edge id (else nothing). */
void stream_scatter_begin(streamer_t *s, pass_run_t *pr, int d, int c, chunk_tag_t tag);
void stream_scatter_home(streamer_t *s, pass_run_t *pr, int d, int slot, const sub_t *u, chunk_tag_t tag);
/* Pass ps over orientation o in the column order (stream_pass.c), and the
 * device bytes its buffers take. */
int stream_run_pass(streamer_t *s, orient_t *o, const pass_t *ps, gs_err_t *err);
size_t stream_pass_bytes(const streamer_t *s, const pass_t *ps, const orient_t *o);
/* The width of ApplyVertex op q's input: the op before it's output, or the gather's. */
static inline int64_t stream_apply_in_cols(const pass_t *ps, int q) { return q ? ps->apply[q - 1].out.cols : ps->out.cols; }
/* apply_room.c: how many of the n ApplyVertex ops ps's pass runs on the
 * devices (ps->napply set), within the cap and beside the memory plan. */
int stream_apply_room(streamer_t *s, pass_t *ps, int n);
/* stream_apply.c: the floats the ApplyVertex ops of ps take on a device
 * (parameters, a column of each output); carving them from each region at
 * at_floats, with the parameters sent; running them on device d's
 * finished column of rows rows. */
size_t stream_apply_floats(const pass_t *ps, int64_t max_out);
void stream_apply_setup(streamer_t *s, pass_run_t *pr, size_t at_floats, int64_t max_out);
void stream_apply_column(streamer_t *s, pass_run_t *pr, int d, int64_t rows);
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
/* A round of the ring (NGra §4.2): every block some column of the round
 * reads, passed round the devices as far as the last that reads it. */
int stream_ring_round(streamer_t *s, pass_run_t *pr, gs_err_t *err);
/* The end of a pass (every device synced, the memory plan's op closed,
 * the overlap counted; returns rc or the sync's failure), and whether the
 * user asked to quit (a pass stops after the chunks already queued). */
int stream_pass_end(streamer_t *s, int rc, gs_err_t *err);
int stream_pass_aborted(const streamer_t *s, gs_err_t *err);
/* stream_rowpass.c: pass ps over orientation o in the row order. */
int stream_row_pass(streamer_t *s, orient_t *o, const pass_t *ps, gs_err_t *err);

#endif
