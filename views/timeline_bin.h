/* timeline_bin.h - bins profiler spans into character cells: for one lane
 * of one device and a time window [t0, t1) split into `width` columns, each
 * cell gets the phase that covers most of it (or none). Pure logic, tested
 * without curses. */
#ifndef GS_VIEWS_TIMELINE_BIN_H
#define GS_VIEWS_TIMELINE_BIN_H

#include <stdint.h>

#include "profiler/event.h"

#define CELL_EMPTY 255

/* cells[width] receives a prof_phase_t or CELL_EMPTY; cols_of[width] the
 * chunk column of the span that covers most of the cell (or -1). */
void timeline_bin(const prof_event_t *ev, int n, int device, int lane, uint64_t t0, uint64_t t1, int width,
                  uint8_t *cells, int32_t *cols_of);

#endif
