/* layout.c - see layout.h.
 *   row 0            title bar
 *   timeline         full width, the rows its lanes need
 *   util | train     side by side, every row left
 *   knobs            right of util/train
 *   console          last 3 rows (5 from 40 rows), full width */
#include "layout.h"

static rect_t rect(int y, int x, int h, int w) { return (rect_t){y, x, h, w}; }

int layout_timeline_rows(int lanes) { return lanes + 2; }

void layout_compute(int rows, int cols, int timeline_rows, layout_t *out)
{
    out->ok = rows >= LAYOUT_MIN_H && cols >= LAYOUT_MIN_W;
    if (rows < LAYOUT_MIN_H) rows = LAYOUT_MIN_H;
    if (cols < LAYOUT_MIN_W) cols = LAYOUT_MIN_W;
    int console_h = rows >= 40 ? 5 : 3, knobs_w = cols >= 120 ? 34 : 28, avail = rows - 1 - console_h;
    int timeline_h = timeline_rows < 3 ? 3 : timeline_rows;
    if (timeline_h > avail - LAYOUT_MID_MIN) timeline_h = avail - LAYOUT_MID_MIN;
    int mid_h = avail - timeline_h;
    out->title = rect(0, 0, 1, cols);
    out->r[PANEL_TIMELINE] = rect(1, 0, timeline_h, cols);
    int y = 1 + timeline_h, left_w = cols - knobs_w, util_w = left_w / 2;
    out->r[PANEL_UTIL] = rect(y, 0, mid_h, util_w);
    out->r[PANEL_TRAIN] = rect(y, util_w, mid_h, left_w - util_w);
    out->r[PANEL_KNOBS] = rect(y, left_w, mid_h, knobs_w);
    out->r[PANEL_CONSOLE] = rect(rows - console_h, 0, console_h, cols);
}
