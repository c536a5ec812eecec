/* topology.c - the shipped topologies. Nominal numbers: PCIe 3.0 x16 moves
 * about 12 GB/s per direction in practice (NeuGraph §5 measures ~11-12);
 * a copy pays about 5 us before its bytes flow (a DMA's setup, as a
 * cudaMemcpyAsync costs), 2.5 us per hop of a two-hop host-GPU path; NVLink 2 about 25 GB/s per direction per
 * link; the modeled GPU is a V100-class device at 14 TFLOP/s FP32 and
 * 900 GB/s, with 5 us per kernel launch; the modeled host is a two-socket
 * server like NeuGraph's (28 cores, about 1 TFLOP/s FP32, 130 GB/s). */
#include "topology.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define PCIE3 12e9
#define PCIE_LAT 2.5e-6
#define NVLINK 25e9
#define QPI 38.4e9 /* two QPI links at 9.6 GT/s (Xeon E5-2690 v4), each way */
#define QPI_LAT 1e-6
#define NVLINK_LAT 2.5e-6
#define GPU_FLOPS 14e12
#define GPU_BW 900e9
#define LAUNCH_S 5e-6
#define HOST_FLOPS 1e12
#define HOST_BW 130e9

static const char *const names[] = {"1gpu", "pcie-4gpu-2switch", "nvlink-4", "pcie-8gpu", NULL};

const char *const *topology_names(void) { return names; }

static char joined[128];
static pthread_once_t joined_once = PTHREAD_ONCE_INIT;

static void join_names(void)
{
    for (int i = 0; names[i]; i++) snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", i ? "|" : "", names[i]);
}

const char *topology_names_joined(void)
{
    pthread_once(&joined_once, join_names);
    return joined;
}

const char *topology_for_devices(int n)
{
    const char *best = NULL;
    int fewest = TOPO_MAX_DEV + 1;
    topology_t t;
    for (int i = 0; names[i]; i++)
        if (topology_get(names[i], &t) == 0 && t.ndev >= n && t.ndev < fewest) fewest = t.ndev, best = names[i];
    return best;
}

static int add_link(topology_t *t, const char *name, double bw, double lat)
{
    topo_link_t *l = &t->links[t->nlinks];
    snprintf(l->name, sizeof l->name, "%s", name);
    l->bw = bw, l->latency = lat;
    return t->nlinks++;
}

static void path(topo_path_t *p, int n, const int *links)
{
    p->nlinks = n;
    for (int i = 0; i < n; i++) p->link[i] = links[i];
}

/* GPUs behind switches: per switch an uplink pair (its socket's root
 * complex <-> switch), per GPU a downlink pair (switch <-> GPU). Peers
 * under one switch route through it; peers under different switches go up
 * through their socket's root complex. With two sockets the switches are
 * split between them, joined by QPI (a pair of links), and host memory is
 * on socket 0 (no NUMA-aware placement, as NeuGraph notes of TensorFlow):
 * socket 1's GPUs cross QPI to reach it, and peers on different sockets
 * cross it to reach each other. */
static void switched(topology_t *t, int nswitch, int per_switch, int nsocket)
{
    int up_h2s[4] = {0}, up_s2h[4] = {0}, dn_s2g[8] = {0}, dn_g2s[8] = {0}, qpi[2] = {-1, -1};
    char nm[24];
    t->ndev = nswitch * per_switch;
    for (int s = 0; s < nswitch; s++) {
        snprintf(nm, sizeof nm, "host>sw%d", s);
        up_h2s[s] = add_link(t, nm, PCIE3, PCIE_LAT);
        snprintf(nm, sizeof nm, "sw%d>host", s);
        up_s2h[s] = add_link(t, nm, PCIE3, PCIE_LAT);
    }
    if (nsocket == 2) qpi[0] = add_link(t, "qpi0>1", QPI, QPI_LAT), qpi[1] = add_link(t, "qpi1>0", QPI, QPI_LAT);
    for (int d = 0; d < t->ndev; d++) {
        snprintf(nm, sizeof nm, "sw%d>gpu%d", d / per_switch, d);
        dn_s2g[d] = add_link(t, nm, PCIE3, PCIE_LAT);
        snprintf(nm, sizeof nm, "gpu%d>sw%d", d, d / per_switch);
        dn_g2s[d] = add_link(t, nm, PCIE3, PCIE_LAT);
        t->group[d] = d / per_switch;
    }
    int per_socket = nswitch / nsocket;
    for (int d = 0; d < t->ndev; d++) {
        int s = d / per_switch, k = s / per_socket;
        if (k == 0) path(&t->h2d[d], 2, (int[]){up_h2s[s], dn_s2g[d]}), path(&t->d2h[d], 2, (int[]){dn_g2s[d], up_s2h[s]});
        else path(&t->h2d[d], 3, (int[]){qpi[0], up_h2s[s], dn_s2g[d]}), path(&t->d2h[d], 3, (int[]){dn_g2s[d], up_s2h[s], qpi[1]});
        for (int e = 0; e < t->ndev; e++) {
            int se = e / per_switch, ke = se / per_socket;
            if (e == d) continue;
            if (se == s) path(&t->d2d[d][e], 2, (int[]){dn_g2s[d], dn_s2g[e]});
            else if (ke == k) path(&t->d2d[d][e], 4, (int[]){dn_g2s[d], up_s2h[s], up_h2s[se], dn_s2g[e]});
            else path(&t->d2d[d][e], 5, (int[]){dn_g2s[d], up_s2h[s], qpi[k], up_h2s[se], dn_s2g[e]});
        }
    }
}

int topology_get(const char *name, topology_t *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->gpu_flops = GPU_FLOPS, t->gpu_bw = GPU_BW, t->launch_s = LAUNCH_S;
    t->host_flops = HOST_FLOPS, t->host_bw = HOST_BW;
    if (strcmp(name, "1gpu") == 0) {
        snprintf(t->summary, sizeof t->summary, "one GPU on PCIe 3.0 x16");
        switched(t, 1, 1, 1);
    } else if (strcmp(name, "pcie-4gpu-2switch") == 0) {
        snprintf(t->summary, sizeof t->summary, "4 GPUs, 2 PCIe switches, one shared x16 uplink per switch (NeuGraph Fig. 7)");
        switched(t, 2, 2, 1);
    } else if (strcmp(name, "pcie-8gpu") == 0) {
        snprintf(t->summary, sizeof t->summary, "8 GPUs, 4 PCIe switches of 2, two sockets joined by QPI, host memory on socket 0 (NeuGraph's 8-GPU server)");
        switched(t, 4, 2, 2);
    } else if (strcmp(name, "nvlink-4") == 0) {
        snprintf(t->summary, sizeof t->summary, "4 GPUs, each on its own PCIe x16, all-to-all NVLink");
        t->ndev = 4;
        int hd[4], dh[4];
        char nm[24];
        for (int d = 0; d < 4; d++) {
            snprintf(nm, sizeof nm, "host>gpu%d", d);
            hd[d] = add_link(t, nm, PCIE3, PCIE_LAT);
            snprintf(nm, sizeof nm, "gpu%d>host", d);
            dh[d] = add_link(t, nm, PCIE3, PCIE_LAT);
            path(&t->h2d[d], 1, &hd[d]);
            path(&t->d2h[d], 1, &dh[d]);
            t->group[d] = 0;
        }
        for (int d = 0; d < 4; d++)
            for (int e = 0; e < 4; e++) {
                if (d == e) continue;
                snprintf(nm, sizeof nm, "nv%d>%d", d, e);
                int l = add_link(t, nm, NVLINK, NVLINK_LAT);
                path(&t->d2d[d][e], 1, &l);
            }
    } else {
        return -1;
    }
    return 0;
}

void topology_scale(topology_t *t, double s)
{
    for (int i = 0; i < t->nlinks; i++) t->links[i].bw *= s;
}
