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
        double r = v[i] / top; /* nan when both are infinite: the top level, as for any value at or past the top */
        out[i] = !(r < 1) ? levels - 1 : (int)ceil(r * (levels - 1));
    }
}

void plot_rate(double b, char *buf, int n)
{
    const char *u[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
    int k = 0;
    while (b >= 1000 && k < 4) b /= 1000, k++;
    snprintf(buf, (size_t)n, "%.1f %s", b, u[k]);
}

void plot_stat(const char *label, const char *unit, int fraction, double value, char *buf, int n)
{
    static const char prefix[] = " KMGTP";
    if (fraction) {
        snprintf(buf, (size_t)n, "%s %.1f%%", label, 100 * value);
        return;
    }
    if (!strcmp(unit, "ms")) {
        snprintf(buf, (size_t)n, fabs(value) < 10 ? "%s %.2f ms" : "%s %.1f ms", label, value);
        return;
    }
    int k = 0;
    while (fabs(value) >= 1000 && k < 5) value /= 1000, k++;
    if (!strcmp(unit, "B") && k < 2) value /= k ? 1000 : 1e6, k = 2; /* bytes: MB at least, comparable at a glance */
    if (k) snprintf(buf, (size_t)n, "%s %.1f %c%s", label, value, prefix[k], unit);
    else snprintf(buf, (size_t)n, "%s %.3g%s%s", label, value, unit[0] ? " " : "", unit);
}

int plot_col(int i, int n, int w, const double *xs)
{
    if (n == 1) return w - 1;
    double span = xs ? xs[n - 1] - xs[0] : 0;
    double f = xs && span > 0 ? (xs[i] - xs[0]) / span : (double)i / (n - 1);
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return (int)(f * (w - 1) + 0.5);
}

void plot_grid(int nseries, const double *const *ys, const double *xs, const char *glyphs, const double *lo, const double *hi,
               int n, int w, int h, char *grid)
{
    for (int r = 0; r < h; r++) {
        memset(grid + r * (w + 1), ' ', (size_t)w);
        grid[r * (w + 1) + w] = '\0';
    }
    if (n < 1 || w < 1 || h < 1) return;
    for (int s = 0; s < nseries; s++) {
        double span = hi[s] - lo[s];
        for (int i = 0; i < n; i++) {
            double y = ys[s][i];
            if (!isfinite(y)) continue;
            int col = plot_col(i, n, w, xs);
            double f = span > 0 ? (y - lo[s]) / span : 0.5;
            f = f < 0 ? 0 : f > 1 ? 1 : f;
            int row = h - 1 - (int)(f * (h - 1) + 0.5);
            grid[row * (w + 1) + col] = glyphs[s];
        }
    }
}
