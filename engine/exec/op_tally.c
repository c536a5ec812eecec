/* op_tally.c - see op_tally.h. */
#include "op_tally.h"

#include <stdlib.h>
#include <string.h>

int op_tally_start(op_tally_t *t, int ncode, gs_err_t *err)
{
    free(t->rows);
    t->rows = calloc((size_t)(2 * ncode + 2), sizeof *t->rows);
    t->ncode = ncode, t->epochs = 0, t->warm_dropped = 0;
    return t->rows ? GS_OK : gs_fail(err, GS_EFAIL, "out of memory (--profile ops: %d instructions)", ncode);
}

void op_tally_free(op_tally_t *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}

op_tally_row_t *op_tally_row(op_tally_t *t, int i, int phase)
{
    if (i >= 0) return i < t->ncode && phase >= 0 && phase <= 1 ? &t->rows[2 * i + phase] : NULL;
    return &t->rows[2 * t->ncode + (phase == 2 ? OP_TALLY_OPTIMISER : OP_TALLY_LOSS)];
}

void op_tally_add(op_tally_t *t, int i, int phase, double seconds, double flops, op_traffic_t bytes, double cols)
{
    op_tally_row_t *r = op_tally_row(t, i, phase);
    if (!r) return;
    r->calls += 1, r->seconds += seconds, r->flops += flops;
    r->stream_bytes += bytes.stream, r->row_bytes += bytes.rows, r->cols = cols;
}

void op_tally_epoch_done(op_tally_t *t)
{
    t->epochs++;
    if (t->warm_dropped) return;
    memset(t->rows, 0, sizeof *t->rows * (size_t)(2 * t->ncode + 2));
    t->epochs = 0, t->warm_dropped = 1;
}
