/* cmd_topologies.c - `gnnscope topologies`: lists the interconnect models
 * with their devices, links and modeled GPU rate, then the cluster
 * networks of distributed runs (--network). */
#include <stdio.h>
#include <string.h>

#include "engine/machine/netmodel.h"
#include "engine/machine/topology.h"
#include "commands.h"

int cmd_topologies(int argc, char **argv)
{
    if (argc == 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
        printf("usage: gnnscope topologies\n  Lists the interconnect models (--topology) with their links, then the cluster networks (--network).\n");
        return 0;
    }
    if (argc > 0) {
        fprintf(stderr, "gnnscope: error: gnnscope topologies takes no arguments\n");
        return 2;
    }
    for (const char *const *nm = topology_names(); *nm; nm++) {
        topology_t t;
        topology_get(*nm, &t);
        printf("%-18s %d device%s, modeled GPU %.1f TFLOP/s: %s\n", t.name, t.ndev, t.ndev > 1 ? "s" : "",
               t.gpu_flops / 1e12, t.summary);
        for (int l = 0; l < t.nlinks; l++)
            printf("    link %-12s %6.1f GB/s  %5.1f us\n", t.links[l].name, t.links[l].bw / 1e9, t.links[l].latency * 1e6);
    }
    printf("Times on the cpu backend are emulated: copies take the modeled time on these links.\n\n");
    printf("Cluster networks (--ranks N --network NAME): every rank has one NIC link each way to one switch\n");
    for (int i = 0; network_at(i); i++) {
        const network_t *n = network_at(i);
        if (n->bw > 0) printf("%-18s %6.1f Gb/s per NIC  %5.1f us\n", n->name, n->bw * 8 / 1e9, n->latency * 1e6);
        else printf("%-18s no model: the MPI transport's own time\n", n->name);
    }
    return 0;
}
