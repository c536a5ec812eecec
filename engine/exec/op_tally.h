/* op_tally.h - per-op accounting of the training steps (--profile ops):
 * for each instruction of the program and phase (forward, backward), and
 * for the loss and the optimiser, the calls, the time on the run's clock,
 * the FLOPs and the bytes the op model says it moves (op_table.h's
 * op_traffic: streamed, and read by row index through a graph's edges).
 * The executor adds host work (exec_host_work); ops a device engine ran
 * are its backend's and are not in it. The evaluation forward is left out.
 * Keyed by instruction: the owner starts a new tally when the program is
 * rebuilt. The epoch a tally starts in is not counted (the run's first:
 * page faults, DKP's timing syncs; or one the rebuild cut in two), so a
 * report needs two epochs or more. The executor's thread only. */
#ifndef GS_OP_TALLY_H
#define GS_OP_TALLY_H

#include <stdint.h>

#include "base/error.h"
#include "engine/program/op_table.h"

typedef struct {
    double calls, seconds, flops, stream_bytes, row_bytes;
    double cols; /* the output's width at the last call */
} op_tally_row_t;

/* rows[2 * i + phase] for instruction i; then the loss, then the optimiser. */
typedef struct {
    op_tally_row_t *rows;
    int ncode;
    int64_t epochs;   /* epochs summed in rows */
    int warm_dropped; /* the epoch under way at the start has been dropped */
} op_tally_t;

enum { OP_TALLY_LOSS = 0, OP_TALLY_OPTIMISER = 1 };

/* A new tally for a program of ncode instructions (an earlier one's rows
 * and epochs discarded): the epoch under way when it starts is not
 * counted (part of it ran the old program, or it is the run's first). */
int op_tally_start(op_tally_t *t, int ncode, gs_err_t *err);
void op_tally_free(op_tally_t *t);
/* The row of instruction i (phase 0 forward, 1 backward), or with i < 0
 * the loss (phase 0) or the optimiser (phase 2). */
op_tally_row_t *op_tally_row(op_tally_t *t, int i, int phase);
void op_tally_add(op_tally_t *t, int i, int phase, double seconds, double flops, op_traffic_t bytes, double cols);
/* An epoch ended: counted, or (the first since the start) dropped. */
void op_tally_epoch_done(op_tally_t *t);

#endif
