/* knob_notes.c - see knob_notes.h. */
#include "knob_notes.h"

#include <stdio.h>
#include <string.h>

/* Why knob `name` does nothing under c (*idle = 1) or may slow the run
 * (*idle = 0); NULL when there is nothing to say. */
static const char *why_of(const char *name, const train_cfg_t *c, int *idle)
{
    const stream_knobs_t *k = &c->knobs;
    int sampled = c->batch_size > 0, chained = c->stream && c->devices > 1 && k->multidev != MD_NAIVE;
    *idle = 1;
    if (!strcmp(name, "swap") && k->swap && chained) return "swap reorders the columns of multidev naive only";
    if ((!strcmp(name, "prepro") || !strcmp(name, "prepro-threads") || !strcmp(name, "fanout")) && !sampled)
        return "the sampler and its preprocessing scheduler run with --batch-size only";
    if (!strcmp(name, "dkp") && c->dkp != DKP_OFF && !c->fuse)
        return "with --fuse off the gathers run on edge tensors: no gather-then-product site to reorder";
    *idle = 0;
    if (!strcmp(name, "multidev") && k->multidev != MD_NAIVE && k->swap && c->devices > 1)
        return "the swap order stops: it applies to multidev naive only";
    if ((!strcmp(name, "multidev") || !strcmp(name, "selective")) && chained && k->selective != SEL_OFF)
        return "with selective scheduling a block passed down a switch carries the union of its devices' rows, so chain or ring "
               "can move more than naive: see uplink_bytes and gather_h2d_bytes";
    return NULL;
}

int knob_idle_note(const char *name, const train_cfg_t *next, char *out, size_t n)
{
    int idle;
    const char *why = why_of(name, next, &idle);
    out[0] = '\0';
    if (why) snprintf(out, n, "%s", why);
    return why != NULL;
}

int knob_idle(const opt_t *o, const train_cfg_t *c, const run_kind_t *kind)
{
    int idle = 0;
    return !knob_in_force(o, kind) || (why_of(o->name, c, &idle) && idle);
}
