/* test_gpu_errors.c - the plugin's failures as a GPU user meets them: a
 * --device-mem larger than the GPU's share is refused at open; a logical
 * device's cap refuses what would pass it and keeps serving what fits; an
 * allocation larger than the GPU fails without poisoning later work; a
 * copy to memory that was freed is reported by the next sync, naming the
 * copy, and the context works after it; on the CPU test double, a kernel
 * given pageable host memory fails its launch as on a GPU; a streamed run
 * whose cap is too small fails with a message, not a crash. Exits 77 when no GPU answers. */
#include "gpu_util.h"

static void test_device_mem_past_gpu(void **state)
{
    (void)state;
    backend_t *be = NULL;
    backend_cfg_t cfg = {.ndev = 2, .dev_mem = (uint64_t)1 << 50};
    gs_err_t err;
    assert_int_equal(cu->backend->open(&be, &cfg, &err), GS_EINPUT);
    if (!strstr(err.msg, "--device-mem")) fail_msg("error does not name --device-mem: %s", err.msg);
    assert_null(be);
}

static void test_cap_of_a_logical_device(void **state)
{
    (void)state;
    const backend_ops_t *B = cu->backend;
    backend_t *be;
    backend_cfg_t cfg = {.ndev = 2, .dev_mem = 1 << 20};
    gs_err_t err;
    if (B->open(&be, &cfg, &err)) fail_msg("%s", err.msg);
    assert_int_equal(B->capacity(be, 1), 1 << 20);
    assert_null(B->alloc(be, 0, 2 << 20));
    void *a = B->alloc(be, 0, 600 << 10);
    assert_non_null(a);
    assert_null(B->alloc(be, 0, 600 << 10)); /* 1.2 MB would pass the cap */
    void *b = B->alloc(be, 1, 600 << 10);    /* the other device has its own */
    assert_non_null(b);
    B->free(be, 0, a, 600 << 10);
    a = B->alloc(be, 0, 600 << 10); /* freed memory counts again */
    assert_non_null(a);
    B->free(be, 0, a, 600 << 10), B->free(be, 1, b, 600 << 10);
    if (B->sync(be, &err)) fail_msg("sync after refused allocations: %s", err.msg);
    B->close(be);
}

static void test_too_large_then_fine(void **state)
{
    (void)state;
    assert_null(K->alloc(CX, (size_t)1 << 50));
    float x[64] = {1}, y[64];
    float *d = up(x, sizeof x);
    K->download(CX, y, d, sizeof y);
    gs_err_t err;
    if (K->sync(CX, &err)) fail_msg("a refused allocation poisoned the context: %s", err.msg);
    assert_memory_equal(x, y, sizeof x);
    K->release(CX, d);
}

static void test_copy_to_freed_memory(void **state)
{
    (void)state;
    float x[256] = {0};
    float *d = K->alloc(CX, sizeof x);
    assert_non_null(d);
    K->release(CX, d);
    K->upload(CX, d, x, sizeof x);
    gs_err_t err;
    assert_int_equal(K->sync(CX, &err), GS_EFAIL);
    if (!strstr(err.msg, "upload")) fail_msg("error does not name the copy: %s", err.msg);
    print_message("reported: %s\n", err.msg);
    float *e = up(x, sizeof x); /* the error was taken; the context goes on */
    if (K->sync(CX, &err)) fail_msg("after the reported error: %s", err.msg);
    K->release(CX, e);
}

/* On the CPU test double only (a GPU would fault and lose its context): a
 * kernel given pageable host memory fails its launch, naming the kernel,
 * as a GPU's would; given device memory, the same launch runs. */
/* The streaming backend with one 1 MB device, on the CPU test double only
 * (the test is skipped elsewhere). */
static backend_t *open_on_double(void)
{
    const char *dbl = getenv("GNNSCOPE_CUDA_TEST_DOUBLE");
    if (!dbl || strcmp(dbl, "1")) skip();
    backend_t *be;
    backend_cfg_t cfg = {.ndev = 1, .dev_mem = 1 << 20};
    gs_err_t err;
    if (cu->backend->open(&be, &cfg, &err)) fail_msg("%s", err.msg);
    return be;
}

static void test_kernel_on_host_memory(void **state)
{
    (void)state;
    const backend_ops_t *B = cu->backend;
    backend_t *be = open_on_double();
    gs_err_t err;
    float host[64] = {0};
    float *d = B->alloc(be, 0, sizeof host), *e = B->alloc(be, 0, sizeof host);
    assert_true(d && e);
    chunk_tag_t tag = {-1, PHASE_FWD, -1, -1, -1};
    kernel_call_t kc = {.id = KERN_ADD, .m = 64, .out = d, .in = host};
    B->launch(be, 0, &kc, tag);
    assert_int_equal(B->sync(be, &err), GS_EFAIL);
    if (!strstr(err.msg, "add")) fail_msg("error does not name the kernel: %s", err.msg);
    print_message("reported: %s\n", err.msg);
    kc.in = e;
    B->launch(be, 0, &kc, tag);
    if (B->sync(be, &err)) fail_msg("a launch on device memory: %s", err.msg);
    B->free(be, 0, d, sizeof host), B->free(be, 0, e, sizeof host);
    B->close(be);
}

/* On the CPU test double only, and last (the fault is sticky, as a
 * GPU's: the context is lost): a chunk gather whose edge index names a
 * row past its input buffer fails when it runs, as a GPU faults there,
 * and the stderr line names the buffer. */
static void test_gather_index_past_its_rows(void **state)
{
    (void)state;
    const backend_ops_t *B = cu->backend;
    backend_t *be = open_on_double();
    gs_err_t err;
    int64_t ptr[2] = {0, 1};
    int32_t lidx[1] = {100}; /* in holds 16 rows of 4 */
    int64_t *dptr = B->alloc(be, 0, sizeof ptr);
    int32_t *dlidx = B->alloc(be, 0, sizeof lidx);
    float *in = B->alloc(be, 0, 64 * sizeof(float)), *out = B->alloc(be, 0, 4 * sizeof(float));
    chunk_tag_t tag = {0, PHASE_FWD, 0, 0, 0};
    B->copy(be, 0, LANE_H2D, -1, dptr, ptr, sizeof ptr, tag);
    B->copy(be, 0, LANE_H2D, -1, dlidx, lidx, sizeof lidx, tag);
    B->wait(be, 0, LANE_COMPUTE, B->record(be, 0, LANE_H2D));
    kernel_call_t kc = {.id = KERN_CHUNK_GATHER, .ptr = dptr, .lidx = dlidx, .nd = 1, .nnz = 1, .f = 4, .in_cols = 4, .out_cols = 4,
                        .in = in, .out = out};
    B->launch(be, 0, &kc, tag);
    assert_int_equal(B->sync(be, &err), GS_EFAIL);
    if (!strstr(err.msg, "illegal")) fail_msg("not reported as an illegal address: %s", err.msg);
    print_message("reported: %s\n", err.msg);
    B->close(be);
}

static void test_stream_cap_too_small(void **state)
{
    (void)state;
    gpu_run_t r = {.devices = 2, .chunks = 4, .dev_mem = 64 << 10};
    r.knobs = (stream_knobs_t){.subchunks = 1, .memplan = MP_STREAM};
    trainer_t t;
    gs_err_t err;
    int rc = gpu_trainer(&t, gen.data_dir, "gcn", DEVICE_CUDA, &r, NULL, &err);
    if (!rc) {
        epoch_stats_t st;
        rc = trainer_epoch(&t, &st, &err);
    }
    trainer_close(&t);
    if (!rc) fail_msg("a 64 KiB cap trained a 6000-vertex graph");
    if (!err.msg[0] || strchr(err.msg, '\n')) fail_msg("error is not one line: '%s'", err.msg);
    print_message("refused: %s\n", err.msg);
}

int main(void)
{
    gpu_open_or_skip();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_mem_past_gpu),
        cmocka_unit_test(test_cap_of_a_logical_device),
        cmocka_unit_test(test_too_large_then_fine),
        cmocka_unit_test(test_copy_to_freed_memory),
        cmocka_unit_test(test_kernel_on_host_memory),
        cmocka_unit_test(test_stream_cap_too_small),
        cmocka_unit_test(test_gather_index_past_its_rows), /* last: it loses the context */
    };
    return cmocka_run_group_tests(tests, gpu_graph_setup, gpu_graph_teardown);
}
