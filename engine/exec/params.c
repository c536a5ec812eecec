/* params.c - see params.h. */
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

int params_init(params_t *ps, const program_t *prog, uint64_t seed, kplace_t kp, gs_err_t *err)
{
    memset(ps, 0, sizeof *ps);
    ps->kp = kp;
    ps->n = prog->nparams;
    ps->w = calloc((size_t)ps->n + 1, sizeof(tensor_t));
    ps->g = calloc((size_t)ps->n + 1, sizeof(tensor_t));
    ps->m = calloc((size_t)ps->n + 1, sizeof(tensor_t));
    ps->v = calloc((size_t)ps->n + 1, sizeof(tensor_t));
    ps->names = calloc((size_t)ps->n + 1, sizeof *ps->names);
    if (!ps->w || !ps->g || !ps->m || !ps->v || !ps->names) return gs_fail(err, GS_EFAIL, "out of memory");
    for (int i = 0; i < prog->nvals; i++) {
        const value_t *v = &prog->vals[i];
        if (v->dom != DOM_PARAM) continue;
        int k = v->param, rc;
        if ((rc = place_alloc(kp, &ps->w[k], v->rows, v->cols, err)) || (rc = place_alloc(kp, &ps->g[k], v->rows, v->cols, err)) ||
            (rc = place_alloc(kp, &ps->m[k], v->rows, v->cols, err)) || (rc = place_alloc(kp, &ps->v[k], v->rows, v->cols, err)))
            return rc;
        memcpy(ps->names[k], v->name, sizeof ps->names[k]);
        if (v->init == INIT_GLOROT) {
            tensor_t init;
            if ((rc = tensor_alloc(&init, v->rows, v->cols, err))) return rc;
            float lim = sqrtf(6.0f / (float)(v->rows + v->cols));
            for (int64_t j = 0; j < v->rows * v->cols; j++)
                init.data[j] = lim * (2.0f * gs_uniform(gs_hash3(seed, 0x1417 + (uint64_t)k, (uint64_t)j)) - 1.0f);
            kp.K->upload(kp.cx, ps->w[k].data, init.data, tensor_bytes(&init));
            tensor_free(&init);
        }
    }
    return GS_OK;
}

void params_free(params_t *ps)
{
    for (int i = 0; i < ps->n && ps->w; i++)
        place_free(ps->kp, &ps->w[i]), place_free(ps->kp, &ps->g[i]), place_free(ps->kp, &ps->m[i]),
            place_free(ps->kp, &ps->v[i]);
    free(ps->w), free(ps->g), free(ps->m), free(ps->v), free(ps->names);
    memset(ps, 0, sizeof *ps);
}

int64_t params_count(const params_t *ps)
{
    int64_t n = 0;
    for (int i = 0; i < ps->n; i++) n += tensor_numel(&ps->w[i]);
    return n;
}

void params_adam_step(params_t *ps, int64_t t, float lr, float weight_decay)
{
    const float b1 = 0.9f, b2 = 0.999f;
    float c1 = 1.0f - powf(b1, (float)t), c2 = 1.0f - powf(b2, (float)t);
    for (int i = 0; i < ps->n; i++)
        ps->kp.K->adam(ps->kp.cx, ps->w[i].data, ps->g[i].data, ps->m[i].data, ps->v[i].data, tensor_numel(&ps->w[i]),
                       lr, weight_decay, c1, c2);
}
