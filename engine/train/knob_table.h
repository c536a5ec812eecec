/* knob_table.h - the options of a training run (base/options.h over
 * train_cfg_t), each described once in one table: the flags of `gnnscope
 * train` and the workbench, and, for those whose `when` is not WHEN_START,
 * the knobs that change while training runs. A row says, beside its name,
 * range, help, key and when a change applies: which runs it applies to
 * (its scope, read against the run's kind), its own rule for a new value
 * (opt_t.check: chunks within the vertices, a device cap the model fits,
 * and so on) and how a value resolved at run time reads (opt_t.text).
 * Nothing outside the table tests a knob by its name. Every knob is a
 * performance knob except lr. */
#ifndef GS_KNOB_TABLE_H
#define GS_KNOB_TABLE_H

#include <stddef.h>

#include "base/options.h"
#include "run_kind.h"

/* What a run's facts allow beyond each knob's own range, and what it has
 * resolved: its kind, the vertices (chunks <= n), the edges (the chunk
 * grid's memory, base/membudget.h), the device memory the current program
 * needs at the largest chunk count (0: not streaming), the program's hops
 * (--fanout's length), and the chunks and link scale in force. */
typedef struct {
    run_kind_t kind;
    int64_t vertices, edges;
    uint64_t min_device_mem;
    int hops;
    int chunks;
    double link_scale;
} knob_facts_t;

/* The options over train_cfg_t; *n receives how many. */
const opt_t *knob_table(int *n);
/* The option called name, or NULL. */
const opt_t *knob_find(const char *name);
/* Whether knob o can be set in a run of kind k (a streaming knob in a
 * distributed run cannot, a distributed one outside it cannot). */
int knob_applies(const opt_t *o, const run_kind_t *k);
/* Why a knob that does not apply to a run of kind k is refused there (set
 * and get give the same reason after the knob's name); NULL when it applies. */
const char *knob_refusal(const opt_t *o, const run_kind_t *k);
/* Whether knob o's value means something in a run of kind k now (a
 * streaming knob only once the run streams, or in a sampled run when it
 * is OPTF_SAMPLED). */
int knob_in_force(const opt_t *o, const run_kind_t *k);
/* Parses value into c (a copy of the configuration in force or pending)
 * as knob name, applying its row's rule with the run's facts (NULL: none
 * known, the range only); a streaming knob turns streaming on. GS_EINPUT
 * names the knob and why; c is unchanged then. */
int knob_parse(train_cfg_t *c, const char *name, const char *value, const knob_facts_t *facts, gs_err_t *err);
/* --simulate's rule on the clock: virtual, with roofline kernel times (nothing is measured). GS_EINPUT otherwise. */
int knob_check_simulate(const train_cfg_t *c, gs_err_t *err);
/* Whether a knob whose change applies `when` differs between a and b. */
int knob_changed(const train_cfg_t *a, const train_cfg_t *b, opt_when_t when);
/* Whether a knob that does not apply to runs of kind k differs between a and b. */
int knob_changed_outside(const train_cfg_t *a, const train_cfg_t *b, const run_kind_t *k);
/* The text of knob o in c; live: the facts of the run c is in force in
 * (its resolved values, such as auto chunks, are shown), or NULL. */
void knob_text(const opt_t *o, const train_cfg_t *c, const knob_facts_t *live, char *out, size_t n);

#endif
