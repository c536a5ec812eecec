/* layout.c - see layout.h.
 *   row 0            title bar
 *   timeline         full width, all spare rows
 *   util | train     side by side
 *   knobs            right of util/train when wide, else below them
 *   console          last 3 rows, full width */
#include "layout.h"

static rect_t rect(int y, int x, int h, int w) { return (rect_t){y, x, h, w}; }

void layout_compute(int rows, int cols, layout_t *out)
{
    out->ok = rows >= LAYOUT_MIN_H && cols >= LAYOUT_MIN_W;
    if (rows < LAYOUT_MIN_H) rows = LAYOUT_MIN_H;
    if (cols < LAYOUT_MIN_W) cols = LAYOUT_MIN_W;
    int console_h = 3, mid_h = 9 + (rows - LAYOUT_MIN_H) / 2, knobs_w = cols >= 120 ? 34 : 28;
    if (mid_h > 15) mid_h = 15; /* enough for every knob; the rest goes to the timeline */
    out->title = rect(0, 0, 1, cols);
    int timeline_h = rows - 1 - mid_h - console_h;
    out->r[PANEL_TIMELINE] = rect(1, 0, timeline_h, cols);
    int y = 1 + timeline_h, left_w = cols - knobs_w, util_w = left_w / 2;
    out->r[PANEL_UTIL] = rect(y, 0, mid_h, util_w);
    out->r[PANEL_TRAIN] = rect(y, util_w, mid_h, left_w - util_w);
    out->r[PANEL_KNOBS] = rect(y, left_w, mid_h, knobs_w);
    out->r[PANEL_CONSOLE] = rect(rows - console_h, 0, console_h, cols);
}
