/* topology.h - the modeled machine (docs/ARCHITECTURE.md, "Backends"):
 * a shipped machine by name or a user's machine file (machine_file.h),
 * both in the same text format. A topology has D devices and directed links, each with a
 * bandwidth (bytes/s) and a latency (s); every host->device, device->host
 * and device->device route is a list of links. Full-duplex physical links
 * are two directed links. It also names the modeled GPU's FP32 rate, which
 * --link-scale auto uses to keep the transfer/compute ratio of the modeled
 * machine on a slower host, and its memory bandwidth and launch cost, and
 * the modeled host CPU's rates, which the virtual clock's roofline uses
 * (vclock.h). */
#ifndef GS_TOPOLOGY_H
#define GS_TOPOLOGY_H

#include <stddef.h>

#include "base/error.h"

#define TOPO_MAX_DEV 8
#define TOPO_MAX_LINKS 64
#define TOPO_MAX_HOPS 8

typedef struct {
    char name[24];
    double bw;      /* bytes per second, one direction */
    double latency; /* seconds */
} topo_link_t;

typedef struct {
    int nlinks;
    int link[TOPO_MAX_HOPS];
} topo_path_t;

typedef struct {
    char name[32];
    char summary[160];
    int ndev;
    char gpu_model[24];          /* the GPUs' model (catalog.h) */
    double gpu_mem;              /* each GPU's memory, bytes: the default --device-mem */
    char host_model[24];         /* the host CPU's model */
    int sockets;                 /* host sockets (1 or 2); host memory on socket 0 */
    int nodes;                   /* a cluster's nodes of this machine (1: not a cluster) */
    char network[24];            /* a cluster's network (netmodel.h), "" for one machine */
    double gpu_flops;            /* modeled device FP32 rate, FLOP/s */
    double gpu_bw;               /* modeled device memory bandwidth, bytes/s */
    double launch_s;             /* modeled kernel launch cost, s */
    double host_flops;           /* modeled host CPU FP32 rate (all cores), FLOP/s */
    double host_bw;              /* modeled host memory bandwidth, bytes/s */
    int nlinks;
    topo_link_t links[TOPO_MAX_LINKS];
    topo_path_t h2d[TOPO_MAX_DEV], d2h[TOPO_MAX_DEV];
    topo_path_t d2d[TOPO_MAX_DEV][TOPO_MAX_DEV];
    int group[TOPO_MAX_DEV];     /* devices sharing an upper link (a switch) share a group */
} topology_t;

/* Fills t with a shipped machine (a name) or a machine file (a value with
 * a '/'): GS_OK, or GS_EINPUT naming the file, line and field. (Defined
 * by the parser, machine_file.c.) */
int topology_load(const char *name_or_path, topology_t *t, gs_err_t *err);
/* topology_load without the reason: 0, or -1. */
int topology_get(const char *name, topology_t *t);
/* A shipped machine's text (its machine file), or NULL. */
const char *topology_text(const char *name);
/* NULL-terminated list of the shipped names. */
const char *const *topology_names(void);
/* The names joined with "|". */
const char *topology_names_joined(void);
/* The shipped topology with the fewest devices, at least n (NULL: none). */
const char *topology_for_devices(int n);
/* Multiplies every link bandwidth by s (for --link-scale). */
void topology_scale(topology_t *t, double s);

#endif
