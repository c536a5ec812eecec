/* dataset.h - a node-classification dataset held in host memory.
 * Edges are kept as the undirected pair list read from disk; the engine
 * builds CSR/CSC from it (engine/graph/graph.h). Vertex ids are dense, 0..N-1.
 * Limits: N < 2^31 (int32 vertex ids). */
#ifndef GS_DATASET_H
#define GS_DATASET_H

#include <stdint.h>

#include "base/error.h"

enum { SPLIT_TRAIN = 0, SPLIT_VALID = 1, SPLIT_TEST = 2 };

#define GS_MAX_NODES 2147483646LL
#define GS_MAX_LABEL 65535

typedef struct {
    char name[256];     /* short name, e.g. "cora" */
    int64_t n;          /* N vertices */
    int64_t f;          /* F features */
    int64_t c;          /* C classes (max label + 1) */
    int64_t npairs;     /* undirected pairs as listed on disk */
    int32_t *pair_src;  /* (npairs) */
    int32_t *pair_dst;  /* (npairs) */
    int32_t *pair_type; /* (npairs) optional edge-type column, or NULL */
    int32_t ntypes;     /* distinct explicit types (0 when pair_type is NULL) */
    float *feat;        /* (N, F) */
    int32_t *label;     /* (N), -1 = unlabeled */
    int64_t nsplit[3];
    int32_t *split[3];  /* vertex ids of train / valid / test */
} dataset_t;

void dataset_free(dataset_t *d);


/* Renumbers vertices: new vertex v is old vertex perm[v]. Pairs, feature
 * rows, labels and split ids all follow. */
int dataset_permute(dataset_t *d, const int32_t *perm, gs_err_t *err);
/* The loaders' range checks on a dataset from elsewhere (the cache):
 * endpoints and split entries in [0, N), types in [0, ntypes), labels in
 * [-1, C). GS_EINPUT naming the first bad entry. */
int dataset_check(const dataset_t *d, gs_err_t *err);

#endif
