/* run_kind.c - see run_kind.h. */
#include "run_kind.h"

run_kind_t run_kind_of(const train_cfg_t *c, int ranks)
{
    run_kind_t k = {DRIVER_FULL, ENGINE_MEMORY, c->device == DEVICE_CUDA && !c->stream ? PLACE_CUDA : PLACE_HOST, 0, 0};
    if (c->dist) k.driver = DRIVER_DIST, k.engine = ENGINE_DIST, k.ranks = ranks;
    else if (c->batch_size > 0) k.driver = DRIVER_SAMPLED;
    else if (c->stream) k.engine = ENGINE_STREAM, k.devices = c->devices;
    return k;
}

const char *run_driver_name(driver_kind_t k)
{
    return k == DRIVER_DIST ? "distributed" : k == DRIVER_SAMPLED ? "sampled" : "full-batch";
}

const char *run_engine_name(engine_kind_t k) { return k == ENGINE_DIST ? "dist" : k == ENGINE_STREAM ? "stream" : "memory"; }

int stat_applies(const stat_desc_t *d, const run_kind_t *k)
{
    int devices = k->engine == ENGINE_STREAM, ranks = k->driver == DRIVER_DIST;
    if ((d->flags & STAT_STREAM) && !devices) return 0;
    if ((d->flags & STAT_DIST) && !ranks) return 0;
    if ((d->flags & STAT_SAMPLED) && k->driver != DRIVER_SAMPLED) return 0;
    return !(d->flags & STAT_SPLIT) || devices || ranks;
}
