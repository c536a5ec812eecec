/* session_mark.h - the console's mark and compare (comparing a run with
 * itself before a change): mark keeps the last epoch's counters and the
 * knobs in force; compare says how the run differs from the mark now: the
 * knobs whose values changed, then the counters that apply to the run and
 * moved by 1% or more, the largest change first, each as NAME before ->
 * after (ratio, or points for a share), as many as the reply holds. The
 * whole list of two runs' numbers is `gnnscope compare A.json B.json`'s. */
#ifndef GS_SESSION_MARK_H
#define GS_SESSION_MARK_H

#include "snapshot.h"


typedef struct {
    int set;
    int64_t epoch; /* the epoch marked */
    epoch_stats_t stats;
    session_knob_t knobs[SESSION_MAX_KNOBS];
    int nknobs;
} session_mark_t;

/* mark: snap's last epoch (refused before the first epoch); the reply in r[0..n). */
int mark_take(session_mark_t *m, const session_snapshot_t *snap, char *r, int n);
/* compare: snap's last epoch against the mark (refused without one). */
int mark_compare(const session_mark_t *m, const session_snapshot_t *snap, char *r, int n);

#endif
