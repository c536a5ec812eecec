/* session_mark.c - see session_mark.h. */
#include "session_mark.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "knob_delta.h"

int mark_take(session_mark_t *m, const session_snapshot_t *snap, char *r, int n)
{
    if (!snap->nepochs) {
        snprintf(r, (size_t)n, "mark: no epoch has finished yet");
        return GS_EINPUT;
    }
    m->set = 1;
    m->stats = snap->epochs[snap->nepochs - 1];
    m->epoch = snap->epoch;
    m->nknobs = snap->nknobs;
    memcpy(m->knobs, snap->knobs, sizeof m->knobs);
    snprintf(r, (size_t)n, "marked epoch %lld: change knobs, then compare", (long long)m->epoch);
    return GS_OK;
}

enum { MAX_MOVED = 128 };

typedef struct {
    const stat_desc_t *d;
    double before, after, size; /* size: how far it moved, for the order */
} moved_t;

static int by_size(const void *a, const void *b)
{
    double x = ((const moved_t *)a)->size, y = ((const moved_t *)b)->size;
    return (x < y) - (x > y);
}

/* The counters that apply to the run and moved by 1% or more (a share:
 * by a point or more), the largest ratio first, then those that left or
 * reached zero; returns how many. */
static int moved_counters(const session_mark_t *m, const session_snapshot_t *snap, moved_t *out)
{
    int nd, k = 0;
    const stat_desc_t *d = stat_descs(&nd);
    const epoch_stats_t *now = &snap->epochs[snap->nepochs - 1];
    for (int i = 0; i < nd; i++) {
        if (!(d[i].flags & (STAT_JSON | STAT_PANEL | STAT_TRACE)) || !stat_applies(&d[i], &snap->kind)) continue;
        double b = stat_get(&m->stats, &d[i]), a = stat_get(now, &d[i]), size;
        if (d[i].flags & STAT_FRACTION) size = fabs(a - b) >= 0.01 ? 1 + fabs(a - b) : 0;
        else if (b == 0 || a == 0) size = a != b ? 1e-6 : 0; /* after the ratios: a counter the change woke or silenced */
        else size = fabs(log(a / b)) >= log(1.01) ? fabs(log(a / b)) : 0;
        if (size > 0 && isfinite(a) && isfinite(b) && k < MAX_MOVED) out[k++] = (moved_t){&d[i], b, a, size};
    }
    qsort(out, (size_t)k, sizeof *out, by_size);
    return k;
}

/* Appends the knobs whose values differ from the mark's; returns the new length. */
static int changed_knobs(const session_mark_t *m, const session_snapshot_t *snap, char *r, int n, int w)
{
    int first = 1;
    for (int i = 0; i < snap->nknobs && w < n; i++)
        for (int j = 0; j < m->nknobs; j++)
            if (!strcmp(snap->knobs[i].name, m->knobs[j].name) && strcmp(snap->knobs[i].value, m->knobs[j].value)) {
                w += snprintf(r + w, (size_t)(n - w), "%s%s %s -> %s", first ? " knobs: " : ", ", snap->knobs[i].name,
                              m->knobs[j].value, snap->knobs[i].value);
                first = 0;
            }
    return w < n && first ? w + snprintf(r + w, (size_t)(n - w), " knobs: none changed") : w;
}

int mark_compare(const session_mark_t *m, const session_snapshot_t *snap, char *r, int n)
{
    if (!m->set) {
        snprintf(r, (size_t)n, "compare: no mark yet (mark first, then change knobs)");
        return GS_EINPUT;
    }
    if (!snap->nepochs) { /* the run was rebuilt after the mark and has not finished an epoch since */
        snprintf(r, (size_t)n, "compare: no epoch has finished since the run restarted; compare after one does");
        return GS_EINPUT;
    }
    int w = snprintf(r, (size_t)n, "epoch %lld vs mark (epoch %lld):", (long long)snap->epoch, (long long)m->epoch);
    w = changed_knobs(m, snap, r, n, w);
    moved_t mv[MAX_MOVED];
    int k = moved_counters(m, snap, mv);
    if (!k && w < n) snprintf(r + w, (size_t)(n - w), "; no counter moved by 1%%");
    for (int i = 0; i < k && w < n; i++) {
        char b[32], a[32], c[32];
        stat_value_str(mv[i].d, mv[i].before, b, sizeof b);
        stat_value_str(mv[i].d, mv[i].after, a, sizeof a);
        if (mv[i].before == 0 && !(mv[i].d->flags & STAT_FRACTION)) snprintf(c, sizeof c, "from zero");
        else stat_change_str(mv[i].d, mv[i].before, mv[i].after, c, sizeof c);
        int len = snprintf(NULL, 0, "; %s %s -> %s (%s)", mv[i].d->name, b, a, c);
        if (w + len >= n) break; /* whole entries only */
        w += snprintf(r + w, (size_t)(n - w), "; %s %s -> %s (%s)", mv[i].d->name, b, a, c);
    }
    return GS_OK;
}
