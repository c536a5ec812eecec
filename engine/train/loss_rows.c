/* loss_rows.c - see loss_rows.h. */
#include "loss_rows.h"

#include <stdlib.h>
#include <string.h>

int loss_rows_zero_outside(const loss_rows_t *z, const float *buf, int64_t nrows, int64_t c, const int32_t *idx, int64_t n)
{
    return z->buf && z->buf == buf && z->nrows == nrows && z->c == c && z->n == n &&
           (n == 0 || memcmp(z->idx, idx, sizeof(int32_t) * (size_t)n) == 0);
}

void loss_rows_wrote(loss_rows_t *z, const float *buf, int64_t nrows, int64_t c, const int32_t *idx, int64_t n)
{
    z->buf = NULL;
    if (n > z->room) {
        int32_t *grown = realloc(z->idx, sizeof(int32_t) * (size_t)n);
        if (!grown) return;
        z->idx = grown, z->room = n;
    }
    if (n > 0) memcpy(z->idx, idx, sizeof(int32_t) * (size_t)n);
    z->buf = buf, z->nrows = nrows, z->c = c, z->n = n;
}

void loss_rows_forget(loss_rows_t *z) { z->buf = NULL; }

void loss_rows_free(loss_rows_t *z)
{
    free(z->idx);
    memset(z, 0, sizeof *z);
}
