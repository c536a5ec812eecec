/* knob_notes.c - see knob_notes.h. */
#include "knob_notes.h"

#include <stdio.h>
#include <string.h>

int knob_idle_note(const char *name, const train_cfg_t *next, char *out, size_t n)
{
    const char *why = NULL;
    const stream_knobs_t *k = &next->knobs;
    int sampled = next->batch_size > 0, chained = next->stream && next->devices > 1 && k->multidev != MD_NAIVE;
    if (!strcmp(name, "swap") && k->swap && chained) why = "swap reorders the columns of multidev naive only";
    else if (!strcmp(name, "multidev") && k->multidev != MD_NAIVE && k->swap && next->devices > 1)
        why = "the swap order stops: it applies to multidev naive only";
    else if ((!strcmp(name, "prepro") || !strcmp(name, "prepro-threads")) && !sampled)
        why = "the preprocessing scheduler runs with --batch-size only";
    else if (!strcmp(name, "dkp") && next->dkp != DKP_OFF && !next->fuse)
        why = "with --fuse off the gathers run on edge tensors: no gather-then-product site to reorder";
    else if ((!strcmp(name, "multidev") || !strcmp(name, "selective")) && chained && k->selective != SEL_OFF)
        why = "with selective scheduling a block passed down a switch carries the union of its devices' rows, so chain or ring "
              "can move more than naive: see uplink_bytes and gather_h2d_bytes";
    out[0] = '\0';
    if (why) snprintf(out, n, "%s", why);
    return why != NULL;
}
