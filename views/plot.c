/* plot.c - see plot.h. */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double plot_nice_max(double max)
{
    if (!(max > 0)) return 1;
    double p = pow(10, floor(log10(max)));
    for (int m = 1; m <= 10; m *= 10)
        for (int k = 0; k < 3; k++) {
            double steps[3] = {1, 2, 5}, v = steps[k] * p * m;
            if (v >= max * (1 - 1e-12)) return v;
        }
    return 10 * p;
}

void plot_levels(const double *v, int n, double top, int levels, int *out)
{
    for (int i = 0; i < n; i++) {
        if (!(top > 0) || !(v[i] > 0)) {
            out[i] = 0;
            continue;
        }
        int l = (int)ceil(v[i] / top * (levels - 1));
        out[i] = l < 0 ? 0 : l >= levels ? levels - 1 : l;
    }
}

void plot_rate(double b, char *buf, int n)
{
    const char *u[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
    int k = 0;
    while (b >= 1000 && k < 4) b /= 1000, k++;
    snprintf(buf, (size_t)n, "%.1f %s", b, u[k]);
}

void plot_stat(const char *name, const char *unit, double value, char *buf, int n)
{
    if (!strcmp(unit, "B")) snprintf(buf, (size_t)n, "%s %.2f MB", name, value / 1e6);
    else if (!strcmp(unit, "ms")) snprintf(buf, (size_t)n, "%s %.1f ms", name, value);
    else snprintf(buf, (size_t)n, "%s %.3g", name, value);
}
