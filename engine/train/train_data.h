/* train_data.h - the data part of a trainer: the dataset in host memory,
 * its graph, and what the kernels read in their place (kops.h): the graph
 * mirror, the normalised features (N, F), the labels and the splits, and
 * each split's count of labelled rows (the loss and accuracy
 * denominators). Renumbering (a streaming vertex order) permutes the
 * dataset and rebuilds the graph; original ids follow, so dropout masks do
 * not change. */
#ifndef GS_TRAIN_DATA_H
#define GS_TRAIN_DATA_H

#include "datasets/dataset_load.h"
#include "config.h"
#include "engine/graph/graph.h"
#include "engine/kernels/kops.h"
#include "engine/graph/tensor.h"

typedef struct {
    dataset_t ds;
    graph_t g;
    kplace_t kp;                   /* where the copies below live */
    const graph_t *kg;             /* kp's mirror of g: g itself on the host */
    graph_t kg_mirror;
    tensor_t x;                    /* (N, F) normalised features, in kp's memory: on the host, ds.feat itself */
    int x_is_view;                 /* x is ds.feat (nothing of its own to free) */
    int feat_normalised;           /* ds.feat was normalised in place (once; the mode is fixed at the start) */
    int32_t *label_k, *split_k[3]; /* labels and splits in kp's memory */
    int64_t split_n[3];            /* entries of each split_k */
    int64_t split_labelled[3];     /* rows of each split with a label (the whole graph's, also on a rank) */
    double load_ms;                /* dataset load (cache or source files) */
    double graph_ms;               /* CSR/CSC construction */
} train_data_t;

/* Loads c->dataset and builds its graph (host memory only); the loader's
 * warnings (a damaged cache rebuilt) go to warn. */
int data_open(train_data_t *d, const train_cfg_t *c, gs_warnings_t *warn, gs_err_t *err);
/* Mirrors the graph and copies features (normalised per fn, in place in
 * the dataset the first time; the host uses them where they are), labels
 * and splits into kp's memory; again after a renumbering. */
int data_place(train_data_t *d, kplace_t kp, feat_norm_t fn, gs_err_t *err);
/* A rank's share (host memory; after data_place): the feature rows of
 * the given vertices (room for `room` rows, the rest filled later by its
 * engine), the labels and split members of its owned range [lo, hi), in
 * local row numbers (row i is vertex lo + i). The dataset's own arrays are
 * freed; the graph and split_labelled stay. */
int data_localize(train_data_t *d, const int32_t *rows, int64_t nrows, int64_t room, int64_t lo, int64_t hi, gs_err_t *err);
/* Renumbers: new vertex v is old vertex perm[v]. Call data_place after. */
int data_renumber(train_data_t *d, const int32_t *perm, gs_err_t *err);
void data_close(train_data_t *d);
/* Rows of idx (n of them) that have a label. */
int64_t data_count_labelled(const int32_t *label, const int32_t *idx, int64_t n);

#endif
