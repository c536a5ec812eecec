/* sgemm_rate.c - measures OpenBLAS sgemm GFLOP/s on this machine at a
 * given shape and thread count: the dense ceiling gnnscope's achieved
 * GFLOP/s is compared with. Usage: sgemm_rate M N K THREADS */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: sgemm_rate M N K THREADS\n");
        return 2;
    }
    int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
    openblas_set_num_threads(atoi(argv[4]));
    float *a = malloc(sizeof(float) * (size_t)m * k), *b = malloc(sizeof(float) * (size_t)k * n);
    float *c = malloc(sizeof(float) * (size_t)m * n);
    for (size_t i = 0; i < (size_t)m * k; i++) a[i] = (float)(i % 7) * 0.1f;
    for (size_t i = 0; i < (size_t)k * n; i++) b[i] = (float)(i % 5) * 0.1f;
    double best = 1e30;
    for (int r = 0; r < 7; r++) {
        double t0 = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
        double t = now() - t0;
        if (t < best) best = t;
    }
    printf("%.3f\n", 2.0 * m * n * k / best / 1e9);
    free(a), free(b), free(c);
    return 0;
}
