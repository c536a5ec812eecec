/* loss_rows.h - what a trainer knows of its loss gradient's rows between
 * losses. A loss over the listed rows idx leaves the gradient buffer zero
 * on every other row (kops.h's xent), and the rows stay zero until the
 * buffer is written by anything else. A full-batch run lists the same
 * training rows every epoch, so from its second epoch on the loss writes
 * only those rows (xent's unlisted_zero) instead of zeroing all N x C
 * first. What is remembered is the buffer, its shape and a copy of the
 * listed rows, compared by value: a split rebuilt at the same address with
 * other rows (a rank's resplit) is not taken for the old one.
 * Limits: host memory only (the rows are compared on the host); whoever
 * reallocates the buffer or writes it other than by the loss calls
 * loss_rows_forget. */
#ifndef GS_LOSS_ROWS_H
#define GS_LOSS_ROWS_H

#include <stdint.h>

typedef struct {
    const float *buf; /* the buffer the last loss wrote, or NULL: nothing known */
    int64_t nrows, c, n;
    int32_t *idx;     /* a copy of that loss's listed rows (n of them) */
    int64_t room;     /* idx's capacity */
} loss_rows_t;

/* Whether buf (nrows x c) holds zero outside the n rows of idx: the last
 * loss wrote this buffer at this shape for the same rows. */
int loss_rows_zero_outside(const loss_rows_t *z, const float *buf, int64_t nrows, int64_t c, const int32_t *idx, int64_t n);
/* A loss has just written buf (nrows x c) for the rows of idx, which
 * loss_rows_zero_outside did not know (the copy is taken again). Without
 * memory for the copy, nothing is known (never an error). */
void loss_rows_wrote(loss_rows_t *z, const float *buf, int64_t nrows, int64_t c, const int32_t *idx, int64_t n);
/* Nothing is known of the buffer's rows (it was reallocated or written). */
void loss_rows_forget(loss_rows_t *z);
void loss_rows_free(loss_rows_t *z);

#endif
