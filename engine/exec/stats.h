/* stats.h - the per-epoch counters, each declared once in EPOCH_STATS:
 * name, unit, meaning, print format and where it is shown. The JSON
 * summary, the metrics CSV, the trace's counters and the workbench's
 * training panel iterate over stat_descs(), so a new counter is one line
 * here plus the code that fills it. The flags say which runs a counter
 * applies to; engine/train/run_kind.h's stat_applies reads them against a
 * run's kind (the JSON summary and the panel leave out what does not apply). */
#ifndef GS_STATS_H
#define GS_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Where a counter is shown, beside the CSV (every counter has a column). */
enum {
    STAT_JSON = 1,   /* the JSON summary (last epoch) */
    STAT_PANEL = 2,  /* the workbench's training panel */
    STAT_TRACE = 4,  /* a trace counter per epoch */
    STAT_STREAM = 8, /* meaningful only on a streamed run */
    STAT_FRACTION = 16, /* a fraction in [0, 1], shown as a percentage */
    STAT_BREAKDOWN = 32, /* a term of the panel's time breakdown (they sum to epoch + eval) */
    STAT_DIST = 64,      /* meaningful only on a distributed run (--ranks) */
    STAT_SAMPLED = 128,  /* meaningful only on a sampled run (--batch-size) */
    STAT_SPLIT = 256,    /* the partitioner's parts: meaningful on a streamed or a distributed run */
};

/* X(name, unit, panel label ("": not in the panel), meaning, printf format, flags) */
#define EPOCH_STATS(X)                                                                                                 \
    X(loss, "", "", "training loss of the epoch's step", "%.9g", STAT_TRACE)                                         \
    X(train_acc, "", "", "accuracy on the train split", "%.6f", 0)                                                     \
    X(val_acc, "", "", "accuracy on the validation split", "%.6f", 0)                                                  \
    X(test_acc, "", "", "accuracy on the test split", "%.6f", 0)                                                       \
    X(epoch_ms, "ms", "", "training step: forward, backward and optimiser", "%.6f", STAT_TRACE)                       \
    X(eval_ms, "ms", "", "evaluation forward", "%.6f", 0)                                                              \
    X(flops, "FLOP", "", "floating-point operations of the training step", "%.6g", 0)                                \
    X(host_ms, "ms", "host", "host work: the executor's own ops (elementwise, attention, loss, optimiser)", "%.4f",    \
      STAT_JSON | STAT_BREAKDOWN)                                                                                      \
    X(compute_ms, "ms", "compute", "emulated clock: while devices work, some device computes", "%.4f",               \
      STAT_JSON | STAT_STREAM | STAT_BREAKDOWN)                                                                        \
    X(exposed_ms, "ms", "exposed", "emulated clock: only copies move (transfer not hidden)", "%.4f",                 \
      STAT_JSON | STAT_STREAM | STAT_BREAKDOWN)                                                                        \
    X(idle_ms, "ms", "idle",                                                                                           \
      "emulated clock: devices wait (latency, dependencies); with the three above the epoch and its evaluation",      \
      "%.4f", STAT_JSON | STAT_STREAM | STAT_BREAKDOWN)                                                                \
    X(agg_flops, "FLOP", "agg", "the Gather stage's FLOPs in the training step, forward and backward (DKP's target)", \
      "%.6g", STAT_JSON | STAT_PANEL)                                                                                  \
    X(edge_bytes, "B", "edge tensors", "edge tensors and their gradients the program in force allocates (--fuse on: none where gathers fuse)", \
      "%.0f", STAT_JSON | STAT_PANEL)                                                                                  \
    X(device_ms, "ms", "", "device compute, summed over the devices", "%.4f", STAT_JSON | STAT_STREAM)               \
    X(transfer_ms, "ms", "", "device copies (H2D, D2H, D2D), summed over the devices", "%.4f",                       \
      STAT_JSON | STAT_STREAM)                                                                                         \
    X(h2d_bytes, "B", "h2d", "host-to-device bytes", "%.0f", STAT_JSON | STAT_PANEL | STAT_TRACE | STAT_STREAM)     \
    X(gather_h2d_bytes, "B", "gather h2d", "the Scatter-Gather stage's share of h2d_bytes (vertex rows)", "%.0f",  \
      STAT_JSON | STAT_PANEL | STAT_STREAM)                                                                            \
    X(edge_h2d_bytes, "B", "edge h2d", "the sub-chunks' edge structures (offsets, rows, weights, types) copied to the devices; part of h2d_bytes", \
      "%.0f", STAT_JSON | STAT_STREAM)                                                                                 \
    X(uplink_bytes, "B", "uplink", "bytes the host's links to its switches (or GPUs) carried down", "%.0f",           \
      STAT_JSON | STAT_PANEL | STAT_STREAM)                                                                            \
    X(d2d_bytes, "B", "d2d", "device-to-device bytes", "%.0f", STAT_JSON | STAT_PANEL | STAT_STREAM)                 \
    X(d2h_bytes, "B", "", "device-to-host bytes", "%.0f", STAT_JSON | STAT_STREAM)                                   \
    X(settling, "", "", "1: the epoch recorded a memory plan (nothing kept): the next ones differ, a knob's delta line waits for them", \
      "%.0f", STAT_JSON | STAT_STREAM)                                                                                 \
    X(kept_bytes, "B", "kept", "host-to-device bytes the memory plan's device copies made unnecessary", "%.0f",        \
      STAT_JSON | STAT_PANEL | STAT_STREAM)                                                                            \
    X(acc_kept_bytes, "B", "acc kept",                                                                                 \
      "the column order: product input rows read from the gather's accumulator on its device (NeuGraph 3.2), not streamed in", \
      "%.0f", STAT_JSON | STAT_STREAM)                                                                                 \
    X(hidden_frac, "", "hidden", "fraction of the gathers' transfer time hidden behind compute (the pipelined streams)", \
      "%.4f", STAT_JSON | STAT_PANEL | STAT_STREAM | STAT_FRACTION)                                                    \
    X(swapped_cols, "", "swapped cols",                                                                                \
      "columns whose blocks the swap heuristic reordered (its simulation beat the natural order)", "%.0f",           \
      STAT_JSON | STAT_PANEL | STAT_STREAM)                                                                            \
    X(swap_saved_ms, "ms", "swap saves",                                                                               \
      "time the reordered columns save in the swap heuristic's simulation (profiled copy and compute times)",         \
      "%.4f", STAT_JSON | STAT_PANEL | STAT_STREAM)                                                                    \
    X(swap_bound_ms, "ms", "",                                                                                         \
      "time the best order of each chunk's sub-chunks would save in the same simulation (every order, chunk by chunk; " \
      "k <= 5, P k <= 32): what any swap within chunks could reach", "%.4f", STAT_JSON | STAT_STREAM)              \
    X(filtered_blocks, "", "", "source blocks copied filtered (selective scheduling)", "%.0f", STAT_JSON | STAT_STREAM) \
    X(full_blocks, "", "", "source blocks copied whole", "%.0f", STAT_JSON | STAT_STREAM)                            \
    X(overlap, "", "", "fraction of transfer time hidden behind compute", "%.4f",                                    \
      STAT_JSON | STAT_STREAM | STAT_FRACTION)                                                                         \
    X(filter_ms, "ms", "filter", "host time filtering rows for selective scheduling", "%.4f",                         \
      STAT_JSON | STAT_PANEL | STAT_STREAM)                                                                            \
    X(part_imbalance, "", "imbalance",                                                                                  \
      "the slowest part's time (a device's whole layer: gathers, products, copies; or a rank's compute) over the mean part's (1: balanced; --partitioner)", \
      "%.4f", STAT_JSON | STAT_PANEL | STAT_SPLIT)                                                                     \
    X(part_err, "", "part err",                                                                                        \
      "the partitioner's cost model: mean relative error of the parts' predicted times this epoch (0 before it has samples)", \
      "%.4f", STAT_JSON | STAT_PANEL | STAT_SPLIT | STAT_FRACTION)                                                     \
    X(owned_ms, "ms", "owned", "--ranks: compute on owned rows in the step and its evaluation, mean over the ranks (the rows' share of each op)", "%.4f", \
      STAT_JSON | STAT_PANEL | STAT_DIST)                                                                              \
    X(replica_ms, "ms", "replica", "--ranks: redundant compute on replicated (cached) rows in the step and its evaluation, mean over the ranks", "%.4f", \
      STAT_JSON | STAT_PANEL | STAT_DIST)                                                                              \
    X(comm_ms, "ms", "comm", "--ranks: mirror exchanges in the step and its evaluation, post to last arrival, mean over the ranks (emulated)", "%.4f", \
      STAT_JSON | STAT_PANEL | STAT_DIST)                                                                              \
    X(stall_ms, "ms", "wait", "--ranks: waiting for mirror rows or gradients not yet in, in the step and its evaluation, mean over the ranks", "%.4f",  \
      STAT_JSON | STAT_PANEL | STAT_DIST)                                                                              \
    X(allreduce_ms, "ms", "allreduce", "--ranks: the gradient and statistics all-reduces (emulated)", "%.4f",          \
      STAT_JSON | STAT_PANEL | STAT_DIST)                                                                                            \
    X(queue_ms, "ms", "enqueue", "--ranks: host threads enqueueing forward messages (--queue), summed, mean over the ranks (emulated)", \
      "%.4f", STAT_JSON | STAT_PANEL | STAT_DIST)                                                                      \
    X(load_ms, "ms", "loads", "--ranks on GPUs: gathers waiting for their rows and edges over PCIe, mean over the ranks (emulated)", \
      "%.4f", STAT_JSON | STAT_PANEL | STAT_DIST)                                                                      \
    X(comm_hidden, "", "comm hidden", "--ranks: fraction of exchange time spent computing (overlap)", "%.4f",         \
      STAT_JSON | STAT_PANEL | STAT_DIST | STAT_FRACTION)                                                              \
    X(net_bytes, "B", "net", "--ranks: bytes the ranks sent each other in the step and its evaluation (mirror rows and their gradients)", "%.0f",    \
      STAT_JSON | STAT_PANEL | STAT_TRACE | STAT_DIST)                                                                 \
    X(net_msgs, "", "messages", "--ranks: messages the ranks sent each other", "%.0f", STAT_JSON | STAT_DIST)        \
    X(batches, "", "batches", "--batch-size: training steps this epoch", "%.0f", STAT_JSON | STAT_PANEL | STAT_SAMPLED) \
    X(sampled_edges, "", "sampled edges", "--batch-size: edges in the epoch's sampled blocks", "%.0f",              \
      STAT_JSON | STAT_PANEL | STAT_SAMPLED)                                                                          \
    X(sample_ms, "ms", "S sample", "--batch-size: sampling (draw and id map), modeled, summed over the batches", "%.4f", \
      STAT_JSON | STAT_PANEL | STAT_SAMPLED)                                                                          \
    X(lock_ms, "ms", "S lock waits", "--batch-size: of S, the id map's lock handed between sampling threads (--prepro basic)", \
      "%.4f", STAT_JSON | STAT_PANEL | STAT_SAMPLED)                                                                  \
    X(lock_sr_ms, "ms", "R lock waits", "--batch-size: of R, its map reads queued behind S's lock (--prepro basic)", \
      "%.4f", STAT_JSON | STAT_PANEL | STAT_SAMPLED)                                                                  \
    X(reindex_ms, "ms", "R reindex", "--batch-size: blocks in local rows, modeled, summed", "%.4f",                   \
      STAT_JSON | STAT_PANEL | STAT_SAMPLED)                                                                          \
    X(lookup_ms, "ms", "K lookup", "--batch-size: feature rows gathered, modeled, summed", "%.4f",                    \
      STAT_JSON | STAT_PANEL | STAT_SAMPLED)                                                                          \
    X(batch_copy_ms, "ms", "T transfer", "--batch-size: blocks and rows over the host-to-device link, modeled, summed", \
      "%.4f", STAT_JSON | STAT_PANEL | STAT_SAMPLED)                                                                  \
    X(step_ms, "ms", "steps", "--batch-size: the training steps on the emulated GPU (roofline), summed", "%.4f",     \
      STAT_JSON | STAT_PANEL | STAT_SAMPLED)                                                                          \
    X(prepro_wait_ms, "ms", "step waits", "--batch-size: time the steps waited for their batch", "%.4f",             \
      STAT_JSON | STAT_PANEL | STAT_SAMPLED)                                                                          \
    X(wall_ms, "ms", "", "--batch-size: the epoch's batches on the host's wall clock (sampling, lookup and steps run for real)", \
      "%.4f", STAT_JSON | STAT_SAMPLED)                                                                               \
    X(prepro_host_ms, "ms", "", "--batch-size: the host's wall time preparing the batches (S, R and K for real), summed", \
      "%.4f", STAT_JSON | STAT_SAMPLED)

typedef struct {
    int64_t epoch;    /* 1-based epoch just finished */
    int knob_changed; /* 1: a knob's new value took effect at this epoch's start (the plots mark it) */
#define GS_STAT_FIELD(name, unit, label, help, fmt, flags) double name;
    EPOCH_STATS(GS_STAT_FIELD)
#undef GS_STAT_FIELD
} epoch_stats_t;

typedef struct {
    const char *name, *unit, *label, *help, *fmt;
    size_t off;
    unsigned flags;
} stat_desc_t;

/* The counters in declaration order; *n receives how many. */
const stat_desc_t *stat_descs(int *n);
/* The counter called name, or NULL. */
const stat_desc_t *stat_find(const char *name);
static inline double stat_get(const epoch_stats_t *s, const stat_desc_t *d)
{
    return *(const double *)((const char *)s + d->off);
}
static inline void stat_set(epoch_stats_t *s, const stat_desc_t *d, double v)
{
    *(double *)((char *)s + d->off) = v;
}

#endif
