/* stream_swap.h - the order of a column's sub-chunks (NeuGraph §3.2, Fig.
 * 6): a copy-then-compute pipeline simulated from the profiled copy and
 * compute times, and the order the swap heuristic picks. As the paper
 * describes it: start from the natural order and swap a pair of
 * sub-chunks of the same chunk, one whose copy outweighs its compute and
 * one the other way round, each measured against the column's own balance
 * (its copy time over its compute time; NeuGraph judges the pair by the
 * simulated overlap, and in a transfer-bound column that is relative):
 * each sweep over the pairs takes the swap that
 * shortens the simulated schedule most, until none does (or after
 * SWAP_MAX_TRIALS simulations). The engine pipelines across a device's
 * columns (the next column's copies start while this one's last kernels
 * run), so the schedule a swap is judged by starts from the pipeline the
 * column before left and runs on through the next column in its natural
 * order: a column's tail that the next column's copies hide is no saving.
 * A search over every order of each chunk (stream_swap_bound) measures
 * the room any swap within chunks has beside what the heuristic takes. */
#ifndef GS_STREAM_SWAP_H
#define GS_STREAM_SWAP_H

#include "streamer.h"

/* A copy-then-compute pipeline between two columns: when its copy and
 * compute lanes are free, and when each device buffer's last kernel ends
 * (a column's t-th block uses buffer t % slots). Zero: an empty pipeline. */
typedef struct {
    double copy_end, comp_end, slot_free[STREAM_MAX_SLOTS];
} pipe_state_t;

/* Blocks order[0..n) copied then computed (copy times tc, compute times
 * tk, indexed by block) with `slots` <= STREAM_MAX_SLOTS buffers, from the
 * pipeline *from (NULL: empty): the copy of the block `slots` ahead waits
 * for the kernel that frees its buffer. Returns when the last kernel ends;
 * the pipeline it leaves goes to *to (unless NULL). */
double stream_simulate_from(const pipe_state_t *from, const int *order, int n, const double *tc, const double *tk, int slots,
                            pipe_state_t *to);
/* The same from an empty pipeline: the column's makespan. */
double stream_simulate(const int *order, int n, const double *tc, const double *tk, int slots);
/* Column col's natural order into order[0..nb): its non-empty blocks,
 * then the empty ones (the pass skips them). Returns the non-empty count. */
int stream_natural_order(const sub_t *col, int nb, int *order);

/* What a column's order is judged with: the pipeline the column before
 * left, and the next column's blocks (in its order) and times, or none. */
typedef struct {
    pipe_state_t start;
    const int *next;
    int next_n;
    const double *next_tc, *next_tk;
} swap_ctx_t;

/* The order of column col's nb blocks (block b is sub-chunk b % k of
 * chunk b / k; empty ones last) into order[0..nb), judged within ctx
 * (NULL: the column alone, from an empty pipeline); returns the simulated
 * seconds it saves over the natural order (0: the natural order kept). */
double stream_swap_order(const sub_t *col, int nb, int k, const double *tc, const double *tk, int slots, const swap_ctx_t *ctx,
                         int *order);

/* What orders within chunks could save, for comparison with the
 * heuristic's: from the heuristic's order `from` (stream_swap_order's for
 * the same column), each chunk in turn takes the best of every order of
 * its non-empty sub-chunks (the other chunks as they stand), sweep after
 * sweep until one gains nothing (at most SWAP_BOUND_MAX_SWEEPS), judged
 * within ctx as stream_swap_order judges; the simulated seconds it saves
 * beyond `from` (>= 0; with the heuristic's saving, what the search saves
 * over the natural order: a local optimum, not a proof of the best). Computed where a column is small
 * enough to search (k <= SWAP_BOUND_MAX_K, nb <= SWAP_BOUND_MAX_BLOCKS);
 * elsewhere returns -1. */
#define SWAP_BOUND_MAX_K 5
#define SWAP_BOUND_MAX_BLOCKS 32 /* the search costs ~k! P^2 k steps a sweep: a column of 32 blocks, < 1 ms */
#define SWAP_BOUND_MAX_SWEEPS 8
double stream_swap_bound(const sub_t *col, int nb, int k, const double *tc, const double *tk, int slots, const swap_ctx_t *ctx,
                         const int *from);

#endif
