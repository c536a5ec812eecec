/* nvml_dl.cu - NVML through dlopen, when the driver ships it: GPU
 * utilisation, PCIe throughput and memory use of GPU 0. The few entry
 * points are declared here by their documented C signatures, so no NVML
 * header is needed to build. Anything missing leaves its metric invalid. */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "cuda_common.h"

typedef void *nvml_dev_t;
typedef struct {
    unsigned int gpu, memory;
} nvml_util_t;
typedef struct {
    unsigned long long total, free, used;
} nvml_mem_t;

static struct {
    int ok;
    nvml_dev_t dev;
    int (*util)(nvml_dev_t, nvml_util_t *);
    int (*pcie)(nvml_dev_t, int, unsigned int *);
    int (*mem)(nvml_dev_t, nvml_mem_t *);
    int (*name)(nvml_dev_t, char *, unsigned int);
} nvml;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void nvml_open(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    int (*init)(void) = (int (*)(void))dlsym(h, "nvmlInit_v2");
    int (*by_index)(unsigned int, nvml_dev_t *) = (int (*)(unsigned int, nvml_dev_t *))dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
    nvml.util = (int (*)(nvml_dev_t, nvml_util_t *))dlsym(h, "nvmlDeviceGetUtilizationRates");
    nvml.pcie = (int (*)(nvml_dev_t, int, unsigned int *))dlsym(h, "nvmlDeviceGetPcieThroughput");
    nvml.mem = (int (*)(nvml_dev_t, nvml_mem_t *))dlsym(h, "nvmlDeviceGetMemoryInfo");
    nvml.name = (int (*)(nvml_dev_t, char *, unsigned int))dlsym(h, "nvmlDeviceGetName");
    if (!init || !by_index || init() != 0 || by_index(0, &nvml.dev) != 0) return;
    nvml.ok = 1;
}

void cu_nvml_metrics(gpu_metrics_t *out)
{
    pthread_once(&once, nvml_open);
    if (!nvml.ok) return;
    nvml_util_t u;
    if (nvml.util && nvml.util(nvml.dev, &u) == 0) out->nvml_util_valid = 1, out->nvml_util = u.gpu / 100.0;
    unsigned int tx = 0, rx = 0; /* KB/s over the driver's last 20 ms sample */
    if (nvml.pcie && nvml.pcie(nvml.dev, 0, &tx) == 0 && nvml.pcie(nvml.dev, 1, &rx) == 0)
        out->nvml_pcie_valid = 1, out->nvml_tx_Bps = tx * 1024.0, out->nvml_rx_Bps = rx * 1024.0;
    nvml_mem_t m;
    if (nvml.mem && nvml.mem(nvml.dev, &m) == 0) out->nvml_mem_valid = 1, out->mem_used = (double)m.used, out->mem_total = (double)m.total;
    if (nvml.name && !out->gpu[0]) nvml.name(nvml.dev, out->gpu, sizeof out->gpu);
}
