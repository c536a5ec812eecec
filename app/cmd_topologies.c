/* cmd_topologies.c - `gnnscope topologies`: lists the interconnect models
 * with their devices, links and modeled GPU rate. */
#include <stdio.h>

#include "../engine/sched/topology.h"
#include "commands.h"

int cmd_topologies(int argc, char **argv)
{
    (void)argv;
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
    printf("Times on the cpu backend are emulated: copies take the modeled time on these links.\n");
    return 0;
}
