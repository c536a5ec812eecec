/* partitioner.h - where to cut the numbered vertices into P contiguous
 * parts (ROC §4.2): equal-vertex (NeuGraph's), equal-edge (the classic
 * graph-processing split: equal in-edges), or roc, ROC's online
 * linear-regression cost model (§4.1, Table 2). Each vertex v has five
 * features over its in-neighbours N(v), cut into runs c_i(v) of
 * consecutive ids: x1 = 1, x2 = |N(v)|, x3 = the number of runs,
 * x4 = sum ceil(|c_i| / WS), x5 = sum ceil(|c_i| d_in / WS) with WS = 32
 * and d_in the layer's gathered width. A part's predicted time at layer l
 * is sum_i w_i(l) x_i(part); w(l) is refit by least squares (ridge, with
 * non-negative weights so that costs grow with the vertex id) on every
 * (layer, part) time measured so far. Prefix sums of the features give a
 * part's features in O(1), and each cut is a binary search, so a split
 * costs O(P log N) once the prefix sums exist (O(N + E) to build).
 * The samples are sums over parts, independent of the numbering, so the
 * model survives a renumbering; the prefix sums do not (rebuild them).
 * Limits: the features count in-edges; the backward pass of a part runs
 * over its out-edges, the same count on the symmetric graphs gnnscope
 * trains. */
#ifndef GS_PARTITIONER_H
#define GS_PARTITIONER_H

#include <stdint.h>

#include "base/error.h"
#include "engine/graph/graph.h"
#include "engine/program/program.h"

typedef enum { PART_EQUAL_VERTEX = 0, PART_EQUAL_EDGE = 1, PART_ROC = 2 } partitioner_kind_t;

#define ROC_NFEAT 5
#define ROC_WARP 32

/* The model: samples and weights per layer (kept across re-partitions). */
typedef struct {
    int nlayers;
    int64_t d_in[PROG_MAX_LAYERS];   /* the gathered width per layer (x5) */
    double w[PROG_MAX_LAYERS][ROC_NFEAT];
    int fitted;                      /* w comes from samples (else: one unit per vertex) */
    int nsamples[PROG_MAX_LAYERS], cap[PROG_MAX_LAYERS];
    double *x[PROG_MAX_LAYERS];      /* (nsamples x ROC_NFEAT) a part's feature sums */
    double *y[PROG_MAX_LAYERS];      /* (nsamples) its measured seconds */
} roc_model_t;

/* Prefix sums of the features over one numbering: pre[i][v] = sum of x_i
 * over vertices [0, v); x5 per layer. */
typedef struct {
    int64_t n;
    int nlayers;
    double *pre[ROC_NFEAT - 1];      /* x1..x4 (N+1) */
    double *pre5[PROG_MAX_LAYERS];   /* x5 per layer (N+1) */
} roc_features_t;

const char *partitioner_name(partitioner_kind_t k);

/* The gathered width of each layer of prog (the widest gather input in
 * the layer; 1 where a layer gathers nothing). */
void roc_model_init(roc_model_t *m, const program_t *prog);
void roc_model_free(roc_model_t *m);
/* Adds one measurement: part [lo, hi) of features f took y seconds at layer l. */
int roc_model_add(roc_model_t *m, const roc_features_t *f, int l, int64_t lo, int64_t hi, double y);
/* Refits every layer's weights on all samples so far. */
void roc_model_fit(roc_model_t *m);
/* Predicted seconds of part [lo, hi), all layers together. */
double roc_predict(const roc_model_t *m, const roc_features_t *f, int64_t lo, int64_t hi);

int roc_features_build(roc_features_t *f, const graph_t *g, const roc_model_t *m, gs_err_t *err);
void roc_features_free(roc_features_t *f);
/* Host bytes the prefix sums take for n vertices and L layers. */
double roc_features_bytes(int64_t n, int nlayers);

/* Cuts g's vertices into p parts (bounds: p + 1 entries, 0 and n at the
 * ends, every part non-empty when n >= p) by kind; roc uses m and f
 * (equal-edge and equal-vertex need neither). */
int partition_split(partitioner_kind_t kind, const graph_t *g, const roc_model_t *m, const roc_features_t *f, int p,
                    int64_t *bounds, gs_err_t *err);

#endif
