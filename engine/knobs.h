/* knobs.h - the one API through which knobs change while training runs
 * (for the session and the console). A set is validated at once and held
 * as pending; trainer_epoch applies pending values at the next epoch
 * boundary. Changing chunks, order, sub-chunks, devices, device memory,
 * topology or link scale re-partitions and reopens the devices there,
 * keeping the model weights and optimiser state. Every knob is a
 * performance knob except lr. */
#ifndef GS_KNOBS_H
#define GS_KNOBS_H

#include <stddef.h>

#include "train.h"

typedef struct {
    const char *name;
    const char *values; /* what it accepts, for help and errors */
    const char *when;   /* when a change takes effect */
} knob_desc_t;

/* The knobs, NULL-name terminated. */
const knob_desc_t *knob_list(void);
/* Validates and stores a pending value. GS_EINPUT names the knob and why. */
int knob_set(trainer_t *t, const char *name, const char *value, gs_err_t *err);
/* Current value (pending = 0) or pending value (pending = 1) as text.
 * Returns 1 with out filled, 0 when pending = 1 and nothing is pending,
 * or -1 for an unknown knob (err says so). */
int knob_get(const trainer_t *t, const char *name, int pending, char *out, size_t outsz, gs_err_t *err);
/* Applies pending values (trainer_epoch calls it). On failure the previous
 * configuration is restored and err says why. */
int knob_apply(trainer_t *t, gs_err_t *err);

#endif
