/* model_state.c - see model_state.h. */
#include "model_state.h"

#include <stdio.h>
#include <string.h>

#include "membudget.h"

/* The program for dkp, rewritten; prog is untouched on failure. */
static int build(const model_state_t *m, dkp_mode_t dkp, program_t *prog, dkp_choice_t *choices, int *nchoices,
                 gs_err_t *err)
{
    int rc = model_build(prog, m->def, &m->shape, m->ntypes, err);
    if (rc) {
        prog_free(prog);
        return rc;
    }
    *nchoices = dkp_rewrite(prog, dkp, m->n, m->m, choices, MODEL_MAX_DKP);
    return GS_OK;
}

int model_open(model_state_t *m, const train_cfg_t *c, int64_t feats, int64_t classes, int ntypes, int64_t n,
               int64_t edges, gs_err_t *err)
{
    memset(m, 0, sizeof *m);
    m->def = model_find(c->model);
    if (!m->def) return gs_fail(err, GS_EINPUT, "--model %s: unknown model (choose %s)", c->model, model_names());
    m->shape = (model_cfg_t){feats, classes, c->hidden, c->layers, c->heads, c->dropout};
    m->ntypes = ntypes, m->n = n, m->m = edges;
    int rc = build(m, c->dkp, &m->prog, m->dkp, &m->ndkp, err);
    if (!rc) { /* the memory rule, before anything of the model's size is allocated */
        char what[160], heads[32] = "";
        if (prog_uses_heads(&m->prog)) snprintf(heads, sizeof heads, " --heads %d", c->heads);
        snprintf(what, sizeof what, "--model %s --hidden %lld --layers %d%s", c->model, (long long)c->hidden, c->layers,
                 heads);
        rc = gs_mem_check(prog_memory_bytes(&m->prog, n, edges), what, err);
    }
    return rc;
}

int model_init_params(model_state_t *m, uint64_t seed, kplace_t kp, gs_err_t *err)
{
    return params_init(&m->params, &m->prog, seed, kp, err);
}

int model_rebuild(model_state_t *m, dkp_mode_t dkp, gs_err_t *err)
{
    program_t prog;
    dkp_choice_t choices[MODEL_MAX_DKP];
    int n, rc = build(m, dkp, &prog, choices, &n, err);
    if (rc) return rc;
    prog_free(&m->prog);
    m->prog = prog;
    memcpy(m->dkp, choices, sizeof choices);
    m->ndkp = n;
    return GS_OK;
}

void model_step(model_state_t *m, float lr, float weight_decay) { params_adam_step(&m->params, ++m->adam_t, lr, weight_decay); }

void model_close(model_state_t *m)
{
    params_free(&m->params);
    prog_free(&m->prog);
    memset(m, 0, sizeof *m);
}
