/* timeline_bin.h - bins profiler spans into character cells: for one lane
 * of one device and a time window [t0, t1) split into `width` columns, each
 * cell gets the phase that covers most of it (or none); and the span under
 * the timeline's cursor, described in full (its whole chunk id, which a
 * cell's one digit cannot show). Pure logic, tested without curses. */
#ifndef GS_VIEWS_TIMELINE_BIN_H
#define GS_VIEWS_TIMELINE_BIN_H

#include <stddef.h>
#include <stdint.h>

#include "profiler/event.h"

#define CELL_EMPTY 255

/* cells[width] receives a prof_phase_t or CELL_EMPTY; cols_of[width] the
 * chunk column of the span that covers most of the cell (or -1). */
void timeline_bin(const prof_event_t *ev, int n, int device, int lane, uint64_t t0, uint64_t t1, int width,
                  uint8_t *cells, int32_t *cols_of);

/* The span of that lane that covers most of the cell [c0, c1) (ns), or NULL. */
const prof_event_t *timeline_span_at(const prof_event_t *ev, int n, int device, int lane, uint64_t c0, uint64_t c1);
/* One line about span e (NULL: the lane is idle there), e.g. "d1 compute:
 * FWD L0 chunk_gather, chunk row 12 col 3 sub 1, 0.123 ms from -41.502
 * ms, 1.20 MB, 3.4 MFLOP"; its start as the axis labels it, before t_end,
 * the window's right edge. */
void timeline_describe(const prof_event_t *e, const char *lane_label, uint64_t t_end, char *out, size_t n);

#endif
