/* stream_swap.h - the order of a column's sub-chunks (NeuGraph §3.2, Fig.
 * 6): a copy-then-compute pipeline's makespan simulated from the profiled
 * copy and compute times, and the order the swap heuristic picks. As the
 * paper describes it: start from the natural order and swap a pair of
 * sub-chunks of the same chunk, one whose copy outweighs its compute and
 * one the other way round: each sweep over the pairs takes the swap that
 * shortens the simulated schedule most, until none does (or after
 * SWAP_MAX_TRIALS simulations). */
#ifndef GS_STREAM_SWAP_H
#define GS_STREAM_SWAP_H

#include "streamer.h"

/* Makespan of blocks order[0..n) copied then computed (copy times tc,
 * compute times tk, indexed by block) with `slots` device buffers: the
 * copy of the block `slots` ahead waits for the compute that frees its
 * buffer. */
double stream_simulate(const int *order, int n, const double *tc, const double *tk, int slots);
/* The order of column col's nb blocks (block b is sub-chunk b % k of
 * chunk b / k; empty ones last: they are skipped) into order[0..nb);
 * returns the simulated seconds it saves over the natural order (0: the
 * natural order kept). */
double stream_swap_order(const sub_t *col, int nb, int k, const double *tc, const double *tk, int slots, int *order);

#endif
