/* model_state.c - see model_state.h. */
#include "model_state.h"

#include <stdio.h>
#include <string.h>

#include "base/membudget.h"
#include "engine/program/buffer_plan.h"
#include "run_kind.h"

/* The plain program, hoisted and fused when fuse is set, then rewritten
 * for dkp, and checked against the memory rule before anything of its size
 * is allocated; prog is untouched on failure. */
static int build(model_state_t *m, dkp_mode_t dkp, int fuse, program_t *prog, dkp_choice_t *choices, int *nchoices,
                 gs_err_t *err)
{
    int rc = model_build(prog, m->def, &m->shape, m->ntypes, err);
    if (rc) {
        prog_free(prog);
        return rc;
    }
    m->edge_bytes_plain = prog_edge_bytes(prog, m->m);
    memset(&m->fuse, 0, sizeof m->fuse);
    if (fuse) fuse_rewrite(prog, m->fused_kernel, &m->fuse);
    if (prog->failed) {
        *err = prog->err;
        prog_free(prog);
        return GS_EFAIL;
    }
    const dkp_coef_t *k = m->dkp_model.fitted ? &m->dkp_model.coef : &m->dkp_roofline;
    *nchoices = dkp_rewrite(prog, dkp, k, m->dkp_sized ? m->dkp_shape : NULL, m->n, m->m, choices, MODEL_MAX_DKP);
    for (int i = 0; i < *nchoices && i < MODEL_MAX_DKP; i++) choices[i].basis_fit = m->dkp_model.fitted;
    char what[200], heads[32] = "";
    if (prog_uses_heads(prog)) snprintf(heads, sizeof heads, " --heads %d", m->shape.heads);
    snprintf(what, sizeof what, "%s%s%s", m->what, heads, fuse ? "" : " --fuse off");
    double need = m->simulated ? 0 : prog_memory_bytes(prog, m->n, m->m, m->shared, m->relu_masks), now = gs_mem_in_use() + need;
    if (!m->peak_estimate) m->peak_estimate = now > gs_mem_high_water() ? now : gs_mem_high_water(); /* a rebuild holds the old executor */
    rc = m->simulated ? GS_OK : gs_mem_check(need, what, err);
    if (rc) prog_free(prog);
    return rc;
}

int model_open(model_state_t *m, const train_cfg_t *c, int64_t feats, int64_t classes, int ntypes, int64_t n,
               int64_t edges, int fused_kernel, int relu_masks, gs_err_t *err)
{
    memset(m, 0, sizeof *m);
    m->fused_kernel = fused_kernel, m->relu_masks = relu_masks;
    m->def = model_find(c->model);
    if (!m->def) return gs_fail(err, GS_EINPUT, "--model %s: unknown model (choose %s)", c->model, model_names());
    m->shape = (model_cfg_t){feats, classes, c->hidden, c->layers, c->heads, c->dropout};
    m->ntypes = ntypes, m->n = n, m->m = edges, m->simulated = c->simulate;
    m->shared = run_kind_of(c, 1).engine == ENGINE_MEMORY;
    snprintf(m->what, sizeof m->what, "--model %s --hidden %lld --layers %d", c->model, (long long)c->hidden, c->layers);
    topology_t topo;
    m->dkp_roofline = topology_get(c->topology, &topo) == 0 ? dkp_coef_roofline(topo.gpu_flops, topo.gpu_bw)
                                                             : dkp_coef_roofline(20e12, 1e12);
    return build(m, c->dkp, c->fuse, &m->prog, m->dkp, &m->ndkp, err);
}

int model_init_params(model_state_t *m, uint64_t seed, kplace_t kp, gs_err_t *err)
{
    return params_init(&m->params, &m->prog, seed, kp, err);
}

/* Builds the program again; installs it, unless only_if_reordered and
 * every site keeps its order (then only the choices are updated). */
static int rebuild(model_state_t *m, dkp_mode_t dkp, int fuse, int only_if_reordered, int *installed, gs_err_t *err)
{
    program_t prog;
    dkp_choice_t choices[MODEL_MAX_DKP];
    fuse_report_t was = m->fuse;
    int n, rc = build(m, dkp, fuse, &prog, choices, &n, err);
    *installed = 0;
    if (rc) {
        m->fuse = was;
        return rc;
    }
    int same = n == m->ndkp;
    for (int i = 0; same && i < n && i < MODEL_MAX_DKP; i++) same = choices[i].combination_first == m->dkp[i].combination_first;
    if (only_if_reordered && same) prog_free(&prog);
    else {
        prog_free(&m->prog);
        m->prog = prog;
        *installed = 1;
    }
    memcpy(m->dkp, choices, sizeof choices);
    m->ndkp = n;
    return GS_OK;
}

int model_rebuild(model_state_t *m, dkp_mode_t dkp, int fuse, gs_err_t *err)
{
    int installed;
    return rebuild(m, dkp, fuse, 0, &installed, err);
}

int model_resize_dkp(model_state_t *m, dkp_mode_t dkp, int fuse, const dkp_shape_t *by_layer, int *reordered,
                     gs_err_t *err)
{
    m->dkp_sized = by_layer != NULL;
    if (by_layer) memcpy(m->dkp_shape, by_layer, sizeof m->dkp_shape);
    return rebuild(m, dkp, fuse, 1, reordered, err);
}

int model_fit_dkp(model_state_t *m, dkp_mode_t dkp, int fuse, int *reordered, gs_err_t *err)
{
    dkp_fit(&m->dkp_model, &m->dkp_roofline);
    return rebuild(m, dkp, fuse, 1, reordered, err);
}

void model_step(model_state_t *m, float lr, float weight_decay) { params_adam_step(&m->params, ++m->adam_t, lr, weight_decay); }

void model_close(model_state_t *m)
{
    params_free(&m->params);
    prog_free(&m->prog);
    memset(m, 0, sizeof *m);
}
