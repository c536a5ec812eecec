/* place.c - tensors in a place's memory (kops.h). */
#include "kops.h"

int place_alloc(kplace_t kp, tensor_t *t, int64_t rows, int64_t cols, gs_err_t *err)
{
    t->rows = rows, t->cols = cols;
    t->data = kp.K->alloc(kp.cx, sizeof(float) * (size_t)(rows * cols));
    if (!t->data)
        return gs_fail(err, GS_EFAIL, "out of %s memory for a (%lld, %lld) tensor", kp.K->name, (long long)rows,
                       (long long)cols);
    return GS_OK;
}

void place_free(kplace_t kp, tensor_t *t)
{
    if (t->data) kp.K->release(kp.cx, t->data);
    t->data = NULL;
}
