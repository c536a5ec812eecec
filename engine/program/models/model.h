/* model.h - the model registry. Each model lives in its own file and only
 * emits an op program (program.h); the executor derives its backward pass.
 * Dimensions: F input features, H hidden, C classes, L layers, K heads. */
#ifndef GS_MODEL_H
#define GS_MODEL_H

#include <stdio.h>

#include "engine/program/program.h"

typedef struct {
    int64_t in_feats; /* F */
    int64_t classes;  /* C */
    int64_t hidden;   /* H */
    int layers;       /* L */
    int heads;        /* K (GAT) */
    float dropout;
} model_cfg_t;

typedef struct {
    const char *name;
    const char *summary;
    /* Emits the whole network into p (already prog_init'ed). */
    int (*build)(program_t *p, const model_cfg_t *cfg);
} model_def_t;

const model_def_t *model_find(const char *name);
/* NULL-terminated list of every model. */
const model_def_t *const *model_all(void);
/* "gcn|gin|..." for usage messages and the option table. */
const char *model_names(void);
/* Builds cfg's model into p, checking p->failed; fills err on failure. */
int model_build(program_t *p, const model_def_t *m, const model_cfg_t *cfg, int ntypes, gs_err_t *err);

/* Shared building blocks (layers.c). */
int layer_linear(program_t *p, int x, int64_t din, int64_t dout, const char *name, int bias);
int layer_dropout(program_t *p, int x, float prob);
/* Scatter each source row onto its edges and gather them with weight agg
 * (agg_weight_t): ApplyEdge passes the message through. The fusion pass
 * turns it into one gather. */
int layer_pass_through(program_t *p, int x, int agg);

extern const model_def_t model_gcn, model_gin, model_commnet, model_gat, model_ggcn, model_mpgcn, model_ggnn,
    model_resgcn;
/* The forms gnnscope shipped before the papers' (README, Models). */
extern const model_def_t model_ggcn_norm, model_commnet_mean, model_ggnn_norm, model_mpgcn_self;

#endif
