/* ring.h - a lock-free single-producer single-consumer ring of events.
 * One producer thread pushes, one consumer (the aggregator) pops; the
 * producer never blocks: when the ring is full the event is dropped and
 * counted. Capacity is a power of two. */
#ifndef GS_PROF_RING_H
#define GS_PROF_RING_H

#include <stdatomic.h>
#include <stddef.h>

#include "event.h"

typedef struct {
    prof_event_t *slot;
    size_t mask;
    _Atomic size_t head; /* next slot to write (producer) */
    _Atomic size_t tail; /* next slot to read (consumer) */
    _Atomic size_t dropped;
} prof_ring_t;

/* capacity is rounded up to a power of two; returns 0 or -1 (no memory). */
int prof_ring_init(prof_ring_t *r, size_t capacity);
void prof_ring_free(prof_ring_t *r);
/* Producer side: 1 if stored, 0 if the ring was full (dropped). */
int prof_ring_push(prof_ring_t *r, const prof_event_t *e);
/* Consumer side: 1 and *e filled, or 0 if empty. */
int prof_ring_pop(prof_ring_t *r, prof_event_t *e);

#endif
