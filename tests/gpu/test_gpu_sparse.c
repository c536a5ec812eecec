/* test_gpu_sparse.c - the plugin's graph kernels against the CPU
 * reference (kops_cpu): every sparse op, overwriting and accumulating, on
 * fresh random inputs over a power-law graph whose hubs are wider than one
 * work item, with outputs poisoned (NaN) first; relative error <= 1e-5
 * (FP32 summation order differs). Exits 77 when no GPU answers. */
#include "gpu_util.h"

static void test_graph_has_hubs(void **state)
{
    (void)state;
    int64_t maxdeg = 0;
    for (int64_t v = 0; v < hg.n; v++) {
        int64_t d = hg.in_ptr[v + 1] - hg.in_ptr[v];
        if (d > maxdeg) maxdeg = d;
    }
    if (maxdeg <= 512) fail_msg("max in-degree %lld: no hub is split across work items", (long long)maxdeg);
}

/* ---------------- kernels ---------------- */

typedef enum { IN_V, IN_E } dom_t;

/* Runs one sparse op on both tables: out = op(in1, in2), with `acc`. */
typedef void (*sparse_fn)(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc,
                          int32_t *aux);

static void compare_sparse(const char *name, sparse_fn fn, dom_t da, int64_t fa, dom_t db, int64_t fb, dom_t dy,
                           int64_t fy, int acc, uint64_t seed)
{
    int64_t na = (da == IN_E ? hg.m : hg.n) * fa, nb = (db == IN_E ? hg.m : hg.n) * fb, ny = (dy == IN_E ? hg.m : hg.n) * fy;
    float *a = rnd(na, seed), *b = rnd(nb, seed + 1), *y = rnd(ny, seed + 2);
    float *da_ = up(a, sizeof(float) * (size_t)na), *db_ = up(b, sizeof(float) * (size_t)nb);
    float *dy_ = up(y, sizeof(float) * (size_t)ny);
    if (!acc) poison(dy_, ny);
    int32_t *aux = malloc(sizeof(int32_t) * (size_t)(ny ? ny : 1)), *daux = K->alloc(CX, sizeof(int32_t) * (size_t)(ny ? ny : 1));
    fn(&kops_cpu, &hg, a, b, y, acc, aux);
    fn(K, &dg, da_, db_, dy_, acc, daux);
    char what[96];
    snprintf(what, sizeof what, "%s (acc=%d)", name, acc);
    check_close(what, y, dy_, ny, 1e-5);
    free(a), free(b), free(y), free(aux);
    K->release(CX, da_), K->release(CX, db_), K->release(CX, dy_), K->release(CX, daux);
}

static void f_gather(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_sum(kcx(k), g, AGG_NORM, a, 20, y, acc);
}
static void f_gather_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_sum_bwd(kcx(k), g, AGG_MEAN, a, 20, y, acc);
}
static void f_gather_wide(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_sum(kcx(k), g, AGG_ONE, a, 132, y, acc);
}
static void f_scatter_src_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->scatter_src_bwd(kcx(k), g, a, 3, y, acc);
}
static void f_scatter_dst_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->scatter_dst_bwd(kcx(k), g, a, 3, y, acc);
}
static void f_gather_edge_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_edge_bwd(kcx(k), g, AGG_NORM, a, 3, y, acc);
}
static void f_softmax_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)x;
    k->edge_softmax_bwd(kcx(k), g, a, b, 2, y, acc);
}
static void f_attn_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)x;
    k->gather_attn_bwd(kcx(k), g, a, b, 2, 4, y, acc); /* a: (E, 2) attention, b: dY (N, 8) */
}
static void f_sddmm(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)x;
    k->sddmm(kcx(k), g, a, b, 2, 4, y, acc);
}
static void f_typed(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_typed(kcx(k), g, AGG_NORM, a, 4, y, acc);
}
static void f_typed_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    (void)b, (void)x;
    k->gather_typed_bwd(kcx(k), g, AGG_NORM, a, 4, y, acc);
}
static void f_max_bwd(const kops_t *k, const graph_t *g, const float *a, const float *b, float *y, int acc, int32_t *x)
{
    /* argmax from a forward pass on this table, then the backward */
    float *tmp = k->alloc(kcx(k), sizeof(float) * (size_t)(g->n * 6));
    k->gather_max(kcx(k), g, b, 6, tmp, x);
    k->gather_max_bwd(kcx(k), g, x, a, 6, y, acc);
    k->release(kcx(k), tmp);
}

static void sparse_kernels(int acc)
{
    int types = hg.ntypes;
    {
        uint64_t s = 100 + (uint64_t)acc * 50;
        compare_sparse("gather_sum", f_gather, IN_V, 20, IN_V, 1, IN_V, 20, acc, s + 1);
        compare_sparse("gather_sum_bwd", f_gather_bwd, IN_V, 20, IN_V, 1, IN_V, 20, acc, s + 2);
        compare_sparse("gather_sum f=132", f_gather_wide, IN_V, 132, IN_V, 1, IN_V, 132, acc, s + 3);
        compare_sparse("scatter_src_bwd", f_scatter_src_bwd, IN_E, 3, IN_V, 1, IN_V, 3, acc, s + 4);
        compare_sparse("scatter_dst_bwd", f_scatter_dst_bwd, IN_E, 3, IN_V, 1, IN_V, 3, acc, s + 5);
        compare_sparse("gather_edge_bwd", f_gather_edge_bwd, IN_V, 3, IN_V, 1, IN_E, 3, acc, s + 6);
        compare_sparse("edge_softmax_bwd", f_softmax_bwd, IN_E, 2, IN_E, 2, IN_E, 2, acc, s + 7);
        compare_sparse("gather_attn_bwd", f_attn_bwd, IN_E, 2, IN_V, 8, IN_V, 8, acc, s + 8);
        compare_sparse("sddmm", f_sddmm, IN_V, 8, IN_V, 8, IN_E, 2, acc, s + 9);
        compare_sparse("gather_typed", f_typed, IN_V, 4 * types, IN_V, 1, IN_V, 4, acc, s + 10);
        compare_sparse("gather_typed_bwd", f_typed_bwd, IN_V, 4, IN_V, 1, IN_V, 4 * types, acc, s + 11);
        compare_sparse("gather_max_bwd", f_max_bwd, IN_V, 6, IN_V, 6, IN_V, 6, acc, s + 12);
    }
}

static void test_sparse_kernels_overwrite(void **state)
{
    (void)state;
    sparse_kernels(0);
}

static void test_sparse_kernels_accumulate(void **state)
{
    (void)state;
    sparse_kernels(1);
}

/* Forward-only sparse ops (no acc argument). */
static void test_sparse_forward_ops(void **state)
{
    (void)state;
    int64_t n = hg.n, m = hg.m;
    float *x = rnd(n * 8, 7), *e2 = rnd(m * 2, 8), *l = rnd(n * 2, 9), *r = rnd(n * 2, 10);
    float *dx = up(x, sizeof(float) * (size_t)(n * 8)), *de2 = up(e2, sizeof(float) * (size_t)(m * 2));
    float *dl = up(l, sizeof(float) * (size_t)(n * 2)), *dr = up(r, sizeof(float) * (size_t)(n * 2));
    float *ref = malloc(sizeof(float) * (size_t)(m * 8)), *out = K->alloc(CX, sizeof(float) * (size_t)(m * 8));
    int32_t *am = malloc(sizeof(int32_t) * (size_t)(n * 8)), *dam = K->alloc(CX, sizeof(int32_t) * (size_t)(n * 8));
    kops_cpu.scatter_src(NULL, &hg, x, 8, ref), poison(out, m * 8), K->scatter_src(CX, &dg, dx, 8, out);
    check_close("scatter_src", ref, out, m * 8, 1e-6);
    kops_cpu.scatter_dst(NULL, &hg, x, 8, ref), poison(out, m * 8), K->scatter_dst(CX, &dg, dx, 8, out);
    check_close("scatter_dst", ref, out, m * 8, 1e-6);
    kops_cpu.edge_uaddv(NULL, &hg, l, r, 2, ref), poison(out, m * 2), K->edge_uaddv(CX, &dg, dl, dr, 2, out);
    check_close("edge_uaddv", ref, out, m * 2, 1e-6);
    kops_cpu.edge_softmax(NULL, &hg, e2, 2, ref), poison(out, m * 2), K->edge_softmax(CX, &dg, de2, 2, out);
    check_close("edge_softmax", ref, out, m * 2, 1e-5);
    kops_cpu.gather_attn(NULL, &hg, x, e2, 2, 4, ref), poison(out, n * 8), K->gather_attn(CX, &dg, dx, de2, 2, 4, out);
    check_close("gather_attn", ref, out, n * 8, 1e-5);
    kops_cpu.gather_max(NULL, &hg, x, 8, ref, am), poison(out, n * 8), K->gather_max(CX, &dg, dx, 8, out, dam);
    check_close("gather_max", ref, out, n * 8, 1e-6);
    kops_cpu.gather_edge(NULL, &hg, AGG_MEAN, e2, 2, ref, 0), poison(out, n * 2), K->gather_edge(CX, &dg, AGG_MEAN, de2, 2, out, 0);
    check_close("gather_edge", ref, out, n * 2, 1e-5);
    free(x), free(e2), free(l), free(r), free(ref), free(am);
    K->release(CX, dx), K->release(CX, de2), K->release(CX, dl), K->release(CX, dr), K->release(CX, out), K->release(CX, dam);
}

int main(void)
{
    gpu_open_or_skip();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_has_hubs),
        cmocka_unit_test(test_sparse_kernels_overwrite),
        cmocka_unit_test(test_sparse_kernels_accumulate),
        cmocka_unit_test(test_sparse_forward_ops),
    };
    return cmocka_run_group_tests(tests, gpu_graph_setup, gpu_graph_teardown);
}
