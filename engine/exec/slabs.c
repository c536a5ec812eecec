/* slabs.c - see slabs.h. */
#include "slabs.h"

#include <stdlib.h>

/* Grows each slab to its largest member (floats). */
static int grow(slabs_t *s, kplace_t kp, const double *bytes, gs_err_t *err)
{
    const buffer_plan_t *bp = &s->plan;
    for (int k = 0; k < bp->nslab; k++) {
        int64_t need = 1;
        for (int t = 0; t < bp->ntensors; t++)
            if (bp->slab_of[t] == k && (int64_t)(bytes[t / 2] / 4) > need) need = (int64_t)(bytes[t / 2] / 4);
        if (need <= s->cap[k]) continue;
        place_free(kp, &s->slab[k]);
        s->cap[k] = 0;
        int rc = place_alloc(kp, &s->slab[k], need, 1, err);
        if (rc) return rc;
        s->cap[k] = need;
    }
    return GS_OK;
}

int slabs_fit(slabs_t *s, const program_t *p, kplace_t kp, const double *bytes, int relu_masks, gs_err_t *err)
{
    if (!s->slab) {
        int rc = buffer_plan_build(p, bytes, relu_masks, &s->plan, err);
        if (rc) return rc;
        s->slab = calloc((size_t)s->plan.nslab + 1, sizeof(tensor_t));
        s->cap = calloc((size_t)s->plan.nslab + 1, sizeof(int64_t));
        if (!s->slab || !s->cap) {
            slabs_free(s, kp);
            return gs_fail(err, GS_EFAIL, "out of memory");
        }
    }
    return grow(s, kp, bytes, err);
}

float *slabs_data(const slabs_t *s, int t)
{
    int k = s->slab && t < s->plan.ntensors ? s->plan.slab_of[t] : -1;
    return k >= 0 ? s->slab[k].data : NULL;
}

void slabs_free(slabs_t *s, kplace_t kp)
{
    for (int k = 0; s->slab && k < s->plan.nslab; k++) place_free(kp, &s->slab[k]);
    free(s->slab), free(s->cap);
    buffer_plan_free(&s->plan);
    *s = (slabs_t){0};
}
