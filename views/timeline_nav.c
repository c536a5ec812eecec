/* timeline_nav.c - see timeline_nav.h. */
#include "timeline_nav.h"

static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

void timeline_nav_init(timeline_nav_t *n) { *n = (timeline_nav_t){.cur_lane = -1, .page = 1, .width = 1}; }

void timeline_nav_scroll(timeline_nav_t *n, int pages)
{
    int by = pages * (n->page > 0 ? n->page : 1);
    n->lane_top += by;
    if (n->cur_lane >= 0) n->cur_lane = n->cur_lane + by < 0 ? 0 : n->cur_lane + by; /* along, or the fit would scroll back to it */
}

void timeline_nav_move(timeline_nav_t *n, int dlane, int dcol)
{
    if (n->cur_lane < 0) {
        n->cur_lane = n->lane_top, n->cur_col = n->width / 2;
        return;
    }
    n->cur_lane += dlane, n->cur_col += dcol;
    if (n->cur_lane < 0) n->cur_lane = 0; /* negative means no cursor: stop at the first lane */
}

void timeline_nav_clear(timeline_nav_t *n) { n->cur_lane = -1; }

void timeline_nav_fit(timeline_nav_t *n, int nlanes, int visible, int width)
{
    n->page = visible > 0 ? visible : 1;
    n->width = width > 0 ? width : 1;
    int last_top = nlanes > n->page ? nlanes - n->page : 0;
    if (n->cur_lane >= 0) {
        n->cur_lane = clampi(n->cur_lane, 0, nlanes > 0 ? nlanes - 1 : 0);
        n->cur_col = clampi(n->cur_col, 0, n->width - 1);
        if (n->cur_lane < n->lane_top) n->lane_top = n->cur_lane;
        if (n->cur_lane >= n->lane_top + n->page) n->lane_top = n->cur_lane - n->page + 1;
    }
    n->lane_top = clampi(n->lane_top, 0, last_top);
}
