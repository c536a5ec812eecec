/* cmd_topologies.c - `gnnscope topologies`: the shipped machines with
 * their GPUs, host and links, then the cluster networks (--network);
 * `--show NAME|FILE` prints one machine (a shipped one as its machine
 * file, the start of a user's own); `--parts` lists the catalog a
 * machine file names its parts from. */
#include <stdio.h>
#include <string.h>

#include "base/parse.h"
#include "engine/machine/catalog.h"
#include "engine/machine/netmodel.h"
#include "engine/machine/topology.h"
#include "commands.h"

static const char usage[] =
    "usage: gnnscope topologies [--brief | --show NAME|FILE | --parts]\n"
    "  Lists the shipped machines (--topology NAME) with their GPUs, host and links, then the\n"
    "  cluster networks (--network). --brief: one line each; --show: one machine, a shipped one\n"
    "  as its machine file (a start for your own: --topology ./my.machine); --parts: the GPUs,\n"
    "  CPUs and link kinds a machine file can name.\n";

static void headline(const topology_t *t)
{
    char mem[32];
    gs_format_bytes(t->gpu_mem, mem, sizeof mem);
    printf("%-18s %d x %s (%.1f TFLOP/s, %.0f GB/s, %s each); host %d x %s (%.2f TFLOP/s, %.0f GB/s)", t->name, t->ndev,
           t->gpu_model, t->gpu_flops / 1e12, t->gpu_bw / 1e9, mem, t->sockets, t->host_model, t->host_flops / 1e12,
           t->host_bw / 1e9);
    if (t->nodes > 1) printf("; %d nodes on %s", t->nodes, t->network);
    printf("\n%-18s %s\n", "", t->summary);
}

static void links(const topology_t *t)
{
    for (int l = 0; l < t->nlinks; l++) {
        char half[32];
        gs_format_bytes(t->links[l].bw * t->links[l].latency, half, sizeof half);
        printf("    link %-12s %6.1f GB/s  %5.1f us  (half speed at %s)\n", t->links[l].name, t->links[l].bw / 1e9,
               t->links[l].latency * 1e6, half);
    }
}

static void networks(void)
{
    printf("Cluster networks (--ranks N --network NAME): every rank has one NIC link each way to one switch\n");
    for (int i = 0; network_at(i); i++) {
        const network_t *n = network_at(i);
        if (n->bw > 0)
            printf("%-18s %6.1f Gb/s per NIC  %5.1f us  %s\n", n->name, n->bw * 8 / 1e9, n->latency * 1e6, n->about);
        else
            printf("%-18s no model: the MPI transport's own time\n", n->name);
    }
}

static void parts(void)
{
    printf("GPUs (gpu MODEL):\n");
    for (int i = 0; gpu_model_at(i); i++) {
        const gpu_model_t *g = gpu_model_at(i);
        printf("  %-14s %5.1f TFLOP/s FP32  %5.0f GB/s  %3.0f GiB  %s", g->name, g->flops / 1e12, g->bw / 1e9,
               g->mem / 1073741824.0, g->about);
        if (g->flops_sustained < 1 || g->bw_sustained < 1)
            printf(" (modeled at %.0f%% and %.0f%%: measured)", g->flops_sustained * 100, g->bw_sustained * 100);
        printf("\n");
    }
    printf("Host CPUs (host CPU [sockets N]; per socket, modeled at %.0f%% of peak FP32 and %.0f%% of peak memory "
           "bandwidth):\n",
           CPU_FLOPS_SUSTAINED * 100, CPU_MEM_SUSTAINED * 100);
    for (int i = 0; cpu_model_at(i); i++) {
        const cpu_model_t *c = cpu_model_at(i);
        printf("  %-14s %5.2f TFLOP/s  %5.0f GB/s  %s\n", c->name, cpu_socket_flops(c) / 1e12, cpu_socket_bw(c) / 1e9,
               c->about);
    }
    printf("Link kinds (link KIND; PCIe as pcieGxW, G 3-5, W 1-16, here at x16):\n");
    for (int i = 0; link_kind_at(i); i++) {
        const link_kind_t *k = link_kind_at(i);
        printf("  %-14s %5.1f GB/s per direction  %4.1f us per hop  %s\n", k->name, k->bw / 1e9, k->latency * 1e6,
               k->about);
    }
}

static int show(const char *name)
{
    topology_t t;
    gs_err_t err;
    if (topology_load(name, &t, &err)) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    const char *text = topology_text(name);
    if (text) printf("%s\n", text);
    headline(&t);
    links(&t);
    return 0;
}

int cmd_topologies(int argc, char **argv)
{
    int brief = argc == 1 && strcmp(argv[0], "--brief") == 0;
    if (argc == 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) return fputs(usage, stdout), 0;
    if (argc == 2 && strcmp(argv[0], "--show") == 0) return show(argv[1]);
    if (argc == 1 && strcmp(argv[0], "--parts") == 0) return parts(), 0;
    if (argc > 0 && !brief) {
        fprintf(stderr, "gnnscope: error: gnnscope topologies: unexpected '%s' (see gnnscope topologies --help)\n",
                argv[0]);
        return 2;
    }
    for (const char *const *nm = topology_names(); *nm; nm++) {
        topology_t t;
        topology_get(*nm, &t);
        headline(&t);
        if (!brief) links(&t);
    }
    printf(
        "Times on the cpu backend are emulated: copies take the modeled time on these links; a copy of B bytes takes\n"
        "its route's latency + B / its narrowest share of bandwidth. With no --device-mem, a device holds its GPU's "
        "memory.\n\n");
    networks();
    return 0;
}
