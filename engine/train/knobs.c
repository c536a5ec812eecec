/* knobs.c - see knobs.h. */
#include "knobs.h"

#include <stdio.h>
#include <string.h>

#include "driver.h"

int knob_parse_run(train_cfg_t *c, const char *name, const char *value, const knob_facts_t *facts, gs_err_t *err)
{
    train_cfg_t next = *c;
    int rc = knob_parse(&next, name, value, facts, err);
    if (!rc && facts) rc = train_driver_for(run_kind_of(&next, facts->kind.ranks).driver)->check(&next, facts->hops, err);
    if (!rc) *c = next;
    return rc;
}

int knob_set(trainer_t *t, const char *name, const char *value, gs_err_t *err)
{
    train_cfg_t c = t->has_pending ? t->pending : t->cfg;
    knob_facts_t facts = trainer_knob_facts(t);
    int rc = knob_parse_run(&c, name, value, &facts, err);
    if (!rc) trainer_set_pending(t, &c);
    return rc;
}

int knob_get(const trainer_t *t, const char *name, int pending, char *out, size_t outsz, gs_err_t *err)
{
    const opt_t *o = knob_find(name);
    if (!o) {
        gs_fail(err, GS_EINPUT, "get: unknown knob '%s' (see 'knobs')", name);
        return -1;
    }
    if (pending && !t->has_pending) return 0;
    char now[96], then[96];
    knob_facts_t live = trainer_knob_facts(t);
    knob_text(o, &t->cfg, &live, now, sizeof now);
    if (!pending) {
        snprintf(out, outsz, "%s", now);
        return 1;
    }
    knob_text(o, &t->pending, NULL, then, sizeof then);
    if (strcmp(now, then) == 0) return 0;
    snprintf(out, outsz, "%s", then);
    return 1;
}

int knob_apply(trainer_t *t, gs_err_t *err)
{
    if (!t->has_pending) return GS_OK;
    train_cfg_t old = t->cfg, want = t->pending;
    t->has_pending = 0, t->knob_applied = 1;
    return t->driver->apply(t, &old, &want, err);
}
