/* knobs.c - see knobs.h. Pending values live in t->pending (a copy of the
 * configuration) until the next epoch boundary. */
#include "knobs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static const knob_desc_t knobs[] = {
    {"lr", "a number > 0", "next epoch"},
    {"dkp", "off|on|auto", "next epoch (rebuilds the op program)"},
    {"selective", "off|on|auto", "next epoch"},
    {"pipeline", "off|on", "next epoch"},
    {"swap", "off|on", "next epoch"},
    {"multidev", "naive|chain|ring", "next epoch"},
    {"memplan", "stream|lru|roc", "next epoch (plans after one recorded epoch)"},
    {"subchunks", "an integer in [1, 64]", "next epoch (re-chunks)"},
    {"chunks", "auto or an integer in [1, 4096]", "next epoch (re-partitions)"},
    {"order", "none|random|metis", "next epoch (re-partitions)"},
    {"devices", "an integer in [1, 8]", "next epoch (reopens devices)"},
    {"device-mem", "a size such as 512M, 0 = unlimited", "next epoch (reopens devices)"},
    {"topology", "a name from gnnscope topologies", "next epoch (reopens devices)"},
    {"link-scale", "auto or a number in (0, 1e6]", "next epoch (reopens devices)"},
    {"links", "model|native", "next epoch (reopens devices)"},
    {NULL, NULL, NULL},
};

const knob_desc_t *knob_list(void) { return knobs; }

static const knob_desc_t *find(const char *name)
{
    for (const knob_desc_t *k = knobs; k->name; k++)
        if (strcmp(k->name, name) == 0) return k;
    return NULL;
}

static int bad(gs_err_t *err, const knob_desc_t *k, const char *value)
{
    return gs_fail(err, GS_EINPUT, "set %s: '%s' is not valid (expected %s)", k->name, value, k->values);
}

static int parse_int(const char *v, long lo, long hi, long *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

int knob_set(trainer_t *t, const char *name, const char *value, gs_err_t *err)
{
    const knob_desc_t *k = find(name);
    if (!k) return gs_fail(err, GS_EINPUT, "set: unknown knob '%s' (see 'knobs')", name);
    train_cfg_t c = t->has_pending ? t->pending : t->cfg;
    long x;
    int i;
    char *end;
    if (!strcmp(name, "lr")) {
        double v = strtod(value, &end);
        if (!*value || *end || !(v > 0) || v > 10) return bad(err, k, value);
        c.lr = (float)v;
    } else if (!strcmp(name, "dkp")) {
        if ((i = gs_choice_index("off|on|auto", value)) < 0) return bad(err, k, value);
        c.dkp = (dkp_mode_t)i;
    } else if (!strcmp(name, "selective")) {
        if ((i = gs_choice_index("off|on|auto", value)) < 0) return bad(err, k, value);
        c.knobs.selective = (selective_t)i;
    } else if (!strcmp(name, "pipeline") || !strcmp(name, "swap")) {
        if ((i = gs_choice_index("off|on", value)) < 0) return bad(err, k, value);
        *(name[0] == 'p' ? &c.knobs.pipeline : &c.knobs.swap) = i;
    } else if (!strcmp(name, "multidev")) {
        if ((i = gs_choice_index("naive|chain|ring", value)) < 0) return bad(err, k, value);
        c.knobs.multidev = (multidev_t)i;
    } else if (!strcmp(name, "memplan")) {
        if ((i = gs_choice_index("stream|lru|roc", value)) < 0) return bad(err, k, value);
        c.knobs.memplan = (memplan_kind_t)i;
    } else if (!strcmp(name, "subchunks")) {
        if (parse_int(value, 1, 64, &x)) return bad(err, k, value);
        c.knobs.subchunks = (int)x;
    } else if (!strcmp(name, "chunks")) {
        if (strcmp(value, "auto") == 0) c.chunks = 0;
        else if (parse_int(value, 1, 4096, &x) || x > t->g.n) return bad(err, k, value);
        else c.chunks = (int)x;
    } else if (!strcmp(name, "order")) {
        if ((i = gs_choice_index("none|random|metis", value)) < 0) return bad(err, k, value);
        c.order = (order_kind_t)i;
    } else if (!strcmp(name, "devices")) {
        if (parse_int(value, 1, TOPO_MAX_DEV, &x)) return bad(err, k, value);
        c.devices = (int)x;
    } else if (!strcmp(name, "device-mem")) {
        if (gs_parse_bytes(value, &c.device_mem)) return bad(err, k, value);
    } else if (!strcmp(name, "topology")) {
        topology_t tp;
        if (topology_get(value, &tp) != 0) return bad(err, k, value);
        snprintf(c.topology, sizeof c.topology, "%s", value);
    } else if (!strcmp(name, "link-scale")) {
        if (strcmp(value, "auto") == 0) c.link_scale = 0;
        else {
            double v = strtod(value, &end);
            if (!*value || *end || !(v > 0) || v > 1e6) return bad(err, k, value);
            c.link_scale = v;
        }
    } else if (!strcmp(name, "links")) {
        if ((i = gs_choice_index("model|native", value)) < 0) return bad(err, k, value);
        c.links_native = i;
    }
    if (strcmp(name, "lr") != 0 && strcmp(name, "dkp") != 0) c.stream = 1; /* a device knob turns streaming on */
    t->pending = c;
    t->has_pending = 1;
    return GS_OK;
}

static void format(const train_cfg_t *c, const trainer_t *t, const char *name, char *out, size_t n)
{
    if (!strcmp(name, "lr")) snprintf(out, n, "%g", c->lr);
    else if (!strcmp(name, "dkp")) gs_choice_name("off|on|auto", c->dkp, out, (int)n);
    else if (!strcmp(name, "selective")) gs_choice_name("off|on|auto", c->knobs.selective, out, (int)n);
    else if (!strcmp(name, "pipeline")) gs_choice_name("off|on", c->knobs.pipeline, out, (int)n);
    else if (!strcmp(name, "swap")) gs_choice_name("off|on", c->knobs.swap, out, (int)n);
    else if (!strcmp(name, "multidev")) gs_choice_name("naive|chain|ring", c->knobs.multidev, out, (int)n);
    else if (!strcmp(name, "memplan")) gs_choice_name("stream|lru|roc", c->knobs.memplan, out, (int)n);
    else if (!strcmp(name, "subchunks")) snprintf(out, n, "%d", c->knobs.subchunks);
    else if (!strcmp(name, "chunks")) {
        if (c == &t->cfg && t->backend) snprintf(out, n, "%d%s", t->chunks, c->chunks ? "" : " (auto)");
        else if (c->chunks) snprintf(out, n, "%d", c->chunks);
        else snprintf(out, n, "auto");
    } else if (!strcmp(name, "order")) gs_choice_name("none|random|metis", c->order, out, (int)n);
    else if (!strcmp(name, "devices")) snprintf(out, n, "%d", c->devices);
    else if (!strcmp(name, "device-mem")) snprintf(out, n, "%llu", (unsigned long long)c->device_mem);
    else if (!strcmp(name, "topology")) snprintf(out, n, "%s", c->topology);
    else if (!strcmp(name, "link-scale")) {
        if (c->link_scale > 0) snprintf(out, n, "%g", c->link_scale);
        else if (c == &t->cfg && t->backend) snprintf(out, n, "auto (%.4g)", t->link_scale);
        else snprintf(out, n, "auto");
    } else if (!strcmp(name, "links")) gs_choice_name("model|native", c->links_native, out, (int)n);
}

int knob_get(const trainer_t *t, const char *name, int pending, char *out, size_t outsz, gs_err_t *err)
{
    if (!find(name)) {
        gs_fail(err, GS_EINPUT, "get: unknown knob '%s' (see 'knobs')", name);
        return -1;
    }
    if (pending && !t->has_pending) return 0;
    char now[64], then[64];
    format(&t->cfg, t, name, now, sizeof now);
    if (!pending) {
        snprintf(out, outsz, "%s", now);
        return 1;
    }
    format(&t->pending, t, name, then, sizeof then);
    if (strcmp(now, then) == 0) return 0;
    snprintf(out, outsz, "%s", then);
    return 1;
}

/* Whether a change needs the devices and chunks rebuilt. */
static int structural(const train_cfg_t *a, const train_cfg_t *b)
{
    return a->stream != b->stream || a->chunks != b->chunks || a->order != b->order ||
           a->knobs.subchunks != b->knobs.subchunks || a->devices != b->devices || a->device_mem != b->device_mem ||
           strcmp(a->topology, b->topology) != 0 || a->link_scale != b->link_scale || a->links_native != b->links_native;
}

int knob_apply(trainer_t *t, gs_err_t *err)
{
    if (!t->has_pending) return GS_OK;
    train_cfg_t old = t->cfg, want = t->pending;
    t->has_pending = 0;
    int reopen = 0;
    if (want.dkp != old.dkp) { /* new gather widths: re-plan the chunks too */
        reopen = t->backend != NULL;
        t->cfg.dkp = want.dkp;
        int rc = trainer_rebuild_program(t, err);
        if (rc) {
            t->cfg.dkp = old.dkp;
            gs_err_t ignored;
            trainer_rebuild_program(t, &ignored);
            return rc;
        }
    }
    if (!reopen && !structural(&old, &want)) {
        t->cfg = want;
        if (t->backend) streamer_set_knobs(&t->streamer, &want.knobs);
        return GS_OK;
    }
    if (t->K->device) { /* tensors on a GPU: the streamed engine keeps them on the host */
        t->cfg = old;
        return gs_fail(err, GS_EINPUT, "streaming knobs apply to streamed runs; this run trains in GPU memory "
                                       "(restart with --backend cuda and --device-mem or --chunks)");
    }
    trainer_stream_close(t);
    t->ex.stream = NULL;
    t->cfg = want;
    int rc = trainer_stream_open(t, err);
    if (rc) { /* put the previous configuration back */
        gs_err_t ignored;
        trainer_stream_close(t);
        t->ex.stream = NULL;
        t->cfg = old;
        if (want.dkp != old.dkp) trainer_rebuild_program(t, &ignored);
        if (trainer_stream_open(t, &ignored) != GS_OK) {
            trainer_stream_close(t);
            t->ex.stream = NULL;
            t->cfg.stream = 0;
        }
    }
    gs_err_t ferr;
    if (trainer_load_features(t, rc ? &ferr : err) && !rc) rc = err->code; /* the numbering may have changed */
    return rc;
}
