/* mono_clock.h - the host's monotonic clock in seconds (CLOCK_MONOTONIC),
 * the one wall-time source of the engine: spans, measured host work and
 * the wall-clock modes all read it. */
#ifndef GS_MONO_CLOCK_H
#define GS_MONO_CLOCK_H

#include <time.h>

static inline double gs_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
