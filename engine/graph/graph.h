/* graph.h - the training graph in CSC (forward, grouped by destination)
 * and CSR (backward, grouped by source) form.
 * N vertices, E directed edges.
 * A graph_t is also a layer's block (docs/ARCHITECTURE.md, "Vertex sets"):
 * the edges from a source vertex set of nsrc rows into a destination set of
 * n rows, where the destination rows are the first n source rows. The full
 * graph is the block with nsrc = n. CSC runs over the n destinations, CSR
 * over the nsrc sources; orig_id (nsrc) maps local rows to original ids.
 * Each undirected pair u-v becomes u->v and
 * v->u, duplicates are dropped, and one self-loop per vertex is added.
 * The CSC position of an edge is its edge id: edge tensors (E, *) are in
 * CSC order, and CSR entries carry the edge id.
 * Edge types (for GG-NN): with an explicit type column t in [0,T), u->v as
 * listed gets 2t, the reverse v->u gets 2t+1; without one T=1 (types 0,1);
 * self-loops get type 2T. So ntypes = 2T+1. */
#ifndef GS_GRAPH_H
#define GS_GRAPH_H

#include <stdint.h>

#include "datasets/dataset.h"
#include "base/error.h"

/* The weight an edge carries into a sum (w_norm, w_mean below, or none). */
typedef enum { AGG_ONE = 0, AGG_NORM = 1, AGG_MEAN = 2 } agg_weight_t;

typedef struct {
    int64_t n, m;      /* N (destination rows), E */
    int64_t nsrc;      /* source rows (>= n; = n for the full graph) */
    int64_t nbase;     /* the sources computed at the level below (its n); the rest, up to nsrc, are
                          extra rows whose values arrive from elsewhere (a rank's mirrors) */
    int64_t *in_ptr;   /* (N+1) CSC offsets */
    int32_t *in_src;   /* (E) source of edge e */
    int32_t *in_dst;   /* (E) destination of edge e */
    int32_t *etype;    /* (E) edge type */
    int32_t ntypes;
    float *w_norm;     /* (E) 1/sqrt(outdeg(u) * indeg(v)) */
    float *w_mean;     /* (E) 1/indeg(v) */
    int64_t *out_ptr;  /* (nsrc+1) CSR offsets */
    int32_t *out_dst;  /* (E) destination of each CSR entry */
    int64_t *out_eid;  /* (E) edge id of each CSR entry */
    float *out_w_norm; /* (E) w_norm in CSR order (NULL in a structure-only graph) */
    float *out_w_mean; /* (E) w_mean in CSR order (NULL in a structure-only graph) */
    int32_t *orig_id;  /* (nsrc) original vertex id of each row */
    void *aux;         /* a device mirror's own data (the CUDA plugin's work items) */
} graph_t;

int graph_build(graph_t *g, const dataset_t *d, gs_err_t *err);
/* The bytes a built graph of n vertices and `edges` entries holds (self-loops
 * included), with the CSR-order weights or without them (structure only);
 * graph_build checks them against the memory rule (base/membudget.h) first. */
double graph_bytes(int64_t n, int64_t edges, int csr_weights);
/* The same without the CSR-order weights, which only kernels read: a
 * simulated run's graph (8 bytes an edge less; NeuGraph's amazon: 1.9 GB). */
int graph_build_structure(graph_t *g, const dataset_t *d, gs_err_t *err);
void graph_free(graph_t *g);

#endif
