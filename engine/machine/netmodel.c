/* netmodel.c - see netmodel.h. Bandwidths are the links' line rates;
 * the latencies are assumptions (one switch hop and the software stack:
 * tens of microseconds on Ethernet, 2 us on InfiniBand). */
#include "netmodel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const network_t networks[] = {
    {"native", 0, 0, "no model: loopback speed, no emulated network time"},
    {"eth-1g", 125e6, 50e-6, "1 Gb/s Ethernet: 125 MB/s per direction, 50 us"},
    {"eth-6g", 0.75e9, 50e-6, "6 Gb/s Ethernet (Aliyun gn6i, NeutronStar sec. 5): 0.75 GB/s per direction, 50 us"},
    {"eth-10g", 1.25e9, 20e-6, "10 Gb/s Ethernet: 1.25 GB/s per direction, 20 us"},
    {"eth-25g", 3.125e9, 15e-6, "25 Gb/s Ethernet: 3.125 GB/s per direction, 15 us"},
    {"ib-edr", 12.5e9, 2e-6, "100 Gb/s InfiniBand EDR (ROC, NeutronStar's IBV): 12.5 GB/s per direction, 2 us"},
    {"ib-hdr", 25e9, 2e-6, "200 Gb/s InfiniBand HDR: 25 GB/s per direction, 2 us"},
};

const char *network_names(void) { return "native|eth-1g|eth-6g|eth-10g|eth-25g|ib-edr|ib-hdr"; }

const network_t *network_at(int i)
{
    return i >= 0 && i < (int)(sizeof networks / sizeof networks[0]) ? &networks[i] : NULL;
}

int network_get(const char *name, network_t *out, gs_err_t *err)
{
    for (const network_t *n = networks; n < networks + sizeof networks / sizeof networks[0]; n++)
        if (strcmp(n->name, name) == 0) {
            *out = *n;
            return GS_OK;
        }
    return gs_fail(err, GS_EINPUT, "--network %s: unknown (choose %s)", name, network_names());
}

double nic_send(nic_t *n, double ready, double bytes)
{
    if (n->net.bw <= 0) return ready;
    double start = fmax(ready, n->send_free);
    n->send_free = start + bytes / n->net.bw;
    return n->send_free;
}

double nic_recv(nic_t *n, double depart_end, double bytes)
{
    if (n->net.bw <= 0) return depart_end;
    double in = fmax(depart_end + n->net.latency, n->recv_free + bytes / n->net.bw);
    n->recv_free = in;
    return in;
}

double nic_load_s(const nic_t *n, double bytes)
{
    return n->pcie_bw <= 0 || bytes <= 0 ? 0 : n->pcie_lat + bytes / n->pcie_bw;
}

double nic_stage_out(nic_t *n, double ready, double bytes)
{
    if (n->pcie_bw <= 0 || bytes <= 0) return ready;
    return n->d2h_free = fmax(ready, n->d2h_free) + nic_load_s(n, bytes);
}

double nic_stage_in(nic_t *n, double in, double bytes)
{
    if (n->pcie_bw <= 0 || bytes <= 0) return in;
    return n->h2d_free = fmax(in, n->h2d_free) + nic_load_s(n, bytes);
}

double net_allreduce_s(const network_t *net, int ranks, double bytes)
{
    if (net->bw <= 0 || ranks < 2) return 0;
    return 2.0 * (ranks - 1) / ranks * bytes / net->bw + 2.0 * (ranks - 1) * net->latency;
}
