/* driver.h - the run modes behind one interface: a driver takes an open
 * trainer (data, place and model; trainer.h) through its epochs. Three
 * drivers: full-batch (driver_full.c: in memory or on the streaming
 * engine's devices), sampled mini-batches (driver_sampled.c, GraphTensor)
 * and one rank of a distributed job (driver_dist.c, NeutronStar). The
 * trainer (train.c) picks the driver for the run's kind at open and again
 * at an epoch boundary where a knob (--batch-size) moves the run to
 * another mode: the old driver closes, the new one opens, the weights and
 * optimiser state stay. The drivers live with the trainer, not beside
 * their mechanisms (engine/sample/, engine/dist/), because they read the
 * run's whole configuration, which names every mechanism's settings. */
#ifndef GS_DRIVER_H
#define GS_DRIVER_H

#include "trainer.h"

typedef struct train_driver {
    driver_kind_t kind;
    /* Whether configuration c can run under this driver with a program of
     * nhops hops (GS_EINPUT says why). */
    int (*check)(const train_cfg_t *c, int nhops, gs_err_t *err);
    /* Takes over t (its executor, if any, was another driver's) and binds
     * the executor; close gives up its state and engine. */
    int (*open)(trainer_t *t, gs_err_t *err);
    void (*close)(trainer_t *t);
    /* At an epoch boundary, before knob changes apply: the ranks agree on
     * rank 0's *stop and knob changes (NULL for one process). */
    int (*agree)(trainer_t *t, int *stop, gs_err_t *err);
    /* Puts want in force (old was); on failure old stands and err says why. */
    int (*apply)(trainer_t *t, const train_cfg_t *old, const train_cfg_t *want, gs_err_t *err);
    /* At an epoch boundary, after the knob changes: a new cut, DKP re-decided. */
    int (*boundary)(trainer_t *t, gs_err_t *err);
    /* One epoch and its evaluation, counters into st (zeroed by the caller). */
    int (*epoch)(trainer_t *t, epoch_stats_t *st, gs_err_t *err);
} train_driver_t;

extern const train_driver_t train_driver_full, train_driver_sampled, train_driver_dist;

/* The driver of a run mode. */
static inline const train_driver_t *train_driver_for(driver_kind_t k)
{
    return k == DRIVER_DIST ? &train_driver_dist : k == DRIVER_SAMPLED ? &train_driver_sampled : &train_driver_full;
}

#endif
