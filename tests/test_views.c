/* test_views.c - the curses-free maths of the views: panel layout at the
 * minimum and at a large terminal size, timeline binning of spans into
 * cells, and plot scaling. */
#include "test_util.h"

#include "../views/layout.h"
#include "../views/plot.h"
#include "../views/timeline_bin.h"

static int inside(rect_t r, int rows, int cols) { return r.y >= 0 && r.x >= 0 && r.y + r.h <= rows && r.x + r.w <= cols; }

static int overlap(rect_t a, rect_t b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

static void check_layout(int rows, int cols)
{
    layout_t l;
    layout_compute(rows, cols, &l);
    assert_true(l.ok);
    for (int i = 0; i < PANEL__COUNT; i++) {
        assert_true(inside(l.r[i], rows, cols));
        assert_true(l.r[i].h >= 3 && l.r[i].w >= 20);
        assert_false(overlap(l.r[i], l.title));
        for (int j = i + 1; j < PANEL__COUNT; j++) assert_false(overlap(l.r[i], l.r[j]));
    }
    /* timeline: a title row, the host lane and four lanes for each of 2 devices */
    assert_true(l.r[PANEL_TIMELINE].h >= 10);
}

static void test_layout(void **state)
{
    (void)state;
    check_layout(24, 80);
    check_layout(40, 120);
    check_layout(60, 200);
    layout_t small, big;
    layout_compute(24, 80, &small);
    layout_compute(60, 200, &big);
    assert_true(big.r[PANEL_TIMELINE].h > small.r[PANEL_TIMELINE].h); /* spare rows go to the timeline */
    assert_true(big.r[PANEL_UTIL].w > small.r[PANEL_UTIL].w);
    layout_compute(20, 60, &small);
    assert_false(small.ok); /* too small is reported, and the layout stays at the minimum */
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

static void test_plot_scaling(void **state)
{
    (void)state;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_timeline_binning),
        cmocka_unit_test(test_plot_scaling),
    };
    return cmocka_run_group_tests_name("views", tests, NULL, NULL);
}
