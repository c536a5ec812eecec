/* test_gpu_backend.c - the plugin's streaming backend (backend.h) driven
 * directly, as the streamer drives it: copies through the pinned staging
 * buffers (larger than one buffer), a kernel on the compute stream that
 * waits for the copies' event, a device-to-device copy to another logical
 * device, filtered row copies, packed copies, copies of lengths the
 * staging pool splits unevenly, a gemm, chunk gathers with hubs and the
 * max gather's ties; every result read back exactly (gathers: to float
 * rounding). Each step crosses streams only through record/wait, so a
 * wait the backend dropped shows as a wrong result or, on the CPU test
 * double, a data race. Exits 77 when no GPU answers. */
#include "gpu_util.h"

static const backend_ops_t *B;
static backend_t *be;
static const chunk_tag_t TAG = {0, 0, -1, -1, -1};

static int setup(void **state)
{
    (void)state;
    B = cu->backend;
    backend_cfg_t cfg = {.ndev = 2};
    gs_err_t err;
    if (B->open(&be, &cfg, &err)) {
        printf("backend: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    B->close(be);
    K->close(CX);
    return 0;
}

static void synced(void)
{
    gs_err_t err;
    if (B->sync(be, &err)) fail_msg("sync: %s", err.msg);
}

/* H2D x and y (20 MB each: two staging buffers), B += A on the compute
 * stream after the copies' event, D2H after the kernel's event, and the
 * sum copied to device 1 and read back from there. */
static void test_copy_add_peer(void **state)
{
    (void)state;
    const int64_t n = 5 << 20;
    size_t bytes = sizeof(float) * (size_t)n;
    float *x = rnd(n, 1), *y = rnd(n, 2), *z = malloc(bytes), *w = malloc(bytes);
    float *a = B->alloc(be, 0, bytes), *b = B->alloc(be, 0, bytes), *c = B->alloc(be, 1, bytes);
    assert_non_null(a), assert_non_null(b), assert_non_null(c);
    B->copy(be, 0, LANE_H2D, -1, a, x, bytes, TAG);
    B->copy(be, 0, LANE_H2D, -1, b, y, bytes, TAG);
    B->wait(be, 0, LANE_COMPUTE, B->record(be, 0, LANE_H2D));
    kernel_call_t add = {.id = KERN_ADD, .m = n, .in = a, .out = b};
    B->launch(be, 0, &add, TAG);
    int added = B->record(be, 0, LANE_COMPUTE);
    B->wait(be, 0, LANE_D2H, added);
    B->copy(be, 0, LANE_D2H, -1, z, b, bytes, TAG);
    B->wait(be, 1, LANE_D2D, added);
    B->copy(be, 1, LANE_D2D, 0, c, b, bytes, TAG);
    B->wait(be, 1, LANE_D2H, B->record(be, 1, LANE_D2D));
    B->copy(be, 1, LANE_D2H, -1, w, c, bytes, TAG);
    synced();
    for (int64_t i = 0; i < n; i++)
        if (z[i] != x[i] + y[i] || w[i] != z[i]) fail_msg("element %lld: %g and %g, wanted %g", (long long)i, z[i], w[i], x[i] + y[i]);
    B->free(be, 0, a, bytes), B->free(be, 0, b, bytes), B->free(be, 1, c, bytes);
    free(x), free(y), free(z), free(w);
}

/* copy_rows packs the listed rows; copy_parts packs its parts at aligned offsets. */
static void test_rows_and_parts(void **state)
{
    (void)state;
    const int64_t rows = 50000, f = 24, pick = 30000;
    float *table = rnd(rows * f, 3), *got = malloc(sizeof(float) * (size_t)(pick * f));
    int32_t *list = malloc(sizeof(int32_t) * (size_t)pick);
    for (int64_t i = 0; i < pick; i++) list[i] = (int32_t)((i * 7919) % rows);
    size_t row_bytes = sizeof(float) * (size_t)f;
    float *d = B->alloc(be, 1, row_bytes * (size_t)pick);
    B->copy_rows(be, 1, d, table, row_bytes, list, pick, TAG);
    B->wait(be, 1, LANE_D2H, B->record(be, 1, LANE_H2D));
    B->copy(be, 1, LANE_D2H, -1, got, d, row_bytes * (size_t)pick, TAG);
    synced();
    for (int64_t i = 0; i < pick; i++)
        if (memcmp(got + i * f, table + (int64_t)list[i] * f, row_bytes)) fail_msg("row %lld differs", (long long)i);
    char p0[13], p1[100], p2[7], back[160];
    memset(p0, 1, sizeof p0), memset(p1, 2, sizeof p1), memset(p2, 3, sizeof p2);
    copy_part_t parts[3] = {{p0, sizeof p0}, {p1, sizeof p1}, {p2, sizeof p2}};
    size_t o1 = copy_part_align(sizeof p0), o2 = o1 + copy_part_align(sizeof p1), total = o2 + sizeof p2;
    char *dp = B->alloc(be, 0, total);
    B->copy_parts(be, 0, dp, parts, 3, TAG);
    B->wait(be, 0, LANE_D2H, B->record(be, 0, LANE_H2D));
    B->copy(be, 0, LANE_D2H, -1, back, dp, total, TAG);
    synced();
    assert_memory_equal(back, p0, sizeof p0);
    assert_memory_equal(back + o1, p1, sizeof p1);
    assert_memory_equal(back + o2, p2, sizeof p2);
    B->free(be, 1, d, row_bytes * (size_t)pick), B->free(be, 0, dp, total);
    free(table), free(got), free(list);
}

/* Copies of 1 MB and more are filled by the staging pool's threads, each
 * taking a part (stage_fill.cu). For each pool of 2 to 9 parts one length
 * here is parts x 512 KiB + 1 bytes: a split that rounds each part down
 * to 64 bytes leaves the last bytes unfilled (on an H200's 9 parts a
 * chunk structure's last index arrived stale and a gather faulted). Each
 * length goes H2D plainly and as a part of a packed copy, and comes back
 * D2H; every byte must arrive. */
static void test_copy_every_byte(void **state)
{
    (void)state;
    for (int parts = 2; parts <= 9; parts++) {
        size_t n = (size_t)parts * (512u << 10) + 1;
        unsigned char *src = malloc(n), *back = malloc(n), *back2 = malloc(n);
        for (size_t i = 0; i < n; i++) src[i] = (unsigned char)(i * 2654435761u >> 13 | 1);
        unsigned char *d = B->alloc(be, 0, n), *d2 = B->alloc(be, 0, n);
        assert_non_null(d), assert_non_null(d2);
        copy_part_t part = {src, n};
        B->copy(be, 0, LANE_H2D, -1, d, src, n, TAG);
        B->copy_parts(be, 0, d2, &part, 1, TAG);
        B->wait(be, 0, LANE_D2H, B->record(be, 0, LANE_H2D));
        B->copy(be, 0, LANE_D2H, -1, back, d, n, TAG);
        B->copy(be, 0, LANE_D2H, -1, back2, d2, n, TAG);
        synced();
        for (size_t i = 0; i < n; i++)
            if (back[i] != src[i] || back2[i] != src[i])
                fail_msg("%zu-byte copy: byte %zu came back as %u and %u, sent %u", n, i, back[i], back2[i], src[i]);
        B->free(be, 0, d, n), B->free(be, 0, d2, n);
        free(src), free(back), free(back2);
    }
}

/* One KERN_CHUNK_GATHER on the device against the rule computed here:
 * listed rows of 0, 1, 256 (the longest summed whole), 257 and 1000 edges
 * (hubs: summed in pieces that add atomically) beside random short ones,
 * rows listed out of order, offsets that start past 0, weights or none,
 * feature widths on the 16-byte path (128, 16) and off it (6), typed
 * input and typed output blocks, and attention (att_k heads of f / att_k
 * values, each edge's head scaled by its att row); the output accumulates.
 * Each element must match to float rounding. */
static void chunk_gather_case(int64_t f, typed_mode_t typed, int weighted, int64_t att_k)
{
    enum { ND = 40, NIN = 300, NOUT = 50, NTYPES = 3, BASE = 7 };
    int64_t ptr[ND + 1], deg[ND] = {0, 1000, 256, 257, 1};
    int32_t orow[ND];
    uint64_t h = 11;
    for (int r = 5; r < ND; r++) deg[r] = (int64_t)(gs_hash2(h, (uint64_t)r) % 150);
    ptr[0] = BASE;
    for (int r = 0; r < ND; r++) ptr[r + 1] = ptr[r] + deg[r], orow[r] = (int32_t)((r * 37 + 5) % NOUT);
    int64_t nnz = ptr[ND] - BASE, npos = ptr[ND];
    int32_t *lidx = malloc(sizeof(int32_t) * (size_t)npos), *etype = malloc(sizeof(int32_t) * (size_t)npos);
    float *w = rnd(npos, 12), *att = rnd(npos * (att_k ? att_k : 1), 17);
    for (int64_t q = 0; q < npos; q++)
        lidx[q] = (int32_t)(gs_hash2(13, (uint64_t)q) % NIN), etype[q] = (int32_t)(gs_hash2(14, (uint64_t)q) % NTYPES);
    int64_t in_cols = typed == TYPED_IN ? NTYPES * f : f, out_cols = typed == TYPED_OUT ? NTYPES * f : f;
    float *in = rnd(NIN * in_cols, 15), *out = rnd(NOUT * out_cols, 16), *got = malloc(sizeof(float) * (size_t)(NOUT * out_cols));
    size_t sp = sizeof ptr, so = sizeof orow, sl = sizeof(int32_t) * (size_t)npos, sw = sizeof(float) * (size_t)npos;
    size_t si = sizeof(float) * (size_t)(NIN * in_cols), sy = sizeof(float) * (size_t)(NOUT * out_cols);
    size_t sa = sw * (size_t)(att_k ? att_k : 1);
    void *d[8] = {B->alloc(be, 0, sp), B->alloc(be, 0, so), B->alloc(be, 0, sl), B->alloc(be, 0, sw), B->alloc(be, 0, sl),
                  B->alloc(be, 0, si), B->alloc(be, 0, sy), B->alloc(be, 0, sa)};
    const void *h_[8] = {ptr, orow, lidx, w, etype, in, out, att};
    size_t sz[8] = {sp, so, sl, sw, sl, si, sy, sa};
    for (int i = 0; i < 8; i++) assert_non_null(d[i]), B->copy(be, 0, LANE_H2D, -1, d[i], h_[i], sz[i], TAG);
    B->wait(be, 0, LANE_COMPUTE, B->record(be, 0, LANE_H2D));
    kernel_call_t kc = {.id = att_k ? KERN_CHUNK_ATTN : KERN_CHUNK_GATHER, .typed = typed, .ptr = d[0], .orow = d[1], .lidx = d[2],
                        .w = weighted ? d[3] : NULL, .etype = d[4], .nd = ND, .nnz = nnz, .f = f, .in_cols = in_cols,
                        .out_cols = out_cols, .in = d[5], .out = d[6], .att = att_k ? d[7] : NULL, .att_k = att_k,
                        .att_h = att_k ? f / att_k : 0};
    B->launch(be, 0, &kc, TAG);
    B->wait(be, 0, LANE_D2H, B->record(be, 0, LANE_COMPUTE));
    B->copy(be, 0, LANE_D2H, -1, got, d[6], sy, TAG);
    synced();
    for (int r = 0; r < ND; r++)
        for (int64_t q = ptr[r]; q < ptr[r + 1]; q++)
            for (int64_t j = 0; j < f; j++) {
                int64_t ic = j + (typed == TYPED_IN ? etype[q] * f : 0), oc = j + (typed == TYPED_OUT ? etype[q] * f : 0);
                float s = (weighted ? w[q] : 1.0f) * (att_k ? att[q * att_k + j / (f / att_k)] : 1.0f);
                out[orow[r] * out_cols + oc] += in[lidx[q] * in_cols + ic] * s;
            }
    for (int64_t i = 0; i < NOUT * out_cols; i++)
        if (fabsf(got[i] - out[i]) > 1e-4f * (1.0f + fabsf(out[i])))
            fail_msg("chunk gather f %lld typed %d weighted %d heads %lld: out[%lld] is %g, the rule gives %g", (long long)f,
                     (int)typed, weighted, (long long)att_k, (long long)i, got[i], out[i]);
    for (int i = 0; i < 8; i++) B->free(be, 0, d[i], sz[i]);
    free(lidx), free(etype), free(w), free(att), free(in), free(out), free(got);
}

static void test_chunk_gather_hubs(void **state)
{
    (void)state;
    const int64_t widths[] = {128, 16, 6};
    const typed_mode_t modes[] = {TYPED_NONE, TYPED_IN, TYPED_OUT};
    for (int i = 0; i < 3; i++)
        for (int t = 0; t < 3; t++) chunk_gather_case(widths[i], modes[t], (i + t) % 2, 0);
    chunk_gather_case(128, TYPED_NONE, 1, 8); /* heads of 16: the 16-byte path */
    chunk_gather_case(16, TYPED_NONE, 0, 8);  /* heads of 2: one value a lane */
    chunk_gather_case(6, TYPED_NONE, 1, 3);
}

/* The max gather's kernels: a tie goes to the smaller source row whatever
 * the sub-chunks' order (the second sub-chunk's equal value from a smaller
 * row takes the element, an equal one from a larger row does not), a
 * greater value wins, and the finish zeroes the row nothing reached; the
 * backward adds a gradient only where the winners name its row. */
static void test_chunk_max_ties(void **state)
{
    (void)state;
    enum { F = 2, NIN = 4 };
    const float in[NIN * F] = {1, 5, 1, 5, 1, 6, 0, 0}; /* rows 0, 1 and 2 tie on feature 0 */
    const int64_t ptr_a[3] = {0, 2, 2}, ptr_b[3] = {0, 1, 1};
    const int32_t lidx_a[2] = {1, 2}, ids_a[2] = {1, 2}, lidx_b[1] = {0}, ids_b[1] = {0};
    float out[2 * F];
    int32_t win[2 * F];
    size_t sin = sizeof in, sp = sizeof ptr_a, s2 = 2 * sizeof(int32_t), so = sizeof out;
    void *d[9] = {B->alloc(be, 0, sin), B->alloc(be, 0, sp), B->alloc(be, 0, s2), B->alloc(be, 0, s2), B->alloc(be, 0, sp),
                  B->alloc(be, 0, s2), B->alloc(be, 0, s2), B->alloc(be, 0, so), B->alloc(be, 0, so)};
    const void *h[7] = {in, ptr_a, lidx_a, ids_a, ptr_b, lidx_b, ids_b};
    size_t sz[9] = {sin, sp, s2, s2, sp, s2, s2, so, so};
    for (int i = 0; i < 7; i++) assert_non_null(d[i]), B->copy(be, 0, LANE_H2D, -1, d[i], h[i], i == 5 || i == 6 ? 4 : sz[i], TAG);
    B->wait(be, 0, LANE_COMPUTE, B->record(be, 0, LANE_H2D));
    kernel_call_t k = {.nd = 2, .f = F, .in_cols = F, .out_cols = F, .in = d[0], .out = d[7], .win = d[8], .in_base = 10};
    k.id = KERN_MAX_INIT, B->launch(be, 0, &k, TAG);
    k.id = KERN_CHUNK_MAX, k.ptr = d[1], k.lidx = d[2], k.ids = d[3], B->launch(be, 0, &k, TAG); /* sources 11, 12 */
    k.ptr = d[4], k.lidx = d[5], k.ids = d[6], B->launch(be, 0, &k, TAG);                         /* source 10, later */
    k.id = KERN_MAX_FINISH, B->launch(be, 0, &k, TAG);
    B->wait(be, 0, LANE_D2H, B->record(be, 0, LANE_COMPUTE));
    B->copy(be, 0, LANE_D2H, -1, out, d[7], so, TAG), B->copy(be, 0, LANE_D2H, -1, win, d[8], so, TAG);
    synced();
    const float want[2 * F] = {1, 6, 0, 0};
    const int32_t want_win[2 * F] = {10, 12, -1, -1};
    for (int i = 0; i < 2 * F; i++)
        if (out[i] != want[i] || win[i] != want_win[i])
            fail_msg("max element %d: %g from row %d, the rule gives %g from row %d", i, out[i], win[i], want[i], want_win[i]);
    /* backward over the same first sub-chunk: rows 1 and 2 send gradient 3 to listed row 0 (global row 10 + 0) where they won */
    const int32_t win_in[NIN * F] = {10, 10, 10, 12, 10, 10, 0, 0};
    const float dy[NIN * F] = {3, 3, 3, 3, 3, 3, 3, 3}, zero[2 * F] = {0};
    B->copy(be, 0, LANE_H2D, -1, d[0], dy, sin, TAG), B->copy(be, 0, LANE_H2D, -1, d[7], zero, so, TAG);
    int32_t *dwin = B->alloc(be, 0, sizeof win_in);
    B->copy(be, 0, LANE_H2D, -1, dwin, win_in, sizeof win_in, TAG);
    B->wait(be, 0, LANE_COMPUTE, B->record(be, 0, LANE_H2D));
    kernel_call_t kb = {.id = KERN_CHUNK_MAX_BWD, .ptr = d[1], .lidx = d[2], .nd = 2, .f = F, .in_cols = F, .out_cols = F,
                        .in = d[0], .out = d[7], .win_in = dwin, .out_base = 10};
    B->launch(be, 0, &kb, TAG);
    B->wait(be, 0, LANE_D2H, B->record(be, 0, LANE_COMPUTE));
    B->copy(be, 0, LANE_D2H, -1, out, d[7], so, TAG);
    synced();
    const float want_d[2 * F] = {6, 3, 0, 0}; /* feature 0: rows 1 and 2 both name 10; feature 1: row 2 only (row 1 names 12) */
    for (int i = 0; i < 2 * F; i++)
        if (out[i] != want_d[i]) fail_msg("max backward element %d: %g, the rule gives %g", i, out[i], want_d[i]);
    for (int i = 0; i < 9; i++) B->free(be, 0, d[i], sz[i]);
    B->free(be, 0, dwin, sizeof win_in);
}

/* KERN_GEMM on the compute stream: row-major, accumulating, as the CPU computes it. */
static void test_gemm_launch(void **state)
{
    (void)state;
    const int64_t m = 301, n = 29, k = 47;
    float *a = rnd(m * k, 4), *b = rnd(k * n, 5), *c = rnd(m * n, 6), *got = malloc(sizeof(float) * (size_t)(m * n));
    size_t as = sizeof(float) * (size_t)(m * k), bs = sizeof(float) * (size_t)(k * n), cs = sizeof(float) * (size_t)(m * n);
    float *da_ = B->alloc(be, 0, as), *db_ = B->alloc(be, 0, bs), *dc_ = B->alloc(be, 0, cs);
    B->copy(be, 0, LANE_H2D, -1, da_, a, as, TAG), B->copy(be, 0, LANE_H2D, -1, db_, b, bs, TAG);
    B->copy(be, 0, LANE_H2D, -1, dc_, c, cs, TAG);
    B->wait(be, 0, LANE_COMPUTE, B->record(be, 0, LANE_H2D));
    kernel_call_t g = {.id = KERN_GEMM, .m = m, .n = n, .k = k, .a = da_, .b = db_, .out = dc_, .acc = 1};
    B->launch(be, 0, &g, TAG);
    B->wait(be, 0, LANE_D2H, B->record(be, 0, LANE_COMPUTE));
    B->copy(be, 0, LANE_D2H, -1, got, dc_, cs, TAG);
    synced();
    kops_cpu.gemm(NULL, 0, 0, m, n, k, a, b, c, 1);
    check_host_close("gemm launch", c, got, m * n, 1e-5);
    B->free(be, 0, da_, as), B->free(be, 0, db_, bs), B->free(be, 0, dc_, cs);
    free(a), free(b), free(c), free(got);
}

int main(void)
{
    gpu_open_or_skip();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_add_peer),
        cmocka_unit_test(test_rows_and_parts),
        cmocka_unit_test(test_copy_every_byte),
        cmocka_unit_test(test_gemm_launch),
        cmocka_unit_test(test_chunk_gather_hubs),
        cmocka_unit_test(test_chunk_max_ties),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
