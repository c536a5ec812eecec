/* session_counter.h - the console's counter command: what a counter of the
 * panels, JSON and CSV measures, its unit and the last epoch's value, from
 * the counters' own descriptions (stats.h) and a snapshot of the run. */
#ifndef GS_SESSION_COUNTER_H
#define GS_SESSION_COUNTER_H

#include "snapshot.h"

/* counter NAME (argc 2), or counter alone (argc 1: the list), over snap;
 * the reply in r[0..n). Returns 0, or GS_EINPUT for an unknown name or
 * too many words. */
int counter_describe(const session_snapshot_t *snap, int argc, char **argv, char *r, int n);

#endif
