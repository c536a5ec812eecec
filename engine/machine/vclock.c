/* vclock.c - see vclock.h. */
#include "vclock.h"

#include <math.h>
#include <time.h>

void vclock_init(vclock_t *c, const topology_t *t, ktime_kind_t kt, double core_flops, int threads, double start)
{
    *c = (vclock_t){.ktime = kt, .now = start, .gpu_flops = t->gpu_flops, .gpu_bw = t->gpu_bw, .launch_s = t->launch_s,
                    .host_flops = t->host_flops, .host_bw = t->host_bw, .core_flops = core_flops,
                    .threads = threads > 0 ? threads : 1};
}

double vclock_kernel_s(const vclock_t *c, double flops, double bytes, double cpu_s)
{
    if (c->ktime == KTIME_MEASURED) return cpu_s * c->core_flops / c->gpu_flops;
    return fmax(flops / c->gpu_flops, bytes / c->gpu_bw) + c->launch_s;
}

double vclock_host_s(const vclock_t *c, double flops, double bytes, double cpu_s)
{
    if (c->ops_on_gpu) /* a step's kernels, without a launch each (a fused step's launches are few) */
        return c->ktime == KTIME_MEASURED ? cpu_s * c->core_flops / c->gpu_flops : fmax(flops / c->gpu_flops, bytes / c->gpu_bw);
    return c->ktime == KTIME_MEASURED ? cpu_s / c->threads : fmax(flops / c->host_flops, bytes / c->host_bw);
}

void vclock_host_op(vclock_t *c, double flops, double bytes, double cpu_s, double *t0, double *t1)
{
    double dt = vclock_host_s(c, flops, bytes, cpu_s);
    *t0 = c->now;
    c->now += dt;
    c->host_s += dt;
    *t1 = c->now;
}

double vclock_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
