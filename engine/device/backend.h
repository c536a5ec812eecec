/* backend.h - the device interface (docs/ARCHITECTURE.md, "Backends"): one table of function
 * pointers per backend. A backend has devices with a memory capacity;
 * per device, one stream per lane (H2D copy, D2H copy, D2D copy, compute)
 * that runs its work in order and asynchronously to the caller; events
 * order work across streams. Copies carry the chunk they move, for the
 * profiler. Kernels are the fixed set of kernels.h, launched by id.
 * Allocation past a device's capacity fails: callers must stream instead. */
#ifndef GS_BACKEND_H
#define GS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "engine/kernels/fused_args.h"
#include "engine/kernels/kernels.h"
#include "engine/kernels/kops.h"
#include "engine/machine/topology.h"

typedef enum { LANE_H2D = 0, LANE_D2H = 1, LANE_D2D = 2, LANE_COMPUTE = 3, LANE__COUNT } lane_t;
typedef enum { PHASE_FWD = 0, PHASE_BWD = 1, PHASE_OPT = 2 } phase_t;

typedef struct {
    int16_t layer;
    int8_t phase;
    int32_t row, col, sub;
} chunk_tag_t;

/* Called after each copy or kernel with its span in seconds (the
 * profiler's and the swap heuristic's source of times): from a stream
 * thread, or, on an emulated clock, from the thread that syncs, with
 * times on that clock. */
typedef void (*task_hook_t)(void *user, int dev, lane_t lane, chunk_tag_t tag, double t0, double t1, double bytes);

struct vclock;

typedef struct {
    int ndev;
    uint64_t dev_mem;        /* bytes per device, 0 = unlimited */
    const topology_t *topo;  /* interconnect model, NULL for native copies */
    task_hook_t on_task;     /* optional */
    void *hook_user;
    struct vclock *clock;    /* cpu backend: emulated time on this clock (engine/machine/vclock.h); NULL: the wall clock */
    double copy_bw;          /* with a clock and no topology: modeled bytes/s of a copy */
    int simulate;            /* with a clock: tasks are timed and logged, not run (--simulate) */
} backend_cfg_t;

/* The chunk kernels the streaming scheduler launches (a subset of
 * kernels.h applied to one (sub-)chunk with device-local buffers):
 * the gather, zeroing, the ApplyVertex matmul of a block of rows, the
 * add of the gradient all-reduce, the max gather's (MP-GCN): its
 * accumulator's start and end, a sub-chunk forward and backward; and the
 * attention gather's (GAT; a chunk gather whose edges scale each head);
 * and the plain programs' edge-tensor ops: a chunk gather that reads
 * each edge's row of an edge tensor, and the scatter that writes them;
 * and the fused gather's (G-GCN), forward or backward; and an
 * ApplyVertex elementwise op over a block of rows (KERN_EW).
 * has_kernel (backend_ops_t) says which a backend can run. */
typedef enum {
    KERN_CHUNK_GATHER,
    KERN_ZERO,
    KERN_GEMM,
    KERN_ADD,
    KERN_MAX_INIT,
    KERN_MAX_FINISH,
    KERN_CHUNK_MAX,
    KERN_CHUNK_MAX_BWD,
    KERN_CHUNK_ATTN,
    KERN_CHUNK_EDGE_GATHER,
    KERN_CHUNK_SCATTER,
    KERN_CHUNK_FUSED,
    KERN_EW,
    KERN__COUNT
} kernel_id_t;

/* A host array of a packed copy (copy_parts): the parts go back to back
 * into device memory, each at a 16-byte aligned offset. */
typedef struct {
    const void *src;
    size_t bytes;
} copy_part_t;
#define GS_COPY_MAX_PARTS 6
static inline size_t copy_part_align(size_t bytes) { return (bytes + 15) & ~(size_t)15; }
/* Typed gathers (GG-NN) pick an f-wide block by edge type (typed_mode_t,
 * kernels.h): in the input row (forward) or in the output row (backward). */

/* out[orow[r]] += sum over the chunk's edges k of row r: w[k] * in[lidx[k]]
 * (KERN_ZERO: out = 0 over nd rows of out_cols). A sub-chunk lists only
 * the output rows it has edges for, so its kernel skips the empty ones.
 * A chunk's structure (ptr, orow, lidx, w, etype) is in device memory,
 * copied there like its rows; its edge types are per position (eid NULL). */
typedef struct {
    kernel_id_t id;
    typed_mode_t typed;
    const int64_t *ptr;    /* (nd + 1) offsets of the (sub-)chunk, by listed output row */
    const int32_t *orow;   /* (nd) output row of each listed row, NULL: row r is out row r */
    const int32_t *lidx;   /* (nnz) row of each edge's input in `in` */
    const int64_t *eid;    /* (nnz) graph edge ids indexing etype, or NULL: etype is by position */
    const float *w;        /* (nnz) edge weights in chunk order, or NULL for 1 */
    const int32_t *etype;  /* edge types (typed gathers) */
    int64_t nd;            /* output rows */
    int64_t nnz;           /* edges */
    int64_t f;             /* values moved per edge */
    int64_t in_cols, out_cols;
    const float *in;
    float *out;
    double flops;
    /* The max gather (forward: out and win (nd, out_cols) hold the running
     * max and its source row, -FLT_MAX and -1 after KERN_MAX_INIT; an edge
     * whose input value is greater, or equal from a smaller source row,
     * wins; KERN_MAX_FINISH zeroes the rows nothing won, as kernels.h's
     * max does). ids (nnz): each edge's input row within the whole block,
     * which starts at global row in_base. Backward: out[orow r] (+)= in
     * where win_in (the forward's winners, rows as in's) names the listed
     * row's global id, out_base + orow[r]. */
    const int32_t *ids;
    int64_t in_base, out_base;
    /* KERN_CHUNK_ATTN: edge q's head j (att_h values each) scaled by att[q * att_k + j] */
    const float *att;
    int64_t att_k, att_h;
    /* KERN_CHUNK_EDGE_GATHER: `in` holds the sub-chunk's edge rows, edge q's
     * in row q. KERN_CHUNK_SCATTER: out holds the sub-chunk's edge rows;
     * edge q's, row q, is set (acc: added) to w[q] times in's row lidx[q],
     * or with from_dst the row of its own listed output row orow[r]. */
    int from_dst;
    /* KERN_CHUNK_FUSED: k_fused_rows (kernels_fused.h) over the sub-chunk's
     * listed rows (ptr, orow, lidx as the other side's rows, w), forward or
     * backward; `fused` names the device rows of both sides. */
    fused_args_t fused;
    int backward;
    int32_t *win;
    const int32_t *win_in;
    /* KERN_GEMM: out (m, n) (+= when acc) = op(a) op(b), row-major, op(a)
     * (m, k) and op(b) (k, n), transposed when trans_a / trans_b.
     * KERN_ADD: out[i] += in[i] for i < m. */
    int trans_a, trans_b, acc;
    int64_t m, n, k;
    const float *a, *b;
    /* KERN_EW: one elementwise op forward (kops.h) over a block of rows,
     * its pointers in device memory (ApplyVertex on the device) */
    ew_args_t ew;
} kernel_call_t;

typedef struct {
    double busy_s[TOPO_MAX_DEV][LANE__COUNT]; /* time each lane was busy */
    double bytes[TOPO_MAX_DEV][LANE__COUNT];  /* bytes moved per lane */
    double flops[TOPO_MAX_DEV];
    double link_bytes[TOPO_MAX_LINKS];
    double filter_s[TOPO_MAX_DEV]; /* host time spent gathering rows for filtered copies */
    uint64_t high_water[TOPO_MAX_DEV];
    /* on an emulated clock, the time between the host's issuing work and
     * its sync, split: some device computing; only copies moving; neither */
    double compute_s, exposed_s, idle_s;
} backend_stats_t;

/* Clears the per-epoch counters; the high-water marks stay. */
static inline void backend_stats_clear(backend_stats_t *s)
{
    for (int d = 0; d < TOPO_MAX_DEV; d++) {
        for (int l = 0; l < LANE__COUNT; l++) s->busy_s[d][l] = s->bytes[d][l] = 0;
        s->flops[d] = s->filter_s[d] = 0;
    }
    for (int l = 0; l < TOPO_MAX_LINKS; l++) s->link_bytes[l] = 0;
    s->compute_s = s->exposed_s = s->idle_s = 0;
}

typedef struct backend backend_t;

typedef struct {
    const char *name;
    int (*open)(backend_t **b, const backend_cfg_t *cfg, gs_err_t *err);
    void (*close)(backend_t *b);
    int (*ndev)(const backend_t *b);
    uint64_t (*capacity)(const backend_t *b, int dev);
    /* Device memory: NULL when the request would exceed the capacity. */
    void *(*alloc)(backend_t *b, int dev, size_t bytes);
    void (*free)(backend_t *b, int dev, void *p, size_t bytes);
    /* Enqueue a copy on (dev, lane). H2D/D2H copy between host and dev;
     * D2D copies from device `peer` to dev. */
    void (*copy)(backend_t *b, int dev, lane_t lane, int peer, void *dst, const void *src, size_t bytes,
                 chunk_tag_t tag);
    /* H2D of selected host rows: rows[0..n) of a (*, row_bytes) host array,
     * packed into dst. The filtering is host work done by the copy engine. */
    void (*copy_rows)(backend_t *b, int dev, void *dst, const void *src, size_t row_bytes, const int32_t *rows,
                      int64_t n, chunk_tag_t tag);
    /* H2D of n <= GS_COPY_MAX_PARTS host arrays packed into dst (each at
     * the running sum of copy_part_align of the ones before): one transfer. */
    void (*copy_parts)(backend_t *b, int dev, void *dst, const copy_part_t *parts, int n, chunk_tag_t tag);
    void (*launch)(backend_t *b, int dev, const kernel_call_t *call, chunk_tag_t tag);
    /* Events: record on a stream returns an id (or -1 after draining the
     * stream when no id can be had); a stream can wait for it (-1: no-op). */
    int (*record)(backend_t *b, int dev, lane_t lane);
    void (*wait)(backend_t *b, int dev, lane_t lane, int event);
    /* All streams idle; the first failure since the last sync (a device
     * error), or GS_OK. */
    int (*sync)(backend_t *b, gs_err_t *err);
    void (*stats)(backend_t *b, backend_stats_t *out);
    void (*reset_stats)(backend_t *b);
    /* Whether launch can run kernel id (the streamer keeps the rest on the host). */
    int (*has_kernel)(const backend_t *b, kernel_id_t id);
    /* D2H of n packed device rows into rows[0..n) of a (*, row_bytes) host
     * array: the unpacking is host work, as copy_rows's filter is. May be
     * NULL where has_kernel denies KERN_CHUNK_SCATTER (its only user). */
    void (*copy_rows_out)(backend_t *b, int dev, void *dst, const void *src, size_t row_bytes, const int32_t *rows, int64_t n,
                          chunk_tag_t tag);
} backend_ops_t;

extern const backend_ops_t backend_cpu;

#endif
