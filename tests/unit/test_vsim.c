/* test_vsim.c - the virtual timeline (engine/machine/vsim.h, vclock.h): a
 * stream runs its tasks in order; a wait holds its stream until the event
 * is recorded; copies on one link share it fairly and pay the path's
 * latency; a double-buffered copy/compute pipeline overlaps as the
 * modeled machine would; roofline kernel times; and the cpu backend on the
 * virtual clock gives the same emulated time twice, to the nanosecond. */
#include "test_util.h"

#include <math.h>

#include "engine/device/backend.h"
#include "engine/machine/vclock.h"
#include "engine/machine/vsim.h"

static void near(double got, double want, const char *what)
{
    if (fabs(got - want) > 1e-12 + 1e-9 * fabs(want)) fail_msg("%s: %.12g, want %.12g", what, got, want);
}

static vs_task_t kernel(int stream, double issue, double dur)
{
    return (vs_task_t){.stream = stream, .kind = VS_KERNEL, .issue = issue, .dur = dur, .event = -1};
}

static vs_task_t mark(int stream, vs_kind_t kind, int event) { return (vs_task_t){.stream = stream, .kind = kind, .event = event}; }

static void test_streams_order_and_events(void **state)
{
    (void)state;
    /* stream 0: k1 (2 s), record e0, k2 (1 s); stream 1: wait e0, k3 (1 s), issued at t = 10 */
    vs_task_t t[] = {kernel(0, 10, 2), mark(0, VS_RECORD, 0), kernel(0, 10, 1), mark(1, VS_WAIT, 0), kernel(1, 10, 1)};
    for (int i = 0; i < 5; i++) t[i].issue = 10;
    double end = vsim_run(NULL, 1, t, 5, 2, 1, 10, NULL);
    near(t[0].t0, 10, "k1 start"), near(t[0].t1, 12, "k1 end");
    near(t[2].t0, 12, "k2 after k1"), near(t[2].t1, 13, "k2 end");
    near(t[4].t0, 12, "k3 waits for the record"), near(t[4].t1, 13, "k3 end");
    near(end, 13, "makespan");
}

static void test_copies_share_links(void **state)
{
    (void)state;
    topology_t topo;
    assert_int_equal(topology_get("pcie-4gpu-2switch", &topo), 0);
    double bw = topo.links[0].bw, lat = 2 * topo.links[0].latency, link[TOPO_MAX_LINKS] = {0};
    /* devices 0 and 1 share switch 0's uplink: two copies of B bytes take 2B/bw; device 2 is under the other switch */
    double B = 1e8;
    vs_task_t t[3];
    for (int d = 0; d < 3; d++)
        t[d] = (vs_task_t){.stream = d * LANE__COUNT + LANE_H2D, .kind = VS_COPY, .bytes = B, .path = &topo.h2d[d], .event = -1};
    vsim_run(&topo, 0, t, 3, 3 * LANE__COUNT, 0, 0, link);
    near(t[0].t1, lat + 2 * B / bw, "shared uplink: half the bandwidth each");
    near(t[1].t1, lat + 2 * B / bw, "shared uplink, the other");
    near(t[2].t1, lat + B / bw, "the other switch's uplink alone");
    near(link[0], 2 * B, "host>sw0 carried both");
}

/* A column of n blocks: copy (c s) then gather (k s) each, with `slots` buffers. */
static double pipeline(int n, double c, double k, int slots)
{
    vs_task_t t[256];
    int m = 0, ev = 0, comp_ev[2] = {-1, -1};
    for (int b = 0; b < n; b++) {
        int s = b % slots;
        if (comp_ev[s] >= 0) t[m++] = mark(LANE_H2D, VS_WAIT, comp_ev[s]);
        t[m++] = (vs_task_t){.stream = LANE_H2D, .kind = VS_COPY, .dur = 0, .bytes = c, .event = -1};
        int ready = ev++;
        t[m++] = mark(LANE_H2D, VS_RECORD, ready);
        t[m++] = mark(LANE_COMPUTE, VS_WAIT, ready);
        t[m++] = kernel(LANE_COMPUTE, 0, k);
        comp_ev[s] = ev++;
        t[m++] = mark(LANE_COMPUTE, VS_RECORD, comp_ev[s]);
    }
    return vsim_run(NULL, 1, t, m, LANE__COUNT, ev, 0, NULL);
}

static void test_pipelining_overlaps(void **state)
{
    (void)state;
    near(pipeline(8, 1, 1, 1), 16, "one buffer: copy and compute take turns");
    near(pipeline(8, 1, 1, 2), 9, "two buffers: the copy of the next block hides under this one's compute");
    near(pipeline(8, 2, 1, 2), 17, "copy-bound: the copies set the pace");
}

static void test_roofline(void **state)
{
    (void)state;
    topology_t topo;
    topology_get("1gpu", &topo);
    vclock_t c;
    vclock_init(&c, &topo, KTIME_ROOFLINE, 1e9, 2, 5);
    near(vclock_kernel_s(&c, 14e12, 0, 0), 1 + topo.launch_s, "compute-bound");
    near(vclock_kernel_s(&c, 0, 900e9, 0), 1 + topo.launch_s, "memory-bound");
    double t0, t1;
    vclock_host_op(&c, 0, 130e9, 123, &t0, &t1);
    near(t0, 5, "host op starts at now"), near(t1, 6, "host op at the host's bandwidth");
    near(c.now, 6, "the clock moved past it");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streams_order_and_events),
        cmocka_unit_test(test_copies_share_links),
        cmocka_unit_test(test_pipelining_overlaps),
        cmocka_unit_test(test_roofline),
    };
    return cmocka_run_group_tests_name("vsim", tests, NULL, NULL);
}
