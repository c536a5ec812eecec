/* machine_routes.c - a machine's routes from its tree (machine_file.h
 * says how routes follow it). */
#include <stdio.h>
#include <string.h>

#include "machine_build.h"

int mb_link(mb_t *b, const char *from, const char *to, double bw, double lat)
{
    topology_t *t = b->t;
    if (t->nlinks >= TOPO_MAX_LINKS) return -1;
    topo_link_t *l = &t->links[t->nlinks];
    snprintf(l->name, sizeof l->name, "%s>%s", from, to);
    l->bw = bw, l->latency = lat;
    return t->nlinks++;
}

/* The nodes from a socket down to v, top first; how many. */
static int chain(const mb_t *b, int v, int *out)
{
    int n = 0, tmp[MB_MAX_NODES];
    for (; v >= 0; v = b->node[v].parent)
        tmp[n++] = v;
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

static int add(topo_path_t *p, int link)
{
    if (p->nlinks >= TOPO_MAX_HOPS) return -1;
    p->link[p->nlinks++] = link;
    return 0;
}

/* Up from the node at c[n-1] to c[keep] (exclusive), then down d[keep+1..m). */
static int walk(const mb_t *b, topo_path_t *p, const int *c, int n, const int *d, int m, int keep, int bridge)
{
    int bad = 0;
    for (int i = n - 1; i > keep; i--)
        bad |= add(p, b->node[c[i]].up);
    if (bridge >= 0) bad |= add(p, bridge);
    for (int i = keep + 1; i < m; i++)
        bad |= add(p, b->node[d[i]].down);
    return bad;
}

static int gpu_routes(mb_t *b, int d)
{
    topology_t *t = b->t;
    int cd[MB_MAX_NODES] = {0}, n = chain(b, b->gpu_node[d], cd), k = b->node[cd[0]].socket, bad = 0;
    int root0[1] = {0};
    memset(&t->h2d[d], 0, sizeof t->h2d[d]), memset(&t->d2h[d], 0, sizeof t->d2h[d]);
    bad |= walk(b, &t->h2d[d], root0, 1, cd, n, 0, k ? b->socket_link[0] : -1);
    bad |= walk(b, &t->d2h[d], cd, n, root0, 1, 0, k ? b->socket_link[1] : -1);
    for (int e = 0; e < t->ndev; e++) {
        topo_path_t *p = &t->d2d[d][e];
        memset(p, 0, sizeof *p);
        if (e == d) continue;
        if (b->nv[d][e] >= 0) {
            add(p, b->nv[d][e]);
            continue;
        }
        int ce[MB_MAX_NODES] = {0}, m = chain(b, b->gpu_node[e], ce), ke = b->node[ce[0]].socket, lca = 0;
        if (ke != k) {
            bad |= walk(b, p, cd, n, ce, m, 0, b->socket_link[k]);
            continue;
        }
        while (lca + 1 < n && lca + 1 < m && cd[lca + 1] == ce[lca + 1])
            lca++;
        bad |= walk(b, p, cd, n, ce, m, lca, -1);
    }
    return bad;
}

int mb_routes(mb_t *b, char *why, int n)
{
    topology_t *t = b->t;
    int parents[TOPO_MAX_DEV], ngroups = 0;
    for (int d = 0; d < t->ndev; d++) {
        if (gpu_routes(b, d)) {
            snprintf(why, n, "a route from gpu%d is longer than %d links", d, TOPO_MAX_HOPS);
            return -1;
        }
        int p = b->node[b->gpu_node[d]].parent, g = 0;
        while (g < ngroups && parents[g] != p)
            g++;
        if (g == ngroups) parents[ngroups++] = p;
        t->group[d] = g;
    }
    return 0;
}
