/* generator.h - synthetic node-classification graphs.
 * Degrees follow a power law (Chung-Lu with Pareto weights, exponent 2.5);
 * each vertex has a planted class, and 80% of a vertex's edges stay within
 * its class (homophily); features are a class centroid plus Gaussian noise,
 * so a GNN beats a feature-only classifier. By default ids carry no
 * degree order; hubs GEN_HUBS_FIRST numbers the heaviest vertices first, so
 * equal vertex ranges hold very unequal edge counts (the partitioners'
 * case), GEN_HUBS_LAST last (a streamed column's heaviest sub-chunks come
 * last in its natural order: the swap's case, NeuGraph Fig. 6).
 * local numbers each class's vertices together (class k takes the k-th
 * of C equal id ranges), so 80% of the edges join ids in one range, as a
 * crawl of a graph with communities numbers neighbours near each other
 * (the locality selective scheduling and DepComm profit from on crawled
 * graphs); with hubs ordered too, each range is in expected-degree order.
 * Everything is a hash of the seed, so the same parameters give the same
 * graph on every machine. */
#ifndef GS_GENERATOR_H
#define GS_GENERATOR_H

#include <stdint.h>

#include "dataset.h"

enum {
    GEN_HUBS_RANDOM, /* ids carry no degree order */
    GEN_HUBS_FIRST,  /* ids in decreasing expected degree (as a crawl numbers the hubs it meets first) */
    GEN_HUBS_LAST    /* in increasing expected degree */
};

typedef struct {
    int64_t nodes;      /* N */
    double avg_degree;  /* directed edges per vertex, self-loops excluded */
    int64_t feats;      /* F */
    int64_t classes;    /* C */
    uint64_t seed;
    int hubs;           /* GEN_HUBS_*: where the high-degree vertices are numbered */
    int local;          /* 1: each class's vertices numbered together (a crawl's locality) */
    char like[24];      /* the paper's dataset whose shape this is (gen_like.h), "" for none */
    double scale;       /* the shape's vertices times this (its average degree kept) */
    int structure_only; /* 1: the features stay zero pages, never written (--simulate) */
} gen_params_t;

int gen_graph(dataset_t *d, const gen_params_t *p, gs_err_t *err);

/* The generator as a dataset name: "gen:nodes=N,degree=D,feats=F,classes=C,seed=S,hubs=0|1|2,local=0|1"
 * (any subset, in any order; the rest take gnnscope gen's defaults), or
 * "gen:like=NAME[,scale=S]" for a paper's dataset by shape (gen_like.h),
 * which the other keys may override; scale multiplies the vertices. */
#define GEN_PREFIX "gen:"
void gen_defaults(gen_params_t *p);
int gen_parse_spec(const char *spec, gen_params_t *p, gs_err_t *err);

/* Writes d as an OGB raw directory (gzip-compressed CSVs, atomically). */
int ogb_write(const dataset_t *d, const char *dir, gs_err_t *err);

#endif
