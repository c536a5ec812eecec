/* test_views.c - the curses-free maths of the views: panel layout at the
 * minimum and at a large terminal size, the timeline's lanes for each
 * kind of run, timeline binning of spans into cells, and plot scaling. */
/* run-under: tsan */
#include "test_util.h"

#include "views/lanes.h"
#include "views/layout.h"
#include "views/plot.h"
#include "views/timeline_bin.h"
#include "views/timeline_nav.h"

static int inside(rect_t r, int rows, int cols) { return r.y >= 0 && r.x >= 0 && r.y + r.h <= rows && r.x + r.w <= cols; }

static int overlap(rect_t a, rect_t b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

static void check_layout(int rows, int cols, int lanes)
{
    layout_t l;
    layout_compute(rows, cols, layout_timeline_rows(lanes), &l);
    assert_true(l.ok);
    for (int i = 0; i < PANEL__COUNT; i++) {
        assert_true(inside(l.r[i], rows, cols));
        assert_true(l.r[i].h >= 3 && l.r[i].w >= 20);
        assert_false(overlap(l.r[i], l.title));
        for (int j = i + 1; j < PANEL__COUNT; j++) assert_false(overlap(l.r[i], l.r[j]));
    }
    /* the timeline gets its lanes when there is room, and never leaves the panels less than their minimum */
    if (rows - 1 - l.r[PANEL_CONSOLE].h - LAYOUT_MID_MIN >= layout_timeline_rows(lanes))
        assert_int_equal(l.r[PANEL_TIMELINE].h, layout_timeline_rows(lanes));
    assert_true(l.r[PANEL_UTIL].h >= LAYOUT_MID_MIN);
    assert_int_equal(l.r[PANEL_TIMELINE].h + l.r[PANEL_UTIL].h + l.r[PANEL_CONSOLE].h, rows - 1); /* no row left blank */
    assert_int_equal(l.r[PANEL_CONSOLE].h, rows >= 40 ? 5 : 3); /* long replies wrap where there is room */
}

static void test_layout(void **state)
{
    (void)state;
    for (int lanes = 1; lanes <= 33; lanes += 8) { /* the host lane and four per device, 0 to 8 devices */
        check_layout(24, 80, lanes);
        check_layout(40, 120, lanes);
        check_layout(60, 200, lanes);
    }
    layout_t small, big;
    layout_compute(24, 80, layout_timeline_rows(9), &small);
    layout_compute(60, 200, layout_timeline_rows(9), &big);
    assert_int_equal(big.r[PANEL_TIMELINE].h, small.r[PANEL_TIMELINE].h); /* spare rows go to the panels */
    assert_true(big.r[PANEL_UTIL].h > small.r[PANEL_UTIL].h);
    assert_true(big.r[PANEL_UTIL].w > small.r[PANEL_UTIL].w);
    layout_compute(20, 60, layout_timeline_rows(9), &small);
    assert_false(small.ok); /* too small is reported, and the layout stays at the minimum */
}

/* A rising series climbs the grid from the bottom-left corner to the
 * top-right one, a constant one lies on its row, later series draw over
 * earlier ones, and a NaN point is left out. */
static void test_plot_grid(void **state)
{
    (void)state;
    double up[5] = {0, 1, 2, 3, 4}, flat[5] = {2, 2, 2, 2, NAN};
    const double *ys[2] = {up, flat};
    double lo[2] = {0, 0}, hi[2] = {4, 4};
    char grid[5 * 10];
    plot_grid(2, ys, NULL, "*+", lo, hi, 5, 9, 5, grid);
    assert_string_equal(grid + 0 * 10, "        *");
    assert_string_equal(grid + 1 * 10, "      *  ");
    assert_string_equal(grid + 2 * 10, "+ + + +  "); /* the flat series over the rising one's middle point; its NaN is absent */
    assert_string_equal(grid + 3 * 10, "  *      ");
    assert_string_equal(grid + 4 * 10, "*        ");
    /* against time (time to accuracy): the points sit where their times fall, not one column apart */
    double t[5] = {0, 1, 2, 6, 8};
    plot_grid(1, ys, t, "*", lo, hi, 5, 9, 5, grid);
    assert_string_equal(grid + 0 * 10, "        *");
    assert_string_equal(grid + 1 * 10, "      *  ");
    assert_string_equal(grid + 2 * 10, "  *      ");
    assert_string_equal(grid + 3 * 10, " *       ");
    assert_string_equal(grid + 4 * 10, "*        ");
    assert_int_equal(plot_col(3, 5, 9, t), 6);
    assert_int_equal(plot_col(3, 5, 9, NULL), 6);
    assert_int_equal(plot_col(1, 5, 9, t), 1);
}

static void test_timeline_binning(void **state)
{
    (void)state;
    prof_event_t ev[3] = {
        {.t0 = 0, .t1 = 240, .device = 0, .lane = PL_H2D, .phase = PH_FWD, .col = 1},
        {.t0 = 240, .t1 = 1000, .device = 0, .lane = PL_H2D, .phase = PH_BWD, .col = 2},
        {.t0 = 0, .t1 = 1000, .device = 1, .lane = PL_H2D, .phase = PH_OPT, .col = 3}, /* another device */
    };
    uint8_t cells[10];
    int32_t cols[10];
    timeline_bin(ev, 3, 0, PL_H2D, 0, 1000, 10, cells, cols);
    assert_int_equal(cells[0], PH_FWD);
    assert_int_equal(cols[0], 1);
    assert_int_equal(cells[1], PH_FWD);
    assert_int_equal(cells[2], PH_BWD); /* cell 2 is 40% forward, 60% backward */
    assert_int_equal(cells[9], PH_BWD);
    timeline_bin(ev, 3, 0, PL_COMPUTE, 0, 1000, 10, cells, cols);
    for (int c = 0; c < 10; c++) assert_int_equal(cells[c], CELL_EMPTY);
    timeline_bin(ev, 3, 0, PL_H2D, 2000, 3000, 10, cells, cols); /* window after every span */
    assert_int_equal(cells[0], CELL_EMPTY);
}

/* The span under a cursor cell is the one covering most of it, described
 * with its whole chunk id; an idle cell says so. */
static void test_span_under_cursor(void **state)
{
    (void)state;
    prof_event_t ev[3] = {
        {.t0 = 0, .t1 = 240, .device = 0, .lane = PL_COMPUTE, .phase = PH_FWD, .layer = 1, .row = 12, .col = 3, .sub = 1,
         .bytes = 1.2e6, .op = "chunk_gather"},
        {.t0 = 240, .t1 = 1000, .device = 0, .lane = PL_COMPUTE, .phase = PH_BWD, .layer = 0, .row = -1, .col = -1, .op = "gemm"},
        {.t0 = 0, .t1 = 1000, .device = 1, .lane = PL_COMPUTE, .phase = PH_OPT, .col = 3}, /* another device */
    };
    assert_ptr_equal(timeline_span_at(ev, 3, 0, PL_COMPUTE, 100, 200), &ev[0]);
    assert_ptr_equal(timeline_span_at(ev, 3, 0, PL_COMPUTE, 200, 300), &ev[1]); /* 40 ns of the first, 60 of the second */
    assert_null(timeline_span_at(ev, 3, 0, PL_H2D, 0, 1000));
    char line[256];
    timeline_describe(&ev[0], "d0 COMPUTE", 1000000, line, sizeof line);
    assert_string_equal(line, "d0 COMPUTE: FWD L1 chunk_gather, chunk row 12 col 3 sub 1, 0.000 ms from -1.000 ms, 1.20 MB");
    timeline_describe(NULL, "d1 H2D", 0, line, sizeof line);
    assert_string_equal(line, "d1 H2D: idle here");
}

/* Lane scrolling a page at a time within range; the cursor kept on a lane
 * shown and within the columns, and the page following it. */
static void test_timeline_nav(void **state)
{
    (void)state;
    timeline_nav_t n;
    timeline_nav_init(&n);
    timeline_nav_fit(&n, 17, 9, 70);
    assert_int_equal(n.lane_top, 0);
    timeline_nav_scroll(&n, 1);
    timeline_nav_fit(&n, 17, 9, 70);
    assert_int_equal(n.lane_top, 8); /* the last page: lanes 9-17 */
    timeline_nav_scroll(&n, 5);
    timeline_nav_fit(&n, 17, 9, 70);
    assert_int_equal(n.lane_top, 8);
    timeline_nav_scroll(&n, -3);
    timeline_nav_fit(&n, 17, 9, 70);
    assert_int_equal(n.lane_top, 0);
    timeline_nav_move(&n, 1, 0); /* the first move places the cursor */
    assert_int_equal(n.cur_lane, 0);
    assert_int_equal(n.cur_col, 35);
    timeline_nav_move(&n, 12, 100);
    timeline_nav_fit(&n, 17, 9, 70);
    assert_int_equal(n.cur_lane, 12);
    assert_int_equal(n.cur_col, 69);
    assert_int_equal(n.lane_top, 4); /* lane 12 is the last one shown */
    timeline_nav_move(&n, -40, -200);
    timeline_nav_fit(&n, 17, 9, 70);
    assert_int_equal(n.cur_lane, 0);
    assert_int_equal(n.cur_col, 0);
    assert_int_equal(n.lane_top, 0);
    timeline_nav_fit(&n, 5, 9, 70); /* everything fits */
    assert_int_equal(n.lane_top, 0);
    timeline_nav_clear(&n);
    assert_int_equal(n.cur_lane, -1);
}

static void test_plot_scaling(void **state)
{
    (void)state;
    char cell[64];
    plot_stat("h2d", "B", 0, 784.47e6, cell, sizeof cell);
    assert_string_equal(cell, "h2d 784.5 MB");
    plot_stat("kept", "B", 0, 5120, cell, sizeof cell);
    assert_string_equal(cell, "kept 0.0 MB"); /* bytes never below MB, so rows compare at a glance */
    plot_stat("uplink", "B", 0, 2.5e9, cell, sizeof cell);
    assert_string_equal(cell, "uplink 2.5 GB");
    plot_stat("agg", "FLOP", 0, 3.89e7, cell, sizeof cell);
    assert_string_equal(cell, "agg 38.9 MFLOP");
    plot_stat("hidden", "", 1, 0.1049, cell, sizeof cell);
    assert_string_equal(cell, "hidden 10.5%");
    plot_stat("swapped cols", "", 0, 23, cell, sizeof cell);
    assert_string_equal(cell, "swapped cols 23");
    plot_stat("filter", "ms", 0, 0.04, cell, sizeof cell);
    assert_string_equal(cell, "filter 0.04 ms");
    plot_stat("compute", "ms", 0, 11.14, cell, sizeof cell);
    assert_string_equal(cell, "compute 11.1 ms");
    assert_true(plot_nice_max(0.7) == 1.0);
    assert_true(plot_nice_max(1.3) == 2.0);
    assert_true(plot_nice_max(3.0) == 5.0);
    assert_true(plot_nice_max(730) == 1000.0);
    assert_true(plot_nice_max(0) == 1.0);
    double v[4] = {0, 0.5, 1.0, 2.0};
    int lv[4];
    plot_levels(v, 4, 1.0, 8, lv);
    assert_int_equal(lv[0], 0);
    assert_int_equal(lv[1], 4);
    assert_int_equal(lv[2], 7);
    assert_int_equal(lv[3], 7); /* clipped */
    char buf[32];
    plot_rate(12.3e6, buf, sizeof buf);
    assert_string_equal(buf, "12.3 MB/s");
    plot_rate(999, buf, sizeof buf);
    assert_string_equal(buf, "999.0 B/s");
}

/* Streamed: the host, then four lanes a device; ranks: three a rank;
 * sampled: S, R, K on the host, then the copies and steps on device 0;
 * past what the views draw, the lanes stop at the profiler's devices. */
static void test_timeline_lanes(void **state)
{
    (void)state;
    static view_state_t v;
    lane_row_t rows[LANES_MAX];
    v.ndev = 2;
    assert_int_equal(timeline_lanes(&v, rows), 9);
    assert_int_equal(rows[0].device, -1);
    assert_int_equal(rows[0].lane, PL_COMPUTE);
    assert_string_equal(rows[5].label, "d1 H2D");
    assert_int_equal(rows[6].device, 1);
    assert_int_equal(rows[6].lane, PL_COMPUTE);
    v.kind.driver = DRIVER_SAMPLED, v.ndev = 1;
    assert_int_equal(timeline_lanes(&v, rows), 5);
    static const int want_dev[5] = {-1, -1, -1, 0, 0}, want_lane[5] = {PL_SAMPLE, PL_REINDEX, PL_LOOKUP, PL_H2D, PL_COMPUTE};
    for (int k = 0; k < 5; k++) {
        assert_int_equal(rows[k].device, want_dev[k]);
        assert_int_equal(rows[k].lane, want_lane[k]);
    }
    assert_string_equal(rows[0].label, "S sample");
    v.kind = (run_kind_t){DRIVER_DIST, ENGINE_DIST, PLACE_HOST, 0, 3};
    assert_int_equal(timeline_lanes(&v, rows), 9);
    assert_string_equal(rows[4].label, "r1 NETSEND");
    v.kind.ranks = 64;
    assert_int_equal(timeline_lanes(&v, rows), 3 * (PROF_MAX_DEV - 1));
    v.kind = (run_kind_t){DRIVER_FULL, ENGINE_STREAM, PLACE_HOST, 64, 0}, v.ndev = 64;
    assert_int_equal(timeline_lanes(&v, rows), LANES_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_timeline_lanes),
        cmocka_unit_test(test_timeline_binning),
        cmocka_unit_test(test_span_under_cursor),
        cmocka_unit_test(test_timeline_nav),
        cmocka_unit_test(test_plot_scaling),
        cmocka_unit_test(test_plot_grid),
    };
    return cmocka_run_group_tests_name("views", tests, NULL, NULL);
}
