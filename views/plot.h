/* plot.h - plot scaling without curses: sparkline glyph levels and axis
 * maxima rounded to readable numbers. */
#ifndef GS_VIEWS_PLOT_H
#define GS_VIEWS_PLOT_H

/* A "nice" upper bound >= max (1, 2 or 5 times a power of ten). */
double plot_nice_max(double max);
/* Levels 0..levels-1 for each value on a [0, top] scale (top 0: all 0). */
void plot_levels(const double *v, int n, double top, int levels, int *out);
/* A counter as "label value unit": fractions as percentages, times in
 * ms, bytes in MB or larger, other units with a decimal prefix. */
void plot_stat(const char *label, const char *unit, int fraction, double value, char *buf, int n);
/* Human-readable bytes per second into buf ("12.3 MB/s"). */
void plot_rate(double bytes_per_s, char *buf, int n);

#endif
