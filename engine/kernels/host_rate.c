/* host_rate.c - see host_rate.h. */
#include "host_rate.h"

#include <cblas.h>
#include <stdlib.h>

#include "base/mono_clock.h"

double host_probe_flops(void)
{
    enum { D = 384 };
    float *a = malloc(sizeof(float) * D * D * 3);
    if (!a) return 1e10;
    for (int i = 0; i < D * D * 3; i++) a[i] = (float)(i % 13) * 0.01f;
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = gs_mono_s();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, D, D, D, 1.0f, a, D, a + D * D, D, 0.0f, a + 2 * D * D, D);
        double dt = gs_mono_s() - t0;
        if (dt < best) best = dt;
    }
    free(a);
    return 2.0 * D * D * D / best;
}
