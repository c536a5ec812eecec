/* plugin.cu - the plugin's entry point (cuda_plugin.h): probes the GPU
 * once, then hands out the kernel table, the streaming backend and the
 * profiling calls. */
#include <stdio.h>
#include <string.h>

#include "cuda_common.h"

static int probed, probe_rc;
static char probe_why[256];
static char gpu_name[64];

static int probe(char *why, size_t n)
{
    if (!probed) {
        probed = 1;
        probe_rc = cu_init(probe_why, sizeof probe_why);
        cudaDeviceProp p;
        if (probe_rc == 0 && cudaGetDeviceProperties(&p, 0) == cudaSuccess) snprintf(gpu_name, sizeof gpu_name, "%.63s", p.name);
    }
    if (probe_rc) snprintf(why, n, "%s", probe_why);
    return probe_rc;
}

static void metrics(gpu_metrics_t *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->gpu, sizeof out->gpu, "%s", gpu_name);
    cu_prof_metrics(out);
    cu_nvml_metrics(out);
}

static void metrics_between(double t0, double t1, gpu_metrics_t *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->gpu, sizeof out->gpu, "%s", gpu_name);
    cu_prof_metrics_between(t0, t1, out);
}

/* abi: this compilation's layout of the shared structs (C++ initialises it when the library loads) */
static const gs_cuda_t table = {
    gs_cuda_abi(), &cu_kops, &cu_backend, probe, cu_prof_start, cu_prof_flush, cu_prof_stop, metrics, metrics_between,
};

extern "C" __attribute__((visibility("default"))) const gs_cuda_t *gs_cuda_plugin(void) { return &table; }
