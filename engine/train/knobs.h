/* knobs.h - knob changes on a running trainer. A set is validated in full
 * at once (the knob's range and rule, knob_table.h, and whether the run's
 * mode can go on with it, its driver's check) and held as pending;
 * trainer_epoch applies pending values at the next epoch boundary through
 * the driver in force (changing chunks, order, sub-chunks, devices, device
 * memory, topology or link scale re-partitions and reopens the devices
 * there; DKP and fusion rebuild the program; a distributed run re-plans),
 * keeping the model weights and optimiser state. */
#ifndef GS_KNOBS_H
#define GS_KNOBS_H

#include <stddef.h>

#include "knob_table.h"
#include "trainer.h"

/* knob_parse, then whether the run's mode can go on with the new value
 * (facts NULL: the range and row rule only). */
int knob_parse_run(train_cfg_t *c, const char *name, const char *value, const knob_facts_t *facts, gs_err_t *err);
/* Validates and stores a pending value. */
int knob_set(trainer_t *t, const char *name, const char *value, gs_err_t *err);
/* Current value (pending = 0) or pending value (pending = 1) as text.
 * Returns 1 with out filled, 0 when pending = 1 and nothing is pending,
 * or -1 for an unknown knob (err says so). */
int knob_get(const trainer_t *t, const char *name, int pending, char *out, size_t outsz, gs_err_t *err);
/* Applies pending values (trainer_epoch calls it). On failure the previous
 * configuration is restored and err says why. */
int knob_apply(trainer_t *t, gs_err_t *err);

#endif
