/* layout.h - where each panel goes on a terminal of a given size. Pure
 * arithmetic, no curses, so it is unit-tested. At 80x24 every panel gets
 * at least its minimum; larger terminals give the extra rows to the
 * timeline and the extra columns to the plots. */
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

void layout_compute(int rows, int cols, layout_t *out);

#endif
