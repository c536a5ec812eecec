/* ew_rate.c - the host's elementwise ops against the memory bound, on one
 * tensor (rows x cols, the shape of a GCN layer's activations): dropout
 * (p = 0.5, a training step's mask) forward and backward beside ReLU's, a
 * parallel copy (the bound: one read and one write of the tensor), each the
 * best of 7 runs on THREADS threads through the engine's own table
 * (kops_cpu). Prints each op's ms and GB/s, and dropout over ReLU.
 * Usage: ew_rate ROWS COLS THREADS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mono_clock.h"
#include "base/threadpool.h"
#include "engine/graph/tensor.h"
#include "engine/kernels/kops.h"

typedef void (*ew_fn)(kops_ctx_t *cx, const ew_args_t *a);

/* The best of 7 runs of fn over args, in seconds. */
static double best_of(kops_ctx_t *cx, ew_fn fn, const ew_args_t *args)
{
    double best = 1e30;
    for (int r = 0; r < 7; r++) {
        double t0 = gs_mono_s();
        fn(cx, args);
        double t = gs_mono_s() - t0;
        if (t < best) best = t;
    }
    return best;
}

static void copy_range(void *ctx, int64_t rb, int64_t re)
{
    const ew_args_t *a = ctx;
    memcpy(a->out + rb * a->cols, a->a + rb * a->cols, sizeof(float) * (size_t)((re - rb) * a->cols));
}

/* The bound: the tensor read and written once, on the pool's threads. */
static void copy_rows(kops_ctx_t *cx, const ew_args_t *a)
{
    (void)cx;
    gs_parallel_for(a->rows, 256, copy_range, (void *)a);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: ew_rate ROWS COLS THREADS\n");
        return 2;
    }
    int64_t rows = atoll(argv[1]), cols = atoll(argv[2]);
    gs_pool_init(atoi(argv[3]));
    size_t n = (size_t)(rows * cols);
    /* aligned as the engine's tensors are (a streamed output needs it: stream_store.h) */
    float *a = gs_aligned_alloc(sizeof(float) * n), *y = gs_aligned_alloc(sizeof(float) * n),
          *dy = gs_aligned_alloc(sizeof(float) * n), *da = gs_aligned_alloc(sizeof(float) * n);
    int32_t *orig = malloc(sizeof(int32_t) * (size_t)rows);
    if (!a || !y || !dy || !da || !orig) return 1;
    for (size_t i = 0; i < n; i++) a[i] = (float)((int)(i % 13) - 6), dy[i] = 0.5f;
    for (int64_t r = 0; r < rows; r++) orig[r] = (int32_t)r;
    graph_t g;
    memset(&g, 0, sizeof g);
    g.n = rows, g.orig_id = orig;
    kops_ctx_t *cx = kops_cpu.open(NULL);
    ew_args_t drop = {.op = OP_DROPOUT, .a = a, .out = y, .dy = dy, .da = da, .rows = rows, .cols = cols, .fp = 0.5f, .g = &g, .key = 42};
    ew_args_t relu = {.op = OP_RELU, .a = a, .out = y, .y = y, .dy = dy, .da = da, .rows = rows, .cols = cols};
    kops_cpu.ew_forward(cx, &relu); /* y for ReLU's backward */
    double bytes = 2.0 * sizeof(float) * (double)n; /* forward: read a, write y */
    struct {
        const char *name;
        ew_fn fn;
        const ew_args_t *args;
        double bytes;
    } ops[] = {{"copy (bound)", copy_rows, &relu, bytes},
               {"relu fwd", kops_cpu.ew_forward, &relu, bytes},
               {"dropout fwd", kops_cpu.ew_forward, &drop, bytes},
               {"relu bwd", kops_cpu.ew_backward, &relu, 1.5 * bytes},
               {"dropout bwd", kops_cpu.ew_backward, &drop, bytes}};
    double t[5];
    for (int i = 0; i < 5; i++) {
        t[i] = best_of(cx, ops[i].fn, ops[i].args);
        printf("%-13s %8.2f ms %7.2f GB/s\n", ops[i].name, 1e3 * t[i], ops[i].bytes / t[i] / 1e9);
    }
    printf("dropout/relu: forward %.2fx, backward %.2fx; dropout forward/copy %.2fx\n", t[2] / t[1], t[4] / t[3], t[2] / t[0]);
    kops_cpu.close(cx);
    return 0;
}
