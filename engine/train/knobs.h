/* knobs.h - the options of a training run (options.h over train_cfg_t),
 * described once each: the flags of `gnnscope train` and the workbench,
 * and, for those whose `when` is not WHEN_START, the knobs that change
 * while training runs. A set is validated in full at once (range,
 * finiteness, and whether the run could go on with it) and held as
 * pending; trainer_epoch applies pending values at the next epoch
 * boundary. Changing chunks, order, sub-chunks, devices, device memory,
 * topology or link scale re-partitions and reopens the devices there,
 * keeping the model weights and optimiser state. Every knob is a
 * performance knob except lr. */
#ifndef GS_KNOBS_H
#define GS_KNOBS_H

#include <stddef.h>

#include "base/options.h"
#include "train.h"

/* The options over train_cfg_t; *n receives how many. */
const opt_t *knob_table(int *n);
/* The option called name, or NULL. */
const opt_t *knob_find(const char *name);
/* What a run's facts allow beyond each knob's own range: the vertices
 * (chunks <= n), the edges (the chunk grid's memory, membudget.h), the
 * device memory the current program needs at the largest chunk count
 * (0: not streaming), and whether the run is distributed (its ranks take
 * the distributed knobs, not the streaming ones; one process, the
 * reverse). */
typedef struct {
    int64_t vertices, edges;
    uint64_t min_device_mem;
    int distributed;
    int hops; /* the program's hops (--fanout's length) */
} knob_facts_t;
/* Whether knob o applies to a run with these facts. */
int knob_applies(const opt_t *o, const knob_facts_t *facts);
/* Parses value into c (a copy of the configuration in force or pending)
 * as knob name; GS_EINPUT names the knob and why. facts may be NULL. */
int knob_parse(train_cfg_t *c, const char *name, const char *value, const knob_facts_t *facts, gs_err_t *err);
/* The facts of a trainer's run. */
knob_facts_t knob_facts(const trainer_t *t);
/* Validates and stores a pending value. */
int knob_set(trainer_t *t, const char *name, const char *value, gs_err_t *err);
/* Makes want the pending configuration (already validated, e.g. by the session). */
void knob_set_all(trainer_t *t, const train_cfg_t *want);
/* Current value (pending = 0) or pending value (pending = 1) as text.
 * Returns 1 with out filled, 0 when pending = 1 and nothing is pending,
 * or -1 for an unknown knob (err says so). */
int knob_get(const trainer_t *t, const char *name, int pending, char *out, size_t outsz, gs_err_t *err);
/* The text of knob o in c, with the value in force resolved where c is
 * the configuration of the running trainer t (auto chunks as "8 (auto)"). */
void knob_text(const trainer_t *t, const train_cfg_t *c, const opt_t *o, char *out, size_t n);
/* Applies pending values (trainer_epoch calls it). On failure the previous
 * configuration is restored and err says why. */
int knob_apply(trainer_t *t, gs_err_t *err);

#endif
