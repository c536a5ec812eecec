/* timeline_nav.h - moving around the timeline when it holds more than
 * the screen shows: which lane is drawn first (lane scrolling, a page at a
 * time, when devices or ranks do not fit), and the cursor, a lane and a
 * cell column whose span the timeline's title line describes in full.
 * Pure logic, unit-tested; the workbench maps keys onto it and fits it
 * to the layout every frame. */
#ifndef GS_VIEWS_TIMELINE_NAV_H
#define GS_VIEWS_TIMELINE_NAV_H

typedef struct {
    int lane_top;           /* the first lane drawn */
    int page;               /* lanes the timeline shows (from the last fit) */
    int cur_lane, cur_col;  /* the cursor: a lane index and a cell column; cur_lane -1: no cursor */
    int width;              /* cell columns (from the last fit) */
} timeline_nav_t;

/* No cursor, the first lane on top. */
void timeline_nav_init(timeline_nav_t *n);
/* Scrolls by `pages` pages of lanes (negative: up), the cursor with them. */
void timeline_nav_scroll(timeline_nav_t *n, int pages);
/* Moves the cursor by dlane lanes and dcol columns; with no cursor, puts
 * it on the top lane's middle column first. */
void timeline_nav_move(timeline_nav_t *n, int dlane, int dcol);
void timeline_nav_clear(timeline_nav_t *n);
/* Fits to nlanes lanes, `visible` of them on screen, `width` columns:
 * the top within range and the cursor on a lane shown. */
void timeline_nav_fit(timeline_nav_t *n, int nlanes, int visible, int width);

#endif
