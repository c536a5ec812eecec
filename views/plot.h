/* plot.h - plot scaling without curses: sparkline glyph levels, axis
 * maxima rounded to readable numbers, and line plots as character grids. */
#ifndef GS_VIEWS_PLOT_H
#define GS_VIEWS_PLOT_H

/* A "nice" upper bound >= max (1, 2 or 5 times a power of ten). */
double plot_nice_max(double max);
/* Levels 0..levels-1 for each value on a [0, top] scale (top 0: all 0). */
void plot_levels(const double *v, int n, double top, int levels, int *out);
/* A counter as "label value unit": fractions as percentages, times in
 * ms, bytes in MB or larger, other units with a decimal prefix. */
void plot_stat(const char *label, const char *unit, int fraction, double value, char *buf, int n);
/* The column of point i of n over w columns (plot_grid's x axis): with
 * xs NULL at i (w - 1) / (n - 1), else where xs[i] falls between xs[0]
 * and xs[n - 1] (ascending; a time axis). */
int plot_col(int i, int n, int w, const double *xs);
/* Series (n points each, oldest first) into a w x h character grid, rows
 * top to bottom, each NUL-terminated in w + 1 chars: point i at column
 * plot_col(i, n, w, xs), series s on its own [lo[s], hi[s]] scale with
 * glyph glyphs[s], later series over earlier ones; the rest spaces. */
void plot_grid(int nseries, const double *const *ys, const double *xs, const char *glyphs, const double *lo, const double *hi,
               int n, int w, int h, char *grid);
/* Human-readable bytes per second into buf ("12.3 MB/s"). */
void plot_rate(double bytes_per_s, char *buf, int n);

#endif
