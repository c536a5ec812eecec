/* test_gpu_stream.c - the streaming backend on the GPU gives the cpu
 * backend's losses (5 epochs, 1e-4 relative) through two logical devices
 * of one GPU: pipelining with sub-chunks, selective scheduling, swap and
 * ROC's memory plan; edge chunks streamed each pass and kept resident; the
 * row order, whose partial sums go to the host and back within a pass;
 * GAT and MP-GCN, whose attention and max gathers run on the GPU.
 * Every run's spans reach the task hook with chunk coordinates. Exits 77
 * when no GPU answers. */
#include "gpu_util.h"

static gpu_run_t two_devices(void)
{
    gpu_run_t r = {.devices = 2, .chunks = 4};
    r.knobs = (stream_knobs_t){.pipeline = 1, .subchunks = 4, .selective = SEL_ON, .swap = 1, .multidev = MD_NAIVE,
                               .memplan = MP_ROC};
    return r;
}

static void test_cora_pipelined_selective(void **state)
{
    (void)state;
    gpu_run_t r = two_devices();
    same_losses("cora", "gcn", &r);
}

static void test_generated_edges_streamed(void **state)
{
    (void)state;
    gpu_run_t r = two_devices();
    r.knobs.edge_chunks = EDGE_STREAM;
    same_losses(gen.data_dir, "gcn", &r);
}

/* GAT's attention gathers run on the GPU (KERN_CHUNK_ATTN), each sub-chunk's attention rows copied beside its edges. */
static void test_gat_attention_streamed(void **state)
{
    (void)state;
    gpu_run_t r = two_devices();
    same_losses(gen.data_dir, "gat", &r);
}

/* MP-GCN's max gathers run on the GPU (chunk_max.cu): running maxima and winners per column, the winners home and back. */
static void test_mpgcn_max_streamed(void **state)
{
    (void)state;
    gpu_run_t r = two_devices();
    same_losses(gen.data_dir, "mpgcn", &r);
}

static void test_generated_edges_resident_row_order(void **state)
{
    (void)state;
    gpu_run_t r = two_devices();
    r.knobs.edge_chunks = EDGE_RESIDENT, r.knobs.stream_order = SO_ROW, r.knobs.selective = SEL_OFF;
    same_losses(gen.data_dir, "gcn", &r);
}

int main(void)
{
    gpu_open_or_skip();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cora_pipelined_selective),
        cmocka_unit_test(test_generated_edges_streamed),
        cmocka_unit_test(test_generated_edges_resident_row_order),
        cmocka_unit_test(test_gat_attention_streamed),
        cmocka_unit_test(test_mpgcn_max_streamed),
    };
    return cmocka_run_group_tests(tests, gpu_graph_setup, gpu_graph_teardown);
}
