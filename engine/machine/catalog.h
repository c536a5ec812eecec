/* catalog.h - the parts a machine file names (engine/machine/machine_file.h):
 * GPU models, host CPU models and link kinds, with their published numbers.
 * Sources and the few assumptions are in catalog.c beside each entry.
 *
 * Limits: one FP32 rate and one memory bandwidth per GPU (no tensor cores,
 * no clock boost), each at one sustained fraction for every kernel (a
 * wide gather and a narrow one differ by 2.5x on an H200: catalog.c); a
 * CPU is modeled by its sustained FP32 rate and memory bandwidth per
 * socket; a link by its effective bandwidth per direction and
 * a latency per hop, so a copy of B bytes takes latency + B / bandwidth
 * and reaches half speed at latency x bandwidth bytes (the size-efficiency
 * curve of a DMA copy). */
#ifndef GS_CATALOG_H
#define GS_CATALOG_H

typedef struct {
    const char *name;
    double flops;    /* FP32 FLOP/s, the vendor's peak */
    double bw;       /* memory bandwidth, bytes/s */
    double mem;      /* memory capacity, bytes */
    double launch_s; /* kernel launch cost, s */
    double flops_sustained, bw_sustained; /* fractions of the peaks gnnscope's kernels reach (1: uncalibrated) */
    const char *about;
} gpu_model_t;

typedef struct {
    const char *name;
    int cores;          /* per socket */
    double ghz;         /* base clock */
    int flops_per_cycle; /* FP32 per core per cycle: 32 with AVX2 (2 FMA units), 64 with AVX-512 */
    double mem_peak;    /* memory bandwidth per socket at its channels' peak, bytes/s */
    const char *about;
} cpu_model_t;

typedef struct {
    const char *name;
    double bw;      /* effective bytes/s per direction */
    double latency; /* s per hop */
    const char *about;
} link_kind_t;

/* Sustained fractions of a CPU's peak (catalog.c says where they come from). */
#define CPU_FLOPS_SUSTAINED 0.43
#define CPU_MEM_SUSTAINED 0.85

const gpu_model_t *gpu_model_find(const char *name);
const gpu_model_t *gpu_model_at(int i); /* NULL past the last */
const cpu_model_t *cpu_model_find(const char *name);
const cpu_model_t *cpu_model_at(int i);
/* "pcie3x16" (generation 3-5, width 1-16), "nvlink1".."nvlink4", "qpi", "upi". */
int link_kind_find(const char *name, link_kind_t *out);
const link_kind_t *link_kind_at(int i); /* the named kinds (PCIe listed at x16) */
/* A GPU's modeled FP32 rate and memory bandwidth: its peaks at its
 * sustained fractions. */
double gpu_model_flops(const gpu_model_t *g);
double gpu_model_bw(const gpu_model_t *g);
/* A socket's modeled (sustained) FP32 rate and memory bandwidth. */
double cpu_socket_flops(const cpu_model_t *c);
double cpu_socket_bw(const cpu_model_t *c);
/* The catalog's names joined with "|" (for errors). */
const char *gpu_model_names(void);
const char *cpu_model_names(void);

#endif
