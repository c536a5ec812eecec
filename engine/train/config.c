/* config.c - the defaults of config.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>

void train_cfg_defaults(train_cfg_t *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->dataset, sizeof c->dataset, "cora");
    snprintf(c->model, sizeof c->model, "gcn");
    c->layers = 2;
    c->hidden = 16;
    c->heads = 8;
    c->epochs = 200;
    c->lr = 0.01f;
    c->weight_decay = 5e-4f;
    c->dropout = 0.5f;
    c->seed = 42;
    c->threads = 0;
    c->dkp = DKP_AUTO;
    c->fuse = 1;
    c->fanout = (opt_list_t){2, {10, 5}};
    c->prepro = 1;          /* pipelined */
    c->prepro_threads = 8;  /* PREPRO_DEFAULT_THREADS */
    c->feat_norm = FEAT_NORM_AUTO;
    c->devices = 1;
    snprintf(c->topology, sizeof c->topology, "1gpu");
    c->chunks = 0;
    c->order = ORDER_NONE;
    c->knobs = (stream_knobs_t){.pipeline = 1, .subchunks = 2, .selective = SEL_AUTO, .swap = 1, .multidev = MD_CHAIN,
                                .memplan = MP_ROC};
    c->dep = DEP_HYBRID, c->dep_ratio = -1, c->ring = 1, c->overlap = 1, c->rank_gpu = 1;
    snprintf(c->network, sizeof c->network, "eth-10g");
    c->rank_timeout = 300;
}
