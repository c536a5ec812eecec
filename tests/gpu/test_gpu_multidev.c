/* test_gpu_multidev.c - the streaming schedules that move rows between
 * devices (NeuGraph's chain, NGra's ring) on four logical devices of the
 * GPU give the cpu backend's losses (5 epochs, 1e-4 relative): their
 * device-to-device copies and the event waits that order them against the
 * gathers. Exits 77 when no GPU answers. */
#include "gpu_util.h"

static void run_schedule(multidev_t md)
{
    gpu_run_t r = {.devices = 4, .chunks = 4};
    r.knobs = (stream_knobs_t){.pipeline = 1, .subchunks = 2, .selective = SEL_OFF, .multidev = md, .memplan = MP_ROC};
    same_losses(gen.data_dir, "gcn", &r);
}

static void test_chain(void **state)
{
    (void)state;
    run_schedule(MD_CHAIN);
}

static void test_ring(void **state)
{
    (void)state;
    run_schedule(MD_RING);
}

int main(void)
{
    gpu_open_or_skip();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_ring),
    };
    return cmocka_run_group_tests(tests, gpu_graph_setup, gpu_graph_teardown);
}
