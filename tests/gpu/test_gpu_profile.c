/* test_gpu_profile.c - the plugin's profiling, with CUPTI or without it.
 * With CUPTI: prof_start succeeds, an in-memory epoch's kernels reach the
 * app's hook, and the metrics over the run's own interval see its kernels
 * and its upload (busy in (0, 1], H2D > 0: records delivered without a
 * full buffer, on the monotonic clock). Without (no libcupti,
 * another profiler attached, the CPU test double): prof_start fails with a
 * one-line reason, the metrics CUPTI would give are marked invalid (shown
 * as n/a, never 0), and a streamed run still gets its spans, from host
 * functions in stream order, with chunk coordinates and copy bytes. Both:
 * the metrics name the GPU. Exits 77 when no GPU answers. */
#include "gpu_util.h"

#include <time.h>

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    int spans, kernels;
} app_spans_t;

static void on_span(void *user, const gpu_span_t *s)
{
    app_spans_t *a = user;
    a->spans++;
    a->kernels += s->lane == LANE_COMPUTE;
    if (!(s->t1 >= s->t0)) fail_msg("span %s ends before it starts", s->name);
}

static void test_metrics_name_the_gpu(void **state)
{
    (void)state;
    gpu_metrics_t m;
    cu->metrics(&m);
    if (!m.gpu[0]) fail_msg("the metrics name no GPU");
    print_message("GPU: %s\n", m.gpu);
}

static void test_with_or_without_cupti(void **state)
{
    (void)state;
    app_spans_t a = {0};
    char why[256] = "";
    if (cu->prof_start(on_span, &a, why, sizeof why) == 0) {
        double loss[5], t0 = mono_s();
        gpu_losses("cora", "gcn", DEVICE_CUDA, NULL, loss, NULL);
        double t1 = mono_s();
        gpu_metrics_t run; /* before prof_stop: the metrics flush CUPTI themselves */
        cu->metrics_between(t0, t1, &run);
        cu->prof_stop();
        if (a.kernels == 0) fail_msg("CUPTI on, but no kernel of an in-memory run reached the hook (%d spans)", a.spans);
        if (!run.busy_valid || !run.pcie_valid) fail_msg("CUPTI on, but the run's metrics are invalid");
        /* the run's kernels and its features' upload lie in [t0, t1] */
        if (!(run.busy > 0 && run.busy <= 1) || !(run.h2d_Bps > 0))
            fail_msg("the run's window: busy %.3f, H2D %.0f B/s over %.3f s (records late or on another clock)", run.busy,
                     run.h2d_Bps, run.window_s);
        gpu_metrics_t m;
        cu->metrics(&m);
        if (!m.busy_valid || !m.pcie_valid) fail_msg("CUPTI on, but its metrics are invalid");
        print_message("CUPTI: %d spans, %d kernels; busy %.1f%%, H2D %.1f MB/s over the run's %.3f s\n", a.spans, a.kernels,
                      100 * run.busy, run.h2d_Bps / 1e6, run.window_s);
        return;
    }
    if (!why[0] || strchr(why, '\n')) fail_msg("prof_start failed without a one-line reason: '%s'", why);
    gpu_metrics_t m;
    cu->metrics(&m);
    if (m.busy_valid || m.pcie_valid) fail_msg("no CUPTI, yet busy/PCIe metrics are marked valid");
    print_message("no CUPTI (%s): streamed spans from host functions\n", why);
    gpu_run_t r = {.devices = 2, .chunks = 4};
    r.knobs = (stream_knobs_t){.pipeline = 1, .subchunks = 2, .selective = SEL_ON, .memplan = MP_STREAM};
    span_count_t spans = {0};
    double loss[5];
    gpu_losses(gen.data_dir, "gcn", DEVICE_CUDA, &r, loss, &spans);
    if (spans.kernels == 0 || spans.copies == 0 || spans.tagged == 0)
        fail_msg("without CUPTI: %d spans (%d kernels, %d copies, %d tagged)", spans.spans, spans.kernels, spans.copies, spans.tagged);
}

int main(void)
{
    gpu_open_or_skip();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics_name_the_gpu),
        cmocka_unit_test(test_with_or_without_cupti),
    };
    return cmocka_run_group_tests(tests, gpu_graph_setup, gpu_graph_teardown);
}
