/* layout.h - where each panel goes on a terminal of a given size. Pure
 * arithmetic, no curses, so it is unit-tested. At 80x24 every panel gets
 * at least its minimum; the timeline gets the rows its lanes need (no
 * more), the panels below it the rest, and extra columns go to the
 * utilisation and training panels. */
#ifndef GS_VIEWS_LAYOUT_H
#define GS_VIEWS_LAYOUT_H

typedef struct {
    int y, x, h, w;
} rect_t;

typedef enum { PANEL_TIMELINE, PANEL_UTIL, PANEL_KNOBS, PANEL_TRAIN, PANEL_CONSOLE, PANEL__COUNT } panel_t;

typedef struct {
    rect_t r[PANEL__COUNT];
    rect_t title;
    int ok; /* 0 when the terminal is smaller than 80x24 */
} layout_t;

#define LAYOUT_MIN_W 80
#define LAYOUT_MIN_H 24
#define LAYOUT_MID_MIN 9 /* rows of the utilisation, training and knobs panels at least */

/* The timeline's rows for `lanes` lanes: a title, the lanes and a legend. */
int layout_timeline_rows(int lanes);
/* timeline_rows: what the timeline asks for (layout_timeline_rows); it
 * gets that, or what is left above the panels' minimum. */
void layout_compute(int rows, int cols, int timeline_rows, layout_t *out);

#endif
