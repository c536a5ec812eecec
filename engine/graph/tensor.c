/* tensor.c - allocation and bulk helpers for tensor_t. */
#include "tensor.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Where the kernel gives transparent huge pages only on request (THP
 * "madvise", Debian's default), a block of HUGE_MIN or more is aligned to a
 * huge page and asks for them: a gather reading rows at random from a
 * 60 MB tensor through 4 KB pages misses the TLB on nearly every row. */
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)8 << 20)

void *gs_aligned_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) bytes = 64;
    size_t align = bytes >= HUGE_MIN ? HUGE_PAGE : 64;
    if (posix_memalign(&p, align, (bytes + 63) & ~(size_t)63) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (align == HUGE_PAGE) (void)madvise(p, bytes & ~(HUGE_PAGE - 1), MADV_HUGEPAGE); /* a hint: refused, pages stay small */
#endif
    return p;
}

int tensor_alloc(tensor_t *t, int64_t rows, int64_t cols, gs_err_t *err)
{
    t->rows = rows;
    t->cols = cols;
    t->data = NULL;
    if (rows < 0 || cols < 0 || (cols > 0 && rows > INT64_MAX / 4 / cols))
        return gs_fail(err, GS_EFAIL, "tensor shape (%lld, %lld) is too large", (long long)rows,
                       (long long)cols);
    size_t bytes = (size_t)(rows * cols) * sizeof(float);
    t->data = gs_aligned_alloc(bytes);
    if (!t->data)
        return gs_fail(err, GS_EFAIL, "out of memory allocating a (%lld, %lld) tensor (%.1f MiB)",
                       (long long)rows, (long long)cols, bytes / 1048576.0);
    memset(t->data, 0, bytes);
    return GS_OK;
}

void tensor_free(tensor_t *t)
{
    free(t->data);
    t->data = NULL;
    t->rows = t->cols = 0;
}

void tensor_zero(tensor_t *t) { memset(t->data, 0, tensor_bytes(t)); }

void tensor_copy(tensor_t *dst, const tensor_t *src) { memcpy(dst->data, src->data, tensor_bytes(src)); }
