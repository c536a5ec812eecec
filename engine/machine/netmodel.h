/* netmodel.h - an emulated cluster network for ranks on one machine
 * (loopback is far faster than a cluster's network): each rank has a NIC
 * with a send and a receive link of one bandwidth, joined by a
 * non-blocking switch with a one-way latency. On the virtual clock a
 * message's times are modeled, not slept:
 *   sending   it leaves after the sender's earlier messages (the send link
 *             serialises them): last byte out at max(ready, send link
 *             free) + bytes / bandwidth;
 *   receiving it is in at max(last byte out + latency, receive link free
 *             + bytes / bandwidth): concurrent arrivals at one rank share
 *             its receive link one after another, in order of departure.
 * An all-reduce of B bytes over m ranks takes the ring's 2 (m-1)/m B /
 * bandwidth plus 2 (m-1) latencies. "native" models nothing: messages
 * cost no emulated time, on the wall clock what loopback takes.
 * A rank computing on a GPU (NeutronStar's nodes) stages every message
 * through host memory over its PCIe link: a device-to-host copy before
 * the NIC sends it, a host-to-device copy after the NIC has it, each
 * direction one copy after another (latency + bytes / bandwidth). */
#ifndef GS_NETMODEL_H
#define GS_NETMODEL_H

#include "base/error.h"

typedef struct {
    char name[24];
    double bw;      /* bytes/s of each NIC link; 0: native (no model) */
    double latency; /* seconds, one way through the switch */
    const char *about;
} network_t;

typedef struct {
    network_t net;
    double send_free, recv_free;
    double pcie_bw, pcie_lat;   /* the GPU's link to its host; 0: the rank computes on the host, no staging */
    double d2h_free, h2d_free;
} nic_t;

/* The shipped networks by name ("native" included). GS_EINPUT naming the choices. */
int network_get(const char *name, network_t *out, gs_err_t *err);
/* The names joined with "|" (for help and the option table). */
const char *network_names(void);
/* The i-th shipped network, or NULL past the last (for listings). */
const network_t *network_at(int i);

/* When the last byte of a message ready at `ready` leaves this NIC. */
double nic_send(nic_t *n, double ready, double bytes);
/* When a message whose last byte left at depart_end is in at this NIC;
 * call in order of depart_end. */
double nic_recv(nic_t *n, double depart_end, double bytes);
/* When bytes ready on the GPU at `ready` are in host memory (`ready` itself without a GPU). */
double nic_stage_out(nic_t *n, double ready, double bytes);
/* When bytes in host memory at `in` are on the GPU (`in` itself without a GPU); call in order of `in`. */
double nic_stage_in(nic_t *n, double in, double bytes);
/* Seconds to load `bytes` onto the GPU alone on its link (0 without a GPU). */
double nic_load_s(const nic_t *n, double bytes);
/* Seconds of a ring all-reduce of `bytes` over `ranks`. */
double net_allreduce_s(const network_t *net, int ranks, double bytes);

#endif
