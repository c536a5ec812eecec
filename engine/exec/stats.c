/* stats.c - the table of stats.h, built from EPOCH_STATS. */
#include "stats.h"

#include <string.h>

const stat_desc_t *stat_descs(int *n)
{
    static const stat_desc_t table[] = {
#define GS_STAT_DESC(name, unit, label, help, fmt, flags) {#name, unit, label, help, fmt, offsetof(epoch_stats_t, name), flags},
        EPOCH_STATS(GS_STAT_DESC)
#undef GS_STAT_DESC
    };
    *n = (int)(sizeof table / sizeof table[0]);
    return table;
}

const stat_desc_t *stat_find(const char *name)
{
    int n;
    const stat_desc_t *d = stat_descs(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(d[i].name, name)) return &d[i];
    return NULL;
}
