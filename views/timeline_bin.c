/* timeline_bin.c - see timeline_bin.h. O(events + cells) per lane. */
#include "timeline_bin.h"

#include <stdio.h>
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

const prof_event_t *timeline_span_at(const prof_event_t *ev, int n, int device, int lane, uint64_t c0, uint64_t c1)
{
    const prof_event_t *best = NULL;
    uint64_t best_cover = 0;
    for (int i = 0; i < n; i++) {
        const prof_event_t *e = &ev[i];
        if (e->device != device || e->lane != lane || e->t1 <= c0 || e->t0 >= c1) continue;
        uint64_t cover = (e->t1 < c1 ? e->t1 : c1) - (e->t0 > c0 ? e->t0 : c0);
        if (!best || cover > best_cover) best = e, best_cover = cover;
    }
    return best;
}

void timeline_describe(const prof_event_t *e, const char *lane_label, uint64_t t_end, char *out, size_t n)
{
    if (!e) {
        snprintf(out, n, "%s: idle here", lane_label);
        return;
    }
    char chunk[64] = "", size[48] = "";
    if (e->row >= 0 && e->col >= 0) snprintf(chunk, sizeof chunk, ", chunk row %d col %d sub %d", e->row, e->col, e->sub);
    else if (e->col >= 0) snprintf(chunk, sizeof chunk, ", %s %d", e->lane == PL_NETSEND || e->lane == PL_NETRECV ? "peer rank" : "column", e->col);
    else if (e->row >= 0) snprintf(chunk, sizeof chunk, ", block %d", e->row);
    if (e->bytes > 0) snprintf(size, sizeof size, ", %.2f MB", e->bytes / 1e6);
    if (e->flops > 0) snprintf(size + strlen(size), sizeof size - strlen(size), ", %.3g MFLOP", e->flops / 1e6);
    char layer[16] = "";
    if (e->layer >= 0) snprintf(layer, sizeof layer, " L%d", e->layer);
    double before = e->t0 <= t_end ? (double)(t_end - e->t0) / 1e6 : -(double)(e->t0 - t_end) / 1e6;
    snprintf(out, n, "%s: %s%s %.15s%s, %.3f ms from -%.3f ms%s", lane_label, prof_phase_name((prof_phase_t)e->phase), layer, e->op,
             chunk, (double)(e->t1 - e->t0) / 1e6, before, size);
}
