/* timeline_bin.c - see timeline_bin.h. O(events + cells) per lane. */
#include "timeline_bin.h"

#include <stdlib.h>
#include <string.h>

void timeline_bin(const prof_event_t *ev, int n, int device, int lane, uint64_t t0, uint64_t t1, int width,
                  uint8_t *cells, int32_t *cols_of)
{
    memset(cells, CELL_EMPTY, (size_t)width);
    for (int c = 0; c < width; c++) cols_of[c] = -1;
    if (width <= 0 || t1 <= t0) return;
    double *cover = calloc((size_t)width, sizeof *cover);
    if (!cover) return;
    double cell = (double)(t1 - t0) / width;
    for (int i = 0; i < n; i++) {
        const prof_event_t *e = &ev[i];
        if (e->device != device || e->lane != lane || e->t1 <= t0 || e->t0 >= t1) continue;
        double a = (double)((e->t0 > t0 ? e->t0 : t0) - t0) / cell, b = (double)((e->t1 < t1 ? e->t1 : t1) - t0) / cell;
        for (int c = (int)a; c < width && c <= (int)b; c++) {
            double lo = a > c ? a : c, hi = b < c + 1 ? b : c + 1;
            double share = hi - lo;
            if (share > cover[c] || (share > 0 && cells[c] == CELL_EMPTY)) {
                cover[c] = share;
                cells[c] = e->phase;
                cols_of[c] = e->col;
            }
        }
    }
    free(cover);
}
