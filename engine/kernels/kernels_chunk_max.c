/* kernels_chunk_max.c - see kernels_chunk_max.h. */
#include "kernels_chunk_max.h"

#include <float.h>

#include "base/threadpool.h"

#define GRAIN 32

void k_chunk_max_init(float *y, int32_t *win, int64_t nd, int64_t f)
{
    for (int64_t i = 0; i < nd * f; i++) y[i] = -FLT_MAX, win[i] = -1;
}

void k_chunk_max_finish(float *y, const int32_t *win, int64_t nd, int64_t f)
{
    for (int64_t i = 0; i < nd * f; i++)
        if (win[i] < 0) y[i] = 0.0f;
}

typedef struct {
    const k_chunk_t *c;
    const float *x;
    const int32_t *ids, *win_in;
    int64_t base;
    float *y;
    int32_t *win;
} max_ctx_t;

static void max_range(void *p, int64_t b, int64_t e)
{
    const max_ctx_t *m = p;
    const k_chunk_t *c = m->c;
    for (int64_t r = b; r < e; r++) {
        int64_t o = c->orow ? c->orow[r] : r;
        float *y = m->y + o * c->y_stride;
        int32_t *w = m->win + o * c->y_stride;
        for (int64_t q = c->ptr[r]; q < c->ptr[r + 1]; q++) {
            const float *x = m->x + (int64_t)c->lidx[q] * c->x_stride;
            int32_t id = (int32_t)(m->base + m->ids[q]);
            for (int64_t j = 0; j < c->f; j++)
                if (x[j] > y[j] || (x[j] == y[j] && w[j] >= 0 && id < w[j])) y[j] = x[j], w[j] = id;
        }
    }
}

void k_chunk_max(const k_chunk_t *c, int64_t nd, const float *x, const int32_t *ids, int64_t in_base, float *y, int32_t *win)
{
    max_ctx_t m = {.c = c, .x = x, .ids = ids, .base = in_base, .y = y, .win = win};
    gs_parallel_for(nd, GRAIN, max_range, &m);
}

static void max_bwd_range(void *p, int64_t b, int64_t e)
{
    const max_ctx_t *m = p;
    const k_chunk_t *c = m->c;
    for (int64_t r = b; r < e; r++) {
        int64_t o = c->orow ? c->orow[r] : r;
        int32_t u = (int32_t)(m->base + o);
        float *y = m->y + o * c->y_stride;
        for (int64_t q = c->ptr[r]; q < c->ptr[r + 1]; q++) {
            const float *dy = m->x + (int64_t)c->lidx[q] * c->x_stride;
            const int32_t *w = m->win_in + (int64_t)c->lidx[q] * c->x_stride;
            for (int64_t j = 0; j < c->f; j++)
                if (w[j] == u) y[j] += dy[j];
        }
    }
}

void k_chunk_max_bwd(const k_chunk_t *c, int64_t nd, const float *dy, const int32_t *win_in, int64_t out_base, float *y)
{
    max_ctx_t m = {.c = c, .x = dy, .win_in = win_in, .base = out_base, .y = y};
    gs_parallel_for(nd, GRAIN, max_bwd_range, &m);
}
