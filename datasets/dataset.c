/* dataset.c - see dataset.h: releasing, checking and renumbering a
 * dataset (loading it is dataset_load.c's). */
#include "dataset.h"

#include <stdlib.h>
#include <string.h>

void dataset_free(dataset_t *d)
{
    free(d->pair_src);
    free(d->pair_dst);
    free(d->pair_type);
    free(d->feat);
    free(d->label);
    for (int i = 0; i < 3; i++) free(d->split[i]);
    memset(d, 0, sizeof *d);
}

int dataset_check(const dataset_t *d, gs_err_t *err)
{
    for (int64_t i = 0; i < d->npairs; i++) {
        if (d->pair_src[i] < 0 || d->pair_src[i] >= d->n || d->pair_dst[i] < 0 || d->pair_dst[i] >= d->n)
            return gs_fail(err, GS_EINPUT, "edge %lld: endpoint out of range [0, %lld)", (long long)i, (long long)d->n);
        if (d->pair_type && (d->pair_type[i] < 0 || d->pair_type[i] >= d->ntypes))
            return gs_fail(err, GS_EINPUT, "edge %lld: type out of range [0, %d)", (long long)i, d->ntypes);
    }
    for (int64_t v = 0; v < d->n; v++)
        if (d->label[v] < -1 || d->label[v] >= d->c)
            return gs_fail(err, GS_EINPUT, "vertex %lld: label %d out of range [-1, %lld)", (long long)v, d->label[v],
                           (long long)d->c);
    for (int i = 0; i < 3; i++)
        for (int64_t k = 0; k < d->nsplit[i]; k++)
            if (d->split[i][k] < 0 || d->split[i][k] >= d->n)
                return gs_fail(err, GS_EINPUT, "split %d entry %lld: vertex %d out of range [0, %lld)", i, (long long)k,
                               d->split[i][k], (long long)d->n);
    return GS_OK;
}

int dataset_permute(dataset_t *d, const int32_t *perm, gs_err_t *err)
{
    int32_t *inv = malloc(sizeof(int32_t) * (size_t)d->n);
    float *feat = malloc(sizeof(float) * (size_t)(d->n * d->f + 1));
    int32_t *label = malloc(sizeof(int32_t) * (size_t)d->n);
    if (!inv || !feat || !label) {
        free(inv), free(feat), free(label);
        return gs_fail(err, GS_EFAIL, "out of memory renumbering vertices");
    }
    for (int64_t v = 0; v < d->n; v++) inv[perm[v]] = (int32_t)v;
    for (int64_t v = 0; v < d->n; v++) {
        memcpy(feat + v * d->f, d->feat + (int64_t)perm[v] * d->f, sizeof(float) * (size_t)d->f);
        label[v] = d->label[perm[v]];
    }
    for (int64_t i = 0; i < d->npairs; i++) d->pair_src[i] = inv[d->pair_src[i]], d->pair_dst[i] = inv[d->pair_dst[i]];
    for (int s = 0; s < 3; s++)
        for (int64_t i = 0; i < d->nsplit[s]; i++) d->split[s][i] = inv[d->split[s][i]];
    free(d->feat), free(d->label), free(inv);
    d->feat = feat, d->label = label;
    return GS_OK;
}
