/* edge_store.h - device memory for sub-chunks' edge structures (NeuGraph
 * §3.1): the size of a packed structure, and a per-device store of the
 * structures kept on the devices between passes (each one device
 * allocation, found by a key the caller makes). It knows nothing of
 * passes: edge_chunks.h decides what to keep and when to give up.
 * Internal to engine/stream. */
#ifndef GS_EDGE_STORE_H
#define GS_EDGE_STORE_H

#include <stdint.h>

#include "engine/device/backend.h"

typedef struct {
    uint64_t key;
    void *dev;
    size_t bytes;
} edge_entry_t;

typedef struct {
    const backend_ops_t *ops;
    backend_t *b;
    int ndev;
    edge_entry_t *tab[TOPO_MAX_DEV]; /* open addressing, at most half full */
    size_t cap[TOPO_MAX_DEV], n[TOPO_MAX_DEV];
    double held[TOPO_MAX_DEV]; /* device bytes kept */
    int given_up;              /* the cap ran out: structures stream until the knobs change */
} edge_store_t;

/* Device bytes of a packed structure of nout listed rows and nnz edges
 * with `lidx` input-row numberings, weights (weighted) and types (typed). */
size_t edge_struct_bytes(int64_t nout, int64_t nnz, int lidx, int weighted, int typed);

void edge_store_init(edge_store_t *es, const backend_ops_t *ops, backend_t *b, int ndev);
/* The structure kept under key on device d, or NULL. */
void *edge_store_find(edge_store_t *es, int d, uint64_t key);
/* A new device allocation of bytes kept under key on d, or NULL when the
 * device (or the host's table) has no room. */
void *edge_store_add(edge_store_t *es, int d, uint64_t key, size_t bytes);
/* Frees every kept structure; given_up stays. */
void edge_store_drop(edge_store_t *es);
/* Device bytes kept on the fullest device. */
double edge_store_held(const edge_store_t *es);

#endif
