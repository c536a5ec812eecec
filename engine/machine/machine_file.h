/* machine_file.h - machines as data: the text format of a machine file,
 * which the shipped machines (machines_shipped.c) and a user's file
 * (--topology PATH) share. One statement per line; '#' starts a comment.
 *
 *   machine NAME                       first; letters, digits, '.', '_', '-'
 *   about TEXT...                      one line for listings
 *   host CPU [sockets 1|2] [flops F] [bw B]
 *                                      the host CPUs (catalog.h); flops and bw
 *                                      override one socket's sustained rates;
 *                                      host memory is on socket 0
 *   socket-link KIND [bw B] [lat S]    joins the two sockets (qpi, upi)
 *   gpu MODEL [flops F] [bw B] [mem BYTES] [launch S]
 *                                      the model of every GPU (catalog.h); flops
 *                                      and bw override its modeled rates (its
 *                                      peaks at their sustained fractions)
 *   switch NAME on PARENT link KIND [bw B] [lat S]
 *                                      a PCIe switch under PARENT: socket0,
 *                                      socket1 or an earlier switch
 *   gpus N on PARENT link KIND [bw B] [lat S]
 *                                      the next N GPUs, each on its own link
 *   nvlink A B|all KIND [links K]      duplex NVLink between GPUs A and B (or
 *                                      every pair), K links wide
 *   cluster nodes N network NET        N such machines on a network (netmodel.h)
 *
 * KIND is a link kind (pcie3x16, pcie4x8, nvlink2, qpi, ...); bw is bytes
 * per second per direction, lat seconds per hop. Routes follow the tree:
 * host memory reaches a GPU down its chain of switches (crossing the
 * socket link from socket 0 when the GPU is on socket 1); two GPUs meet
 * at their lowest common switch or socket, or over NVLink where it joins
 * them. GPUs under one parent form a group (NeuGraph's virtual GPU).
 * Limits: 8 GPUs, 64 directed links, 8 hops, 2 sockets; a tree (no
 * switch with two parents); no NUMA-aware host placement. */
#ifndef GS_MACHINE_FILE_H
#define GS_MACHINE_FILE_H

#include "base/error.h"
#include "topology.h"

/* Parses text (from `source`, named in errors) into t: GS_OK, or
 * GS_EINPUT with "SOURCE:LINE: FIELD: why". */
int machine_parse(const char *text, const char *source, topology_t *t, gs_err_t *err);
/* Reads and parses a machine file (at most 64 KiB of text). */
int machine_load(const char *path, topology_t *t, gs_err_t *err);

#endif
