/* machine_build.h - the machine file parser's working state, shared by
 * the statements (machine_file.c) and the routes they imply
 * (machine_routes.c). Internal to engine/machine. */
#ifndef GS_MACHINE_BUILD_H
#define GS_MACHINE_BUILD_H

#include "topology.h"

#define MB_MAX_NODES 48 /* sockets, switches and GPUs */

typedef struct {
    char label[24]; /* in link names: "host" for a socket, a switch's name, "gpuD" */
    char name[24];  /* what a statement calls it: "socket0", a switch's name */
    int parent;     /* node index; -1 for a socket */
    int socket;
    int down, up;   /* links parent>node and node>parent (-1 for a socket) */
} mb_node_t;

typedef struct {
    topology_t *t;
    int nnodes;
    mb_node_t node[MB_MAX_NODES];
    int gpu_node[TOPO_MAX_DEV];
    int socket_link[2];              /* socket 0>1 and 1>0, -1 until given */
    int nv[TOPO_MAX_DEV][TOPO_MAX_DEV]; /* NVLink d>e, -1 where none */
} mb_t;

/* Adds a directed link; its index, or -1 past TOPO_MAX_LINKS. */
int mb_link(mb_t *b, const char *from, const char *to, double bw, double lat);
/* Fills t's routes and groups from the tree: 0, or -1 with why (a route past TOPO_MAX_HOPS). */
int mb_routes(mb_t *b, char *why, int n);

#endif
