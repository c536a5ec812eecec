/* streamer.h - the streaming scheduler for graph propagation (NeuGraph
 * §3.1-3.3, NGra §4.2). A gather over the graph runs chunk by chunk on the
 * backend's devices: column-oriented in the forward pass (one destination
 * interval at a time, accumulating every source block into it) and
 * row-oriented in the backward pass (one source interval at a time over
 * the CSR chunks). Source intervals are cut into k blocks (sub-chunks).
 * Knobs:
 *   selective  copy only the rows a (sub-)chunk uses, filtered on the host;
 *              auto filters when theta < T_copy / (T_copy + T_trans), the
 *              aggregate throughputs of the host the devices share (the
 *              link model's, or probed on one device on the wall clock);
 *   pipeline   block buffers per device (as many as a chunk has sub-chunks,
 *              at least two, at most STREAM_MAX_SLOTS: a chunk's memory,
 *              NeuGraph §3.2's k sub-chunks streamed in parallel), so the
 *              copies of the next blocks overlap the compute of this one;
 *   swap       from the second epoch, reorder each column's blocks by
 *              swapping pairs of heterogeneous sub-chunks of one chunk
 *              while a simulation of the schedule on their profiled copy
 *              and compute times says it gets faster (stream_swap.h);
 *   multidev   naive: every device loads its blocks from the host;
 *              chain: devices under one switch pass each block down the
 *              chain device to device, so the shared uplink carries it once;
 *              ring: the first device under each switch loads blocks in
 *              turn and every step passes them one device on, round the
 *              whole ring (NGra §4.2, Fig. 8).
 *              A passed block filtered by selective scheduling carries the
 *              rows any column of its group uses (their union). The swap
 *              heuristic reorders only naive columns.
 *   memplan    stream: every op brings its inputs in; lru / roc: keep
 *              tensors on the devices between ops (memplan.h).
 *   stream_order column: a pass keeps each output interval's accumulator
 *              on its device while every input block streams through
 *              (NeuGraph's order); row: each input interval is loaded
 *              once and the output intervals' partial sums go to the host
 *              and back (Fig. 16's row-column strategy, stream_rowpass.c;
 *              NGra Fig. 14's dest-order); stage: the column order's
 *              passes with ApplyVertex a stage of its own: each
 *              accumulator goes home and comes back before ApplyVertex
 *              runs on it (NGra Fig. 14's stage-based strategy).
 *   edge_chunks each sub-chunk's edge structure travels to the device
 *              before its gather: streamed every pass, or kept there
 *              (resident; auto: while the cap holds them) (edge_chunks.h).
 * Vertex tensors live in host memory between ops (device copies kept by
 * the memory plan mirror them). The Scatter-Gather stages stream in
 * passes (stream_pass.c; chain and ring in stream_chain.c, the swap order
 * in stream_swap.c; streamer.c builds the chunk structures), the
 * ApplyVertex matmuls in stream_matmul.c, the max and attention gathers
 * as passes too, and the plain programs' scatters and edge gathers
 * (where the backend has their kernels; the attention scales' own
 * gradient, an SDDMM, stays on the host), and the fused gathers
 * (stream_fused.c); elementwise ops and the other graph ops (edge
 * softmax and sums, typed edge ops) run on the host.
 * With the knobs at their defaults the sums happen in the unchunked order,
 * so results are bitwise equal to the in-memory kernels; swap and ring
 * reorder sums (floating-point reassociation only). */
#ifndef GS_STREAMER_H
#define GS_STREAMER_H

#include <pthread.h>
#include <stdatomic.h>

#include "engine/device/backend.h"
#include "engine/exec/exec_engine.h"
#include "engine/graph/graph.h"
#include "engine/graph/order.h"
#include "engine/program/program.h"
#include "engine/memplan/memplan_run.h"
#include "edge_store.h"

typedef enum { SEL_OFF = 0, SEL_ON = 1, SEL_AUTO = 2 } selective_t;
typedef enum { MD_NAIVE = 0, MD_CHAIN = 1, MD_RING = 2 } multidev_t;
typedef enum { EDGE_AUTO = 0, EDGE_STREAM = 1, EDGE_RESIDENT = 2 } edge_mode_t;
typedef enum { SO_COLUMN = 0, SO_ROW = 1, SO_STAGE = 2 } stream_order_t;

typedef struct {
    int pipeline;
    int subchunks; /* k */
    selective_t selective;
    int swap;
    multidev_t multidev;
    memplan_kind_t memplan;
    edge_mode_t edge_chunks;
    stream_order_t stream_order;
} stream_knobs_t;

/* The per-edge values a run's gathers can read, beyond the input rows:
 * streamer_init keeps only these (at a paper's size each is 8 bytes an
 * edge, both orientations). */
enum { SUB_W_NORM = 1 << AGG_NORM, SUB_W_MEAN = 1 << AGG_MEAN, SUB_TYPES = 1 << 3, SUB_KERNEL_ARRAYS = 1 << 4, SUB_EIDS = 1 << 5 };
/* SUB_KERNEL_ARRAYS: the arrays a gather kernel reads (offsets, listed
 * rows, input rows in every numbering, the weights and types asked for).
 * Without it (a simulated run, whose kernels and copies are skipped) a
 * sub-chunk keeps its counts and input rows only, and its copies are
 * sized as if the arrays were there: the same bytes, not 24+ an edge.
 * SUB_EIDS: each edge's graph edge id, by which an attention gather's
 * per-edge scales are copied to the device (kept in a simulated run too:
 * that copy's filter is host work). */
#define SUB_ALL_FIELDS (SUB_W_NORM | SUB_W_MEAN | SUB_TYPES | SUB_KERNEL_ARRAYS | SUB_EIDS)

typedef struct {
    int64_t nnz;
    int64_t nout;       /* output rows with at least one edge here */
    int32_t *orow;      /* (nout) those rows, within the output interval, ascending */
    int64_t *ptr;       /* (nout + 1) edge offsets per listed row */
    int32_t *lidx_full; /* (nnz) input row within the whole block */
    int32_t *lidx_sel;  /* (nnz) input row within the filtered rows */
    int32_t *etype;     /* (nnz) edge type of each edge, in sub order; NULL without SUB_TYPES */
    int32_t *eid;       /* (nnz) graph (CSC) edge id of each edge, in sub order; NULL without SUB_EIDS */
    float *w[3];        /* (nnz) edge weights per agg_weight_t, in sub order (AGG_ONE, or not asked for: NULL) */
    int32_t *rows;      /* (nrows) input rows used, ascending (global ids) */
    int64_t nrows;
    int32_t *lidx_grp;  /* (nnz) input row within its device group's shared rows (chain/ring) */
} sub_t;

/* Rows of one block that some device of a group uses in one round. */
typedef struct {
    int32_t *rows;      /* ascending global ids */
    int64_t nrows;
} rowset_t;

/* One layer's profile of an orientation's sub-chunks (NeuGraph §3.2's
 * swap): per [out][block], the seconds of its copies and of its kernels
 * in the last pass that ran it, and that pass. */
typedef struct {
    double *copy, *comp;
    uint32_t *pass;
} sub_prof_t;

typedef struct {
    sub_t *sub;         /* [out interval][block] */
    /* chain/ring with selective scheduling: a block passed down a group of
     * devices carries the union of the rows their columns use */
    rowset_t *grp;      /* [round][block][group], built for grp_mode */
    int grp_mode;       /* the multidev mode grp was built for (-1: none) */
    int grp_n;          /* groups */
    sub_prof_t prof[PROG_MAX_LAYERS]; /* per layer (its passes differ in width), made at its first profiled event */
    int64_t max_nout, max_nnz; /* the largest sub-chunk's listed rows and edges */
} orient_t;

typedef struct {
    double h2d_bytes, d2h_bytes, d2d_bytes;
    double filtered_blocks, full_blocks;
    double gather_h2d_bytes; /* the Scatter-Gather stage's share of h2d_bytes (vertex rows) */
    double edge_h2d_bytes;   /* the sub-chunks' edge structures copied to the devices */
    double acc_kept_bytes;   /* products' input rows read from a gather's accumulator on its device */
    double transfer_s, hidden_s; /* transfer time and the part overlapped by compute */
    double gather_transfer_s, gather_hidden_s; /* the same for the gathers' passes */
    double swapped_cols, swap_saved_s; /* columns the swap heuristic reordered, simulated seconds saved */
    double swap_bound_s;               /* what the best order within chunks would save (stream_swap_bound) */
} stream_counters_t;

typedef struct streamer {
    const backend_ops_t *ops;
    backend_t *b;
    int ndev;
    const topology_t *topo; /* for chain groups; NULL = one group */
    const graph_t *g;
    int p, k, nblocks;      /* nblocks = P * k */
    int64_t *bounds;        /* (P+1) */
    int64_t *blk_lo;        /* (P*k + 1) block boundaries */
    orient_t fwd, bwd;
    stream_knobs_t kn;
    unsigned fields;        /* the per-edge values the sub-chunks hold (SUB_*) */
    double t_copy, t_trans, theta_threshold;
    int have_profile;
    int profiling;
    /* per-device busy intervals of this pass (for overlap) */
    pthread_mutex_t iv_lock;
    double *iv_t0[TOPO_MAX_DEV][2], *iv_t1[TOPO_MAX_DEV][2]; /* [dev][0 = copy, 1 = compute] */
    int iv_n[TOPO_MAX_DEV][2], iv_cap[TOPO_MAX_DEV][2];
    int cur_orient;         /* 0 fwd, 1 bwd: where the hook files profile times */
    uint32_t pass_id;       /* counts passes: a sub-chunk's copies in one pass sum in its profile */
    edge_store_t edges;     /* the sub-chunks' structures kept on the devices */
    /* one region per device, kept across passes (reallocated only when a
     * pass needs more); each pass carves its buffers from it */
    char *region[TOPO_MAX_DEV];
    size_t region_bytes;
    /* ApplyVertex chains beside a memory plan (apply_room.c): which one
     * has the device memory first, and what the recording epoch measured
     * of the other choice */
    uint64_t apply_need;    /* the largest streamed op's device bytes: a chain's pass stays within it while the plan comes first */
    int plan_first;         /* the chains keep to apply_need, the plan has the rest (chosen by streamer_apply_epoch_end) */
    size_t planned_region;  /* the region of the epoch the plan in force was made after (a chain's pass stays within it) */
    double chain_cut_bytes; /* an epoch recorded for a plan: the products' inputs that chains within apply_need would stream */
    int chain_cut_ops;      /* and the ops such chains would not run */
    stream_counters_t ctr;
    memplan_rt_t mp;        /* the memory plan (ROC §5): which tensors stay on the devices */
    /* per [layer][output interval]: the device seconds of its gathers and
     * its ApplyVertex products since the epoch began, the longest of its
     * compute, its copies to the device and its copies back (the lanes
     * overlap; the partitioner's measurements: streamer_part_times) */
    double *part_s;
    double *part_lane_s;    /* [0 compute, 1 to the device, 2 back][layer][interval], summed by the hook */
    int32_t *mm_part;       /* the current matmul's blocks' intervals */
    int mm_nblocks;
    const atomic_int *abort_flag; /* when it becomes non-zero, a pass stops after the chunk in flight */
} streamer_t;

/* Within engine/stream: floats rounded up to 64 (a buffer's start stays
 * aligned); the rounds of a pass (P columns over the devices); the group
 * rows of chain and ring released (stream_chain.c builds them). */
static inline size_t stream_round64(size_t floats) { return (floats + 63) & ~(size_t)63; }
int streamer_rounds(const streamer_t *s);
void streamer_free_groups(streamer_t *s, orient_t *o);

/* Builds the chunk structures for P intervals (bounds) and k blocks per
 * interval, with the per-edge values in fields (SUB_*). The backend must
 * be open. */
int streamer_init(streamer_t *s, const backend_ops_t *ops, backend_t *b, const topology_t *topo, const graph_t *g,
                  int p, const int64_t *bounds, const stream_knobs_t *kn, unsigned fields, gs_err_t *err);
void streamer_free(streamer_t *s);
/* Measures T_copy (host memcpy) and T_trans (a real H2D through the
 * backend) and sets the selective-scheduling threshold; on a virtual
 * clock both come from the modeled machine (half its host bandwidth; the
 * link model's rate with every device copying from the host at once), so
 * the choice is the same on every host. */
struct vclock;
int streamer_probe(streamer_t *s, const struct vclock *clock, gs_err_t *err);
/* part_s from part_lane_s (after an epoch's tasks have all run). */
void streamer_part_times(streamer_t *s);
/* The hook to pass as backend_cfg_t.on_task (user = the streamer). */
void streamer_task_hook(void *user, int dev, lane_t lane, chunk_tag_t tag, double t0, double t1, double bytes);
/* Makes orientation o's profile of layer `layer` (on the thread that
 * issues the pass, before its tasks: the hook only writes into it).
 * Returns 0 where it cannot (out of range, out of memory: no profile,
 * no swap). */
int streamer_profile_layer(streamer_t *s, orient_t *o, int layer);

/* The gathers of exec_engine.h over the full graph (c->g is the graph the
 * streamer was built on): forward, column by column over the CSC chunks;
 * backward, row by row over the CSR chunks. */
int streamer_gather(streamer_t *s, const gather_call_t *c, gs_err_t *err);
/* The forward gather c with the ApplyVertex ops after it (exec_engine.h's
 * gather_apply) in the column order (stream_apply.c): each column's
 * accumulator consumed on its device by ops[0, *ran), every output sent
 * home, so a product's input never streams back in. *ran stops at the
 * first op the backend has no kernel for and where the ops' buffers would
 * not fit the device cap beside the gather's and the kept edge chunks (P
 * is chosen without them, so they never change it); it may be 0. */
int streamer_gather_apply(streamer_t *s, const gather_call_t *c, const apply_op_t *ops, int nops, int *ran, gs_err_t *err);
/* After each epoch, with whether it was recorded for a memory plan (the
 * plan now made) and the device bytes kept besides the streaming region:
 * whether the ApplyVertex chains or the plan have the memory first
 * (apply_room.c). */
void streamer_apply_epoch_end(streamer_t *s, int recorded, uint64_t reserved_besides);
int streamer_gather_bwd(streamer_t *s, const gather_call_t *c, gs_err_t *err);
/* The max gather (MP-GCN) on the devices, column by column over the CSC
 * chunks (backward: over the CSR chunks, each block's winners travelling
 * with its gradient rows), in the column order whatever stream_order
 * says; the backend must have the KERN_*MAX* kernels. */
int streamer_gather_max(streamer_t *s, const graph_call_t *c, int backward, gs_err_t *err);
/* The attention gather (GAT) on the devices, forward over the CSC chunks
 * and its input gradient over the CSR chunks: each sub-chunk's per-edge
 * head scales (c->att rows picked by edge id) travel with its structure.
 * Column order; the backend must have KERN_CHUNK_ATTN; the streamer must
 * hold SUB_EIDS. */
int streamer_gather_attn(streamer_t *s, const graph_call_t *c, int backward, gs_err_t *err);
/* The plain programs' edge-tensor ops on the devices (TF-SAGA's shape of
 * `--fuse off`): scatter_src, scatter_dst and the gather of an edge
 * tensor, forward or backward. A scatter (and the gather's backward)
 * writes each column's edge rows on its device and sends them home; the
 * gather (and the scatters' backward) copies each sub-chunk's edge rows
 * in by edge id. Naive multidev; the backend must have
 * KERN_CHUNK_SCATTER and KERN_CHUNK_EDGE_GATHER; the streamer must hold
 * SUB_EIDS. */
int streamer_edge_op(streamer_t *s, const graph_call_t *c, int backward, gs_err_t *err);
/* A source scatter and the gather of its edge rows as one pass (c->sag:
 * TF-SAGA's chunk dataflow, the edge tensor used by nothing else): each
 * sub-chunk's edge rows are made on its device and summed there, never
 * sent home. Forward over the CSC chunks (c->in by source, c->out by
 * destination); backward over the CSR chunks, from the output's gradient
 * (c->in) into the input's (c->out). Column order whatever --stream-order says;
 * any multidev mode; the backend must have KERN_CHUNK_SCATTER and
 * KERN_CHUNK_EDGE_GATHER. */
int streamer_sag(streamer_t *s, const graph_call_t *c, int backward, gs_err_t *err);

/* The fused gather (G-GCN) on the devices (stream_fused.c): forward over
 * the CSC chunks; backward, the destination leaves' gradients over the
 * CSC chunks and the source leaves' over the CSR chunks. Every device
 * loads its own blocks, in the column order; the backend must have
 * KERN_CHUNK_FUSED. Its device bytes for a fused expression of nleaf
 * leaves f wide (the largest of its passes). */
int streamer_gather_fused(streamer_t *s, const graph_call_t *c, int backward, gs_err_t *err);
uint64_t streamer_fused_need(const fused_expr_t *e, int nleaf, int64_t f, int64_t max_out, int64_t max_blk, int64_t max_nnz);
#define STREAM_MAX_SLOTS 8 /* block buffers a device streams through at most */

/* The block buffers a pass of the column order carves per device: with
 * pipelining, one per sub-chunk of a chunk (k, at least 2, at most
 * STREAM_MAX_SLOTS); without, 2 (the blocks then take turns in the first). */
int streamer_block_buffers(int pipeline, int k);
/* Device bytes of a pass: two accumulators of max_out rows and nbuf block
 * buffers of max_blk rows. */
uint64_t streamer_pass_need(int64_t max_out, int64_t max_blk, int64_t out_cols, int64_t in_cols, int nbuf);
/* Device bytes of nbuf edge-structure buffers for sub-chunks of at most
 * max_nout listed rows and max_nnz edges. */
uint64_t streamer_edge_need(int64_t max_nout, int64_t max_nnz, int nbuf);
/* A pass's need for P equal intervals of n vertices cut into k blocks each. */
uint64_t streamer_working_set(int64_t n, int p, int k, int64_t cols, int nbuf);

/* Makes every device's region at least `bytes` (for the passes here and
 * in stream_matmul.c), rounded up as streamer_reserved_size says; fails
 * with a message naming the cap. */
int streamer_reserve(streamer_t *s, size_t bytes, gs_err_t *err);
size_t streamer_reserved_size(size_t bytes);
/* Frees every device's region (between passes; the next pass reserves
 * what it needs). */
void streamer_release_region(streamer_t *s);
/* Adds the transfer time of the op just synced, and the part of it a
 * device's compute overlapped, to the counters (gathers: to the gathers'
 * too), and clears the op's intervals. */
void streamer_fold_overlap(streamer_t *s, int gathers);
/* Host bytes the chunk structures of P intervals and k blocks take for a
 * graph of n vertices and m edges (a column of the grid while building,
 * then P x Pk sub-chunks in each orientation, with or without the kernel
 * arrays, SUB_KERNEL_ARRAYS): for the memory rule (membudget.h). */
double streamer_memory_bytes(int64_t n, int64_t m, int p, int k, int kernel_arrays);
/* The chunk count in [p_lo, p_hi] whose structures take the fewest host
 * bytes (streamer_memory_bytes; *bytes gets them): not always the fewest
 * chunks, since a column of the grid holds m / P edges while building. */
#define STREAMER_CHUNKS_SEARCH 65536 /* chunk counts past this need more than any host has (P x Pk sub-chunks) */
int streamer_leanest_chunks(int64_t n, int64_t m, int p_lo, int p_hi, int k, int kernel_arrays, double *bytes);
/* Rows in the largest of the P * k blocks. */
int64_t streamer_max_block(const streamer_t *s);

/* stream_matmul.c: the ApplyVertex matmul out (N, f) = a (N, c) w (c, f)
 * by blocks of rows on the devices, and its backward: da (N, c) (+)= dy
 * w^T, dw (c, f) (+)= a^T dy, the weight gradient all-reduced across the
 * devices (ring). da (data NULL) or dw may be absent. */
int streamer_matmul(streamer_t *s, const matmul_call_t *mc, gs_err_t *err);
int streamer_matmul_bwd(streamer_t *s, const matmul_call_t *mc, gs_err_t *err);
uint64_t streamer_matmul_working_set(int64_t n, int p, int k, int64_t c, int64_t f);

/* New knobs between epochs; a change of any drops the memory plan (its
 * recorded costs no longer hold). */
void streamer_set_knobs(streamer_t *s, const stream_knobs_t *kn);

#endif
