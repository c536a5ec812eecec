/* fuzz_machine.c - libFuzzer harness for machine files
 * (engine/machine/machine_file.h, --topology PATH): the input is the
 * file's text. It parses or is refused with GS_EINPUT and a one-line
 * message naming its source and line; a parsed machine is consistent:
 * 1..8 GPUs, positive rates, every route of at most TOPO_MAX_HOPS links
 * that exist, a route from the host to every GPU and back, and between
 * every two GPUs. */
#include "engine/machine/machine_file.h"
#include "fuzz_util.h"

static void check_route(const topology_t *t, const topo_path_t *p, int must)
{
    if (p->nlinks < (must ? 1 : 0) || p->nlinks > TOPO_MAX_HOPS) abort();
    for (int i = 0; i < p->nlinks; i++)
        if (p->link[i] < 0 || p->link[i] >= t->nlinks || !(t->links[p->link[i]].bw > 0)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char text[16384];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    topology_t t;
    gs_err_t err;
    int rc = machine_parse(text, "fuzz.machine", &t, &err);
    if (rc == GS_EINPUT) {
        if (strncmp(err.msg, "fuzz.machine:", 13) != 0 || strchr(err.msg, '\n')) abort();
        return 0;
    }
    if (rc != GS_OK) abort();
    if (t.ndev < 1 || t.ndev > TOPO_MAX_DEV || t.nlinks > TOPO_MAX_LINKS || !(t.gpu_flops > 0) || !(t.gpu_mem > 0) ||
        !(t.host_flops > 0) || (t.sockets != 1 && t.sockets != 2) || t.nodes < 1)
        abort();
    for (int d = 0; d < t.ndev; d++) {
        check_route(&t, &t.h2d[d], 1), check_route(&t, &t.d2h[d], 1);
        for (int e = 0; e < t.ndev; e++) check_route(&t, &t.d2d[d][e], e != d);
    }
    return 0;
}
