/* knob_delta.c - see knob_delta.h. */
#include "knob_delta.h"

#include <stdio.h>
#include <string.h>

const stat_desc_t *knob_counter(const char *knob)
{
    static const char *const map[][2] = {
        {"selective", "gather_h2d_bytes"}, {"order", "gather_h2d_bytes"},   {"stream-order", "gather_h2d_bytes"},
        {"pipeline", "hidden_frac"},       {"subchunks", "hidden_frac"},    {"multidev", "uplink_bytes"},
        {"memplan", "h2d_bytes"},          {"edge-chunks", "edge_h2d_bytes"}, {"dkp", "agg_flops"},
        {"fuse", "edge_bytes"},            {"partitioner", "part_imbalance"}, {"dep", "net_bytes"},
        {"dep-ratio", "net_bytes"},        {"chunks", "h2d_bytes"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i][0], knob)) return stat_find(map[i][1]);
    return stat_find("epoch_ms");
}

void stat_value_str(const stat_desc_t *d, double v, char *out, size_t n)
{
    if (d->flags & STAT_FRACTION) {
        snprintf(out, n, "%.1f%%", 100 * v);
        return;
    }
    double scale = !strcmp(d->unit, "B") || !strcmp(d->unit, "FLOP") ? 1e-6 : 1;
    const char *unit = !strcmp(d->unit, "B") ? " MB" : !strcmp(d->unit, "ms") ? " ms" : !strcmp(d->unit, "FLOP") ? " MFLOP" : "";
    snprintf(out, n, "%.4g%s", v * scale, unit);
}

void stat_change_str(const stat_desc_t *d, double before, double after, char *out, size_t n)
{
    if (d->flags & STAT_FRACTION) snprintf(out, n, "%+.0f points", 100 * (after - before));
    else if (after != 0 && before == 0) snprintf(out, n, "from none");
    else if (after != 0) snprintf(out, n, "%.2fx", before / after);
    else snprintf(out, n, "%s", before != 0 ? "none left" : "both zero");
}

void knob_delta_start(knob_delta_t *k, const char *knob, const char *value, const session_snapshot_t *snap)
{
    memset(k, 0, sizeof *k);
    k->d = knob_counter(knob);
    if (!k->d || !snap->nepochs) return;
    snprintf(k->knob, sizeof k->knob, "%s", knob);
    snprintf(k->value, sizeof k->value, "%s", value);
    k->before = stat_get(&snap->epochs[snap->nepochs - 1], k->d);
    k->seen_total = snap->epochs_total;
    k->active = 1;
}

int knob_delta_poll(knob_delta_t *k, const char *pending, const session_snapshot_t *snap, char *out, size_t n)
{
    if (!k->active) return 0;
    if (pending[0]) { /* not applied yet: an epoch finishing now still ran the old value */
        k->seen_total = snap->epochs_total;
        return 0;
    }
    if (snap->epochs_total <= k->seen_total || !snap->nepochs) return 0; /* applied, but no epoch has run with it */
    const epoch_stats_t *last = &snap->epochs[snap->nepochs - 1];
    if (last->settling && snap->epochs_total - k->seen_total < KNOB_DELTA_SETTLE) return 0; /* a plan recorded: not yet its effect */
    double after = stat_get(last, k->d);
    char b[32], a[32], r[32];
    stat_value_str(k->d, k->before, b, sizeof b);
    stat_value_str(k->d, after, a, sizeof a);
    stat_change_str(k->d, k->before, after, r, sizeof r);
    snprintf(out, n, "%s %s: %s %s -> %s (%s)", k->knob, k->value, k->d->name, b, a, r);
    k->active = 0;
    return 1;
}
