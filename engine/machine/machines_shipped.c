/* machines_shipped.c - the machines gnnscope ships, as machine files
 * (machine_file.h). The generic four keep the rounded numbers every
 * earlier release used (a V100-class GPU, a 1 TFLOP/s, 130 GB/s host);
 * the papers' machines take their parts from the catalog (catalog.c says
 * where each number comes from). `gnnscope topologies --show NAME` prints
 * one, a starting point for a user's own file. */
#include "machines_shipped.h"

#include <stddef.h>
#include <string.h>

#define GENERIC_HOST "host e5-2690v4 sockets 1 flops 1e12 bw 130e9 # rounded: both sockets of NeuGraph's host as one\n"

static const shipped_machine_t machines[] = {
    {"1gpu", "machine 1gpu\n"
             "about one GPU on PCIe 3.0 x16 behind a switch (generic)\n" GENERIC_HOST "gpu v100-pcie\n"
             "switch sw0 on socket0 link pcie3x16\n"
             "gpus 1 on sw0 link pcie3x16\n"},
    {"pcie-4gpu-2switch",
     "machine pcie-4gpu-2switch\n"
     "about 4 GPUs, 2 PCIe switches, one shared x16 uplink per switch (NeuGraph Fig. 7; generic)\n" GENERIC_HOST
     "gpu v100-pcie\n"
     "switch sw0 on socket0 link pcie3x16\n"
     "switch sw1 on socket0 link pcie3x16\n"
     "gpus 2 on sw0 link pcie3x16\n"
     "gpus 2 on sw1 link pcie3x16\n"},
    {"nvlink-4", "machine nvlink-4\n"
                 "about 4 GPUs, each on its own PCIe x16, all-to-all NVLink (generic)\n" GENERIC_HOST "gpu v100-pcie\n"
                 "gpus 4 on socket0 link pcie3x16\n"
                 "nvlink all nvlink2\n"},
    {"pcie-8gpu", "machine pcie-8gpu\n"
                  "about 8 GPUs, 4 PCIe switches of 2, two sockets joined by QPI, host memory on socket 0 (generic)\n"
                  "host e5-2690v4 sockets 2 flops 0.5e12 bw 65e9 # rounded, as the other generic machines\n"
                  "gpu v100-pcie\n"
                  "switch sw0 on socket0 link pcie3x16\nswitch sw1 on socket0 link pcie3x16\n"
                  "switch sw2 on socket1 link pcie3x16\nswitch sw3 on socket1 link pcie3x16\n"
                  "socket-link qpi\n"
                  "gpus 2 on sw0 link pcie3x16\ngpus 2 on sw1 link pcie3x16\ngpus 2 on sw2 link pcie3x16\ngpus 2 on "
                  "sw3 link pcie3x16\n"},
    {"neugraph-8xp100",
     "machine neugraph-8xp100\n"
     "about NeuGraph sec. 5: 8 P100 PCIe, 4 PCIe 3.0 switches of 2, two E5-2690 v4 joined by QPI (Fig. 7)\n"
     "host e5-2690v4 sockets 2\ngpu p100-pcie\n"
     "switch sw0 on socket0 link pcie3x16\nswitch sw1 on socket0 link pcie3x16\n"
     "switch sw2 on socket1 link pcie3x16\nswitch sw3 on socket1 link pcie3x16\n"
     "socket-link qpi\n"
     "gpus 2 on sw0 link pcie3x16\ngpus 2 on sw1 link pcie3x16\ngpus 2 on sw2 link pcie3x16\ngpus 2 on sw3 link "
     "pcie3x16\n"},
    {"roc-4x4p100",
     "machine roc-4x4p100\n"
     "about ROC sec. 5: 4 nodes of 4 P100 SXM2 (all-to-all NVLink 1.0), two 10-core E5-2600, 100 Gb/s EDR\n"
     "host e5-2660v3 sockets 2\ngpu p100-sxm2\n"
     "switch sw0 on socket0 link pcie3x16\nswitch sw1 on socket1 link pcie3x16\n"
     "socket-link qpi\n"
     "gpus 2 on sw0 link pcie3x16\ngpus 2 on sw1 link pcie3x16\n"
     "nvlink all nvlink1\n"
     "cluster nodes 4 network ib-edr\n"},
    {"graphtensor-3090", "machine graphtensor-3090\n"
                         "about GraphTensor sec. V: one RTX 3090 on PCIe 4.0 x16, a 12-core Xeon Gold 5317\n"
                         "host gold-5317\ngpu rtx3090\ngpus 1 on socket0 link pcie4x16\n"},
    {"ns-16xt4-6g", "machine ns-16xt4-6g\n"
                    "about NeutronStar sec. 5: 16 Aliyun gn6i nodes (one T4, 16 vCPUs each), 6 Gb/s network\n"
                    "host gn6i-16vcpu\ngpu t4\ngpus 1 on socket0 link pcie3x16\n"
                    "cluster nodes 16 network eth-6g\n"},
    {"ns-8xv100-ib",
     "machine ns-8xv100-ib\n"
     "about NeutronStar sec. 2 and 5: the IBV cluster, 8 nodes of one V100 and one E5-2680, 100 Gb/s EDR\n"
     "host e5-2680v4\ngpu v100-pcie\ngpus 1 on socket0 link pcie3x16\n"
     "cluster nodes 8 network ib-edr\n"},
    {"p100-pcie3", "machine p100-pcie3\nabout one P100 PCIe on PCIe 3.0 x16, an E5-2690 v4 host\n"
                   "host e5-2690v4\ngpu p100-pcie\ngpus 1 on socket0 link pcie3x16\n"},
    {"v100-pcie3", "machine v100-pcie3\nabout one V100 PCIe on PCIe 3.0 x16, an E5-2690 v4 host\n"
                   "host e5-2690v4\ngpu v100-pcie\ngpus 1 on socket0 link pcie3x16\n"},
    {"t4-pcie3", "machine t4-pcie3\nabout one T4 on PCIe 3.0 x16, a gn6i host (NeutronStar's node alone)\n"
                 "host gn6i-16vcpu\ngpu t4\ngpus 1 on socket0 link pcie3x16\n"},
    {"a100-pcie4", "machine a100-pcie4\nabout one A100 PCIe 40 GB on PCIe 4.0 x16, a Xeon Gold 5317 host\n"
                   "host gold-5317\ngpu a100-pcie\ngpus 1 on socket0 link pcie4x16\n"},
    {"h100-pcie5", "machine h100-pcie5\nabout one H100 PCIe on PCIe 5.0 x16, a Xeon Platinum 8480+ host\n"
                   "host platinum-8480\ngpu h100-pcie\ngpus 1 on socket0 link pcie5x16\n"},
    {"h200-pcie5", "machine h200-pcie5\nabout one H200 SXM reached over PCIe 5.0 x16, a Xeon Platinum 8480+ host\n"
                   "host platinum-8480\ngpu h200\ngpus 1 on socket0 link pcie5x16\n"},
    {NULL, NULL},
};

const shipped_machine_t *shipped_machine_at(int i)
{
    return i >= 0 && i < (int)(sizeof machines / sizeof machines[0]) - 1 ? &machines[i] : NULL;
}

const shipped_machine_t *shipped_machine_find(const char *name)
{
    for (const shipped_machine_t *m = machines; m->name; m++)
        if (strcmp(m->name, name) == 0) return m;
    return NULL;
}
