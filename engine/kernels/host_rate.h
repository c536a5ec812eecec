/* host_rate.h - this host's sgemm rate on the thread pool's threads: what
 * measured kernel times are scaled by to stand for an emulated GPU's
 * (vclock.h, --kernel-time measured). A probe of a few milliseconds. */
#ifndef GS_HOST_RATE_H
#define GS_HOST_RATE_H

/* FLOP/s of the best of three 384^3 sgemms on the configured threads. */
double host_probe_flops(void);

#endif
