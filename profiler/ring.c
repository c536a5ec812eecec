/* ring.c - see ring.h. Acquire/release ordering on head and tail is all
 * the synchronisation an SPSC ring needs. */
#include "ring.h"

#include <stdlib.h>
#include <string.h>

int prof_ring_init(prof_ring_t *r, size_t capacity)
{
    size_t cap = 2;
    while (cap < capacity) cap <<= 1;
    memset(r, 0, sizeof *r);
    r->slot = malloc(sizeof *r->slot * cap);
    if (!r->slot) return -1;
    r->mask = cap - 1;
    return 0;
}

void prof_ring_free(prof_ring_t *r)
{
    free(r->slot);
    r->slot = NULL;
}

int prof_ring_push(prof_ring_t *r, const prof_event_t *e)
{
    size_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (h - t > r->mask) {
        atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
        return 0;
    }
    r->slot[h & r->mask] = *e;
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    return 1;
}

int prof_ring_pop(prof_ring_t *r, prof_event_t *e)
{
    size_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    size_t h = atomic_load_explicit(&r->head, memory_order_acquire);
    if (t == h) return 0;
    *e = r->slot[t & r->mask];
    atomic_store_explicit(&r->tail, t + 1, memory_order_release);
    return 1;
}
