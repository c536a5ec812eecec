/* sampler.h - neighbour sampling for mini-batch training (GraphTensor
 * §II-B): a batch of target vertices, their sampled multi-hop
 * neighbourhood as nested vertex sets and bipartite blocks (blocks.h), and
 * the looked-up input rows. The stages, as GraphTensor names them:
 *   S  sampling, per hop from the targets down: for every destination,
 *      min(degree, fanout) of its in-edges, uniform without replacement
 *      (selection sampling), drawn from counter-based randomness keyed by
 *      (seed, epoch, batch, hop, vertex, position), so a run reproduces
 *      under any threading. The draw (A) runs in parallel over the
 *      destinations; the id-map updates that give new sources their local
 *      rows (H) run serially, in edge order;
 *   R  reindexing: block h's edges in local rows, CSC and CSR;
 *   K  embedding lookup: the feature rows of level 0, gathered compactly.
 * (T, the transfer to the device, is prepro_sched.c's.) A kept edge keeps its
 * full-graph weight scaled by degree / kept, so a sampled gather estimates
 * the full one without bias and equals it when the fanout is at least the
 * degree; the edges keep the graph's CSC order, so with every neighbour
 * kept a block equals blocks_khop's bitwise. fanout[j] is hop (nhops - j)'s:
 * the first value is the targets' own neighbours (PyG's convention).
 * A sampler is used by one thread at a time. */
#ifndef GS_SAMPLER_H
#define GS_SAMPLER_H

#include "engine/graph/blocks.h"
#include "engine/graph/tensor.h"

/* One hop's work, for the preprocessing schedule (prepro_sched.h). */
typedef struct {
    int64_t dst;     /* destinations sampled for */
    int64_t scanned; /* in-edges the draw looked at */
    int64_t kept;    /* edges kept (the block's edges) */
    int64_t added;   /* new source vertices the id map took */
} hop_work_t;

typedef struct {
    int nhops;
    int64_t ntargets;
    int32_t *set[BLOCKS_MAX_HOPS + 1]; /* D_k in graph ids: D_nhops the targets, D_{k-1} = D_k then hop k's new sources */
    int64_t nset[BLOCKS_MAX_HOPS + 1], cap[BLOCKS_MAX_HOPS + 1];
    blockset_t bs;
    hop_work_t work[BLOCKS_MAX_HOPS + 1]; /* work[h]: hop h */
    tensor_t x;       /* (nset[0], F): K's output */
    int32_t *label;   /* (ntargets) the targets' labels, -1 for none */
    int32_t *rows;    /* 0 .. ntargets-1: the loss's row list */
    int64_t labelled; /* targets with a label */
} batch_t;

typedef struct {
    const graph_t *g;
    int32_t *map;   /* graph id -> local row of the batch being sampled, -1 outside it */
    int64_t *count; /* per destination: edges kept, then their offsets */
    int64_t count_cap;
    int64_t *chosen; /* kept edge ids of the hop in CSC order */
    int64_t chosen_cap;
} sampler_t;

int sampler_init(sampler_t *s, const graph_t *g, gs_err_t *err);
void sampler_free(sampler_t *s);
/* The epoch's order of the n training vertices train[]: a permutation
 * keyed by (seed, epoch), written to out. */
void sampler_shuffle(const int32_t *train, int64_t n, uint64_t seed, int64_t epoch, int32_t *out);
/* S and R for the nt targets: fills b's sets, blocks and work. key_batch
 * is the batch's index in its epoch. */
int sampler_sample(sampler_t *s, const int32_t *targets, int64_t nt, int nhops, const int *fanout, uint64_t seed,
                   int64_t epoch, int64_t key_batch, batch_t *b, gs_err_t *err);
/* K: the level-0 rows of x (host memory, the graph's rows) into b->x, and
 * the targets' labels from label (host, per graph row). */
int sampler_lookup(batch_t *b, const tensor_t *x, const int32_t *label, gs_err_t *err);
void batch_free(batch_t *b);

#endif
