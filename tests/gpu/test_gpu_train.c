/* test_gpu_train.c - training in GPU memory gives the cpu backend's
 * losses: 5 epochs of every model (GCN, GIN, CommNet, GAT's attention,
 * G-GCN's gates, MP-GCN's max gather, GG-NN's typed gathers, ResGCN) on a
 * generated power-law graph with hubs, within 1e-4 relative. Its 16
 * features keep the CPU test double's sanitized runs short; Cora runs in
 * cli_gpu.sh. Under ThreadSanitizer (the CPU test double only) three
 * models whose kernels differ most (plain, attention, typed gathers): the
 * streams and events that could race are the same for every model, and
 * every model runs in the ASan build, which keeps CI inside its time.
 * Exits 77 when no GPU answers. */
#include "gpu_util.h"

#define MODEL_TEST(name)                                           \
    __attribute__((unused)) static void test_##name(void **state) \
    {                                                              \
        (void)state;                                               \
        same_losses(gen.data_dir, #name, NULL);                    \
    }
MODEL_TEST(gcn)
MODEL_TEST(gin)
MODEL_TEST(commnet)
MODEL_TEST(gat)
MODEL_TEST(ggcn)
MODEL_TEST(mpgcn)
MODEL_TEST(ggnn)
MODEL_TEST(resgcn)

int main(void)
{
    gpu_open_or_skip();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gcn),
        cmocka_unit_test(test_gat),
        cmocka_unit_test(test_ggnn),
#ifndef __SANITIZE_THREAD__
        cmocka_unit_test(test_gin),
        cmocka_unit_test(test_commnet),
        cmocka_unit_test(test_ggcn),
        cmocka_unit_test(test_mpgcn),
        cmocka_unit_test(test_resgcn),
#endif
    };
    return cmocka_run_group_tests(tests, gpu_graph_setup, gpu_graph_teardown);
}
