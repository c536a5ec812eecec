/* catalog.c - see catalog.h. Numbers are the vendors' published figures
 * unless an entry says otherwise.
 *
 * GPUs: FP32 peak, memory bandwidth and capacity from NVIDIA's datasheets
 * (Tesla P100 PCIe/SXM2, V100 PCIe/SXM2, T4, GeForce RTX 3090, A100 40GB
 * PCIe, H100 PCIe, H200 SXM); the 5 us launch cost is an assumption (a CUDA launch's
 * usual cost), the same for every model.
 * CPUs: peak FP32 = cores x base clock x FLOPs per cycle; memory peak =
 * channels x transfer rate x 8 bytes. The model runs a socket at 43% of
 * its FP32 peak and 85% of its memory peak (assumptions: the 85% is what
 * STREAM reaches on such sockets; the 43% puts a two-socket E5-2690 v4,
 * NeuGraph's host, at the 1 TFLOP/s the generic machines have used).
 * Links: PCIe 3.0 x16 moves about 12 GB/s per direction in practice
 * (NeuGraph §5 measures 11-12 GB/s), 76% of its 15.75 GB/s; PCIe 4.0 and
 * 5.0 are taken at the same 76% of twice and four times that (an
 * assumption); 2.5 us per hop (a DMA's setup, half of a copy's ~5 us over
 * a switch). NVLink per link ("brick") and direction: 20 GB/s (1.0, P100),
 * 25 GB/s (2.0 V100, 3.0 A100, 4.0 H100). QPI: two links at 9.6 GT/s
 * (E5-2690 v4), 38.4 GB/s each way; UPI: two at 10.4 GT/s, 41.6 GB/s. */
#include "catalog.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0
#define LAUNCH 5e-6
/* Calibrated on an H200 (2026-11-26, scripts/gpu_batch.sh: a 2M-vertex,
 * 52M-edge GCN, hidden 256, traced with CUPTI, against the same run
 * simulated at the H200's peaks): cuBLAS's sgemm reached 0.50-0.57 of the
 * FP32 peak; gathers 0.66 of the memory peak over 128-wide rows and
 * 0.24-0.29 over 16-wide ones (0.52 together), elementwise kernels 0.50.
 * The H100 shares the H200's SMs: the same fractions (an assumption: no
 * H100 was lent). Other GPUs run at their datasheet peaks (uncalibrated). */
#define HOPPER_FLOPS 0.55
#define HOPPER_BW 0.52

static const gpu_model_t gpus[] = {
    {"p100-pcie", 9.3e12, 732e9, 16 * GIB, LAUNCH, 1, 1, "Tesla P100 PCIe 16 GB (NeuGraph's GPU)"},
    {"p100-sxm2", 10.6e12, 732e9, 16 * GIB, LAUNCH, 1, 1, "Tesla P100 SXM2 16 GB, NVLink 1.0 (ROC's GPU)"},
    {"v100-pcie", 14e12, 900e9, 16 * GIB, LAUNCH, 1, 1, "Tesla V100 PCIe 16 GB (NeutronStar's IBV cluster)"},
    {"v100-sxm2", 15.7e12, 900e9, 16 * GIB, LAUNCH, 1, 1, "Tesla V100 SXM2 16 GB, NVLink 2.0"},
    {"t4", 8.1e12, 320e9, 16 * GIB, LAUNCH, 1, 1, "Tesla T4 16 GB GDDR6 (NeutronStar's Aliyun gn6i cluster)"},
    {"rtx3090", 35.6e12, 936e9, 24 * GIB, LAUNCH, 1, 1, "GeForce RTX 3090 24 GB GDDR6X (GraphTensor's GPU)"},
    {"a100-pcie", 19.5e12, 1555e9, 40 * GIB, LAUNCH, 1, 1, "A100 PCIe 40 GB HBM2"},
    {"h100-pcie", 51.2e12, 2.0e12, 80 * GIB, LAUNCH, HOPPER_FLOPS, HOPPER_BW, "H100 PCIe 80 GB HBM2e"},
    {"h200", 67e12, 4.8e12, 141e9, LAUNCH, HOPPER_FLOPS, HOPPER_BW, "H200 SXM 141 GB HBM3e"},
};

static const cpu_model_t cpus[] = {
    {"e5-2690v4", 14, 2.6, 32, 4 * 19.2e9, "Xeon E5-2690 v4: 14 cores, AVX2, 4 x DDR4-2400 (NeuGraph's host)"},
    {"e5-2660v3", 10, 2.6, 32, 4 * 17.0e9,
     "Xeon E5-2660 v3: 10 cores, AVX2, 4 x DDR4-2133 (ROC says only '10-core E5-2600': this model is an assumption)"},
    {"e5-2680v4", 14, 2.4, 32, 4 * 19.2e9,
     "Xeon E5-2680 v4: 14 cores, AVX2, 4 x DDR4-2400 (NeutronStar's IBV nodes; the version is assumed)"},
    {"gold-5317", 12, 3.0, 64, 8 * 23.5e9, "Xeon Gold 5317: 12 cores, AVX-512, 8 x DDR4-2933 (GraphTensor's host)"},
    {"gn6i-16vcpu", 8, 2.5, 64, 128e9 / 3,
     "Aliyun gn6i 16 vCPUs: 8 cores of a Xeon Platinum 8163, AVX-512; a third of the socket's 6 x DDR4-2666 (assumed)"},
    {"platinum-8480", 56, 2.0, 64, 8 * 38.4e9,
     "Xeon Platinum 8480+: 56 cores, AVX-512, 8 x DDR5-4800 (a PCIe 5.0 host)"},
};

static const link_kind_t named_links[] = {
    {"pcie3x16", 12e9, 2.5e-6, "PCIe 3.0 x16"},
    {"pcie4x16", 24e9, 2.5e-6, "PCIe 4.0 x16"},
    {"pcie5x16", 48e9, 2.5e-6, "PCIe 5.0 x16"},
    {"nvlink1", 20e9, 2.5e-6, "NVLink 1.0, per link (P100)"},
    {"nvlink2", 25e9, 2.5e-6, "NVLink 2.0, per link (V100)"},
    {"nvlink3", 25e9, 2.5e-6, "NVLink 3.0, per link (A100)"},
    {"nvlink4", 25e9, 2.5e-6, "NVLink 4.0, per link (H100)"},
    {"qpi", 38.4e9, 1e-6, "QPI between two sockets, two links at 9.6 GT/s"},
    {"upi", 41.6e9, 1e-6, "UPI between two sockets, two links at 10.4 GT/s"},
};

#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

const gpu_model_t *gpu_model_at(int i) { return i >= 0 && i < COUNT(gpus) ? &gpus[i] : NULL; }
const cpu_model_t *cpu_model_at(int i) { return i >= 0 && i < COUNT(cpus) ? &cpus[i] : NULL; }
const link_kind_t *link_kind_at(int i) { return i >= 0 && i < COUNT(named_links) ? &named_links[i] : NULL; }

const gpu_model_t *gpu_model_find(const char *name)
{
    for (int i = 0; i < COUNT(gpus); i++)
        if (strcmp(gpus[i].name, name) == 0) return &gpus[i];
    return NULL;
}

const cpu_model_t *cpu_model_find(const char *name)
{
    for (int i = 0; i < COUNT(cpus); i++)
        if (strcmp(cpus[i].name, name) == 0) return &cpus[i];
    return NULL;
}

double gpu_model_flops(const gpu_model_t *g) { return g->flops * g->flops_sustained; }
double gpu_model_bw(const gpu_model_t *g) { return g->bw * g->bw_sustained; }

double cpu_socket_flops(const cpu_model_t *c)
{
    return c->cores * c->ghz * 1e9 * c->flops_per_cycle * CPU_FLOPS_SUSTAINED;
}
double cpu_socket_bw(const cpu_model_t *c) { return c->mem_peak * CPU_MEM_SUSTAINED; }

/* "pcieGxW": generation 3-5, width 1, 2, 4, 8 or 16, the x16 rate scaled by the width. */
static int pcie_kind(const char *name, link_kind_t *out)
{
    int gen, width;
    char tail;
    if (sscanf(name, "pcie%dx%d%c", &gen, &width, &tail) != 2 || gen < 3 || gen > 5) return -1;
    if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16) return -1;
    *out = named_links[gen - 3];
    out->name = named_links[gen - 3].name;
    out->bw *= width / 16.0;
    return 0;
}

int link_kind_find(const char *name, link_kind_t *out)
{
    if (strncmp(name, "pcie", 4) == 0) return pcie_kind(name, out);
    for (int i = 0; i < COUNT(named_links); i++)
        if (strcmp(named_links[i].name, name) == 0) {
            *out = named_links[i];
            return 0;
        }
    return -1;
}

static char gpu_joined[256], cpu_joined[256];
static pthread_once_t joined_once = PTHREAD_ONCE_INIT;

static void join_all(void)
{
    for (int i = 0; i < COUNT(gpus); i++)
        snprintf(gpu_joined + strlen(gpu_joined), sizeof gpu_joined - strlen(gpu_joined), "%s%s", i ? "|" : "",
                 gpus[i].name);
    for (int i = 0; i < COUNT(cpus); i++)
        snprintf(cpu_joined + strlen(cpu_joined), sizeof cpu_joined - strlen(cpu_joined), "%s%s", i ? "|" : "",
                 cpus[i].name);
}

const char *gpu_model_names(void)
{
    pthread_once(&joined_once, join_all);
    return gpu_joined;
}

const char *cpu_model_names(void)
{
    pthread_once(&joined_once, join_all);
    return cpu_joined;
}
