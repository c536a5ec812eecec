/* knob_notes.h - what a knob's new value will not do in the run it is set
 * in, said when it is set (the console's and scripts' set): a valid value
 * whose mechanism the rest of the configuration leaves idle, or one that
 * can make the run slower, with the counter that shows why. Limits: the
 * rules known here (swap outside naive multi-device streaming, the
 * sampler and its scheduler without sampling, DKP without a fused program,
 * chain or ring with selective scheduling); others say nothing. The same
 * rules, with the run's kind, say which knobs the workbench marks idle. */
#ifndef GS_KNOB_NOTES_H
#define GS_KNOB_NOTES_H

#include <stddef.h>

#include "config.h"
#include "knob_table.h"

/* Writes into out why knob `name` does nothing (or may slow the run)
 * under next, the configuration it was just set in (at most 255 chars);
 * returns 1, or 0 (out empty) when there is nothing to say. */
int knob_idle_note(const char *name, const train_cfg_t *next, char *out, size_t n);

/* 1 when knob o's mechanism is unused by a run of this kind under c: a
 * knob not in force for the kind (knob_in_force: a streaming knob of a run
 * in memory), or one of the rules above that leaves it idle. */
int knob_idle(const opt_t *o, const train_cfg_t *c, const run_kind_t *kind);

#endif
