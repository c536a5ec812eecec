/* layers.c - small building blocks shared by model files, and the model
 * registry. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

int layer_linear(program_t *p, int x, int64_t din, int64_t dout, const char *name, int bias)
{
    char nm[32];
    snprintf(nm, sizeof nm, "%s.W", name);
    int y = prog_op(p, OP_MATMUL, x, prog_param(p, nm, din, dout, INIT_GLOROT), -1, 0, 0);
    if (!bias) return y;
    snprintf(nm, sizeof nm, "%s.b", name);
    return prog_op(p, OP_BIAS, y, prog_param(p, nm, 1, dout, INIT_ZERO), -1, 0, 0);
}

int layer_pass_through(program_t *p, int x, int agg)
{
    int layer = p->cur_layer;
    prog_at(p, layer, STAGE_SCATTER);
    int e = prog_op(p, OP_SCATTER_SRC, x, -1, -1, 0, 0);
    prog_at(p, layer, STAGE_GATHER);
    return prog_op(p, OP_GATHER_EDGE, e, -1, -1, 0, agg);
}

int layer_dropout(program_t *p, int x, float prob)
{
    return prob > 0.0f ? prog_op(p, OP_DROPOUT, x, -1, -1, prob, 0) : x;
}

static const model_def_t *const all[] = {&model_gcn,       &model_gin,          &model_commnet,   &model_gat,
                                         &model_ggcn,      &model_mpgcn,        &model_ggnn,      &model_resgcn,
                                         &model_ggcn_norm, &model_commnet_mean, &model_ggnn_norm, &model_mpgcn_self, NULL};

const model_def_t *const *model_all(void) { return all; }

const model_def_t *model_find(const char *name)
{
    for (int i = 0; all[i]; i++)
        if (strcmp(all[i]->name, name) == 0) return all[i];
    return NULL;
}

static char joined[256];
static pthread_once_t joined_once = PTHREAD_ONCE_INIT;

static void join_names(void)
{
    for (int i = 0; all[i]; i++) snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", i ? "|" : "", all[i]->name);
}

const char *model_names(void)
{
    pthread_once(&joined_once, join_names);
    return joined;
}

int model_build(program_t *p, const model_def_t *m, const model_cfg_t *cfg, int ntypes, gs_err_t *err)
{
    prog_init(p, ntypes);
    if (cfg->layers < 1 || cfg->layers > 64) return gs_fail(err, GS_EINPUT, "--layers must be in [1, 64]");
    if (cfg->hidden < 1 || cfg->hidden > 65536) return gs_fail(err, GS_EINPUT, "--hidden must be in [1, 65536]");
    if (cfg->heads < 1 || cfg->heads > 64) return gs_fail(err, GS_EINPUT, "--heads must be in [1, 64]");
    m->build(p, cfg);
    if (p->failed) {
        *err = p->err;
        return GS_EFAIL;
    }
    return GS_OK;
}
