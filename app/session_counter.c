/* session_counter.c - see session_counter.h. */
#include "session_counter.h"

#include <stdio.h>
#include <string.h>

#include "engine/train/run_kind.h"

/* The last epoch's value of counter d as text, or why there is none. */
static void last_value(const session_snapshot_t *snap, const stat_desc_t *d, char *out, size_t n)
{
    if (!snap->nepochs) {
        snprintf(out, n, "no epoch yet");
    } else if (!stat_applies(d, &snap->kind)) {
        snprintf(out, n, "does not apply to this run");
    } else {
        int w = snprintf(out, n, "last epoch ");
        snprintf(out + w, n - (size_t)w, d->fmt, stat_get(&snap->epochs[snap->nepochs - 1], d));
    }
}

int counter_describe(const session_snapshot_t *snap, int argc, char **argv, char *r, int n)
{
    int nd;
    const stat_desc_t *d = stat_descs(&nd);
    if (argc != 2) {
        int w = snprintf(r, (size_t)n, argc == 1 ? "counter NAME explains one of:" : "counter: usage: counter NAME; one of:");
        for (int i = 0; i < nd && w < n; i++) w += snprintf(r + w, (size_t)(n - w), " %s", d[i].name);
        return argc == 1 ? GS_OK : GS_EINPUT;
    }
    for (int i = 0; i < nd; i++) {
        if (strcmp(d[i].name, argv[1]) != 0) continue;
        char last[64];
        last_value(snap, &d[i], last, sizeof last);
        int unit = d[i].unit[0] != '\0';
        snprintf(r, (size_t)n, "%s%s%s%s: %s; %s", d[i].name, unit ? " (" : "", d[i].unit, unit ? ")" : "", d[i].help, last);
        return GS_OK;
    }
    snprintf(r, (size_t)n, "counter: unknown counter '%s' (type counter for the list)", argv[1]);
    return GS_EINPUT;
}
