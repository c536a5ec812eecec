/* kernels_chunk_edge.c - see kernels_chunk_edge.h. */
#include "kernels_chunk_edge.h"

#include "base/threadpool.h"

#define GRAIN 32

typedef struct {
    const k_chunk_t *c;
    const float *x, *w;
    float *m;
    int from_dst, acc;
} scatter_ctx_t;

static void scatter_range(void *p, int64_t b, int64_t e)
{
    const scatter_ctx_t *s = p;
    const k_chunk_t *c = s->c;
    for (int64_t r = b; r < e; r++) {
        int64_t o = c->orow ? c->orow[r] : r;
        for (int64_t q = c->ptr[r]; q < c->ptr[r + 1]; q++) {
            const float *x = s->x + (s->from_dst ? o : (int64_t)c->lidx[q]) * c->x_stride;
            float *m = s->m + q * c->y_stride, k = s->w ? s->w[q] : 1.0f;
            if (s->acc) /* k * x is x itself when k is 1 */
                for (int64_t j = 0; j < c->f; j++) m[j] += k * x[j];
            else
                for (int64_t j = 0; j < c->f; j++) m[j] = k * x[j];
        }
    }
}

void k_chunk_scatter(const k_chunk_t *c, int64_t nd, const float *x, int from_dst, const float *w, float *m, int acc)
{
    scatter_ctx_t s = {.c = c, .x = x, .w = w, .m = m, .from_dst = from_dst, .acc = acc};
    gs_parallel_for(nd, GRAIN, scatter_range, &s);
}
