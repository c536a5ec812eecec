/* cuda_plugin.h - the interface of libgnnscope_cuda.so, the CUDA backend
 * (docs/ARCHITECTURE.md, "Backends"). The main binary never links CUDA: it loads the plugin
 * with dlopen the first time a GPU is asked for, and the plugin hands back
 * one table. Through it come the kernel table for training in GPU memory
 * (kops.h), the streaming backend whose logical devices share one GPU
 * (backend.h), and CUPTI/NVML profiling: spans of every kernel and copy,
 * tagged with their chunk through CUPTI external correlation ids, and
 * windowed GPU metrics. */
#ifndef GS_CUDA_PLUGIN_H
#define GS_CUDA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "base/error.h"
#include "engine/kernels/kops.h"

#define GS_CUDA_ENTRY "gs_cuda_plugin"

/* One kernel, copy or memset as the GPU ran it (CUPTI activity record),
 * times in CLOCK_MONOTONIC seconds. dev is the logical device. */
typedef struct {
    int dev;
    lane_t lane;
    chunk_tag_t tag; /* row < 0: not a chunk's work (a whole-graph op) */
    double t0, t1, bytes;
    char name[24];
} gpu_span_t;

typedef void (*gpu_span_hook_t)(void *user, const gpu_span_t *span);

/* Windowed metrics; each has its own validity flag, and an invalid one
 * must be shown as unavailable, never as zero. */
typedef struct {
    char gpu[64];
    double window_s;
    int busy_valid;    /* CUPTI: union of kernel intervals over the window */
    double busy;
    int pcie_valid;    /* CUPTI memcpy records */
    double h2d_Bps, d2h_Bps, d2d_Bps;
    int nvml_util_valid; /* NVML utilisation rate */
    double nvml_util;
    int nvml_pcie_valid; /* NVML PCIe throughput counters */
    double nvml_tx_Bps, nvml_rx_Bps;
    int nvml_mem_valid;
    double mem_used, mem_total;
} gpu_metrics_t;

typedef struct gs_cuda {
    uint64_t abi; /* gs_cuda_abi() as the plugin was compiled; stays the first field */
    const kops_t *kops;
    const backend_ops_t *backend;
    /* 0 when a GPU answers; otherwise why not, in one line. */
    int (*probe)(char *why, size_t n);
    /* Starts CUPTI activity collection (and NVML when the driver has it);
     * spans go to hook from the plugin's flush thread. */
    int (*prof_start)(gpu_span_hook_t hook, void *user, char *why, size_t n);
    void (*prof_flush)(void);
    void (*prof_stop)(void);
    void (*metrics)(gpu_metrics_t *out); /* the last second (ending 0.2 s ago) */
    /* CUPTI's busy share and copy rates over [t0, t1], CLOCK_MONOTONIC
     * seconds (prof_now_ns's clock): an epoch's real utilisation. */
    void (*metrics_between)(double t0, double t1, gpu_metrics_t *out);
} gs_cuda_t;

/* A signature of every struct the binary and the plugin share, from their
 * sizes and field offsets as this compilation lays them out: a plugin built
 * against other headers has another signature and is refused. Bump
 * GS_CUDA_ABI_REVISION when a shared struct changes meaning but not layout. */
#define GS_CUDA_ABI_REVISION 3
#define GS_ABI_MIX(h, v) (((h) ^ (uint64_t)(v)) * 0x100000001b3ULL)
static inline uint64_t gs_cuda_abi(void)
{
    const uint64_t v[] = {
        GS_CUDA_ABI_REVISION, sizeof(gs_cuda_t), sizeof(kops_t), offsetof(kops_t, adam), sizeof(backend_ops_t),
        offsetof(backend_ops_t, reset_stats), sizeof(kernel_call_t), offsetof(kernel_call_t, flops),
        offsetof(kernel_call_t, b), sizeof(graph_t), offsetof(graph_t, nsrc), offsetof(graph_t, aux), sizeof(ew_args_t),
        offsetof(ew_args_t, key), sizeof(chunk_tag_t), sizeof(gpu_span_t), sizeof(gpu_metrics_t), sizeof(backend_cfg_t),
        sizeof(backend_stats_t), sizeof(topology_t), TOPO_MAX_DEV, LANE__COUNT, OP__COUNT,
    };
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) h = GS_ABI_MIX(h, v[i]);
    return h;
}

/* Loads the plugin and checks that a GPU answers. NULL with err set
 * (GS_EINPUT) when either fails; err says which and why. */
const gs_cuda_t *gs_cuda_get(gs_err_t *err);
/* The plugin if gs_cuda_get succeeded before, else NULL. */
const gs_cuda_t *gs_cuda_loaded(void);

#endif
