/* edge_store.c - see edge_store.h. */
#include "edge_store.h"

#include <stdlib.h>
#include <string.h>

size_t edge_struct_bytes(int64_t nout, int64_t nnz, int lidx, int weighted, int typed)
{
    size_t e = copy_part_align(sizeof(int32_t) * (size_t)nnz);
    return copy_part_align(sizeof(int64_t) * (size_t)(nout + 1)) + copy_part_align(sizeof(int32_t) * (size_t)nout) +
           e * (size_t)(lidx + (weighted != 0) + (typed != 0));
}

void edge_store_init(edge_store_t *es, const backend_ops_t *ops, backend_t *b, int ndev)
{
    memset(es, 0, sizeof *es);
    es->ops = ops, es->b = b, es->ndev = ndev;
}

static edge_entry_t *slot_of(edge_store_t *es, int d, uint64_t key)
{
    size_t cap = es->cap[d], h = (size_t)(key * 0x9e3779b97f4a7c15ull) & (cap - 1);
    while (es->tab[d][h].dev && es->tab[d][h].key != key)
        h = (h + 1) & (cap - 1);
    return &es->tab[d][h];
}

void *edge_store_find(edge_store_t *es, int d, uint64_t key) { return es->cap[d] ? slot_of(es, d, key)->dev : NULL; }

/* Room for one more entry on device d: the table doubles at half full. */
static int store_grow(edge_store_t *es, int d)
{
    if (es->cap[d] && 2 * (es->n[d] + 1) <= es->cap[d]) return 0;
    size_t cap = es->cap[d] ? 2 * es->cap[d] : 1024, old_cap = es->cap[d];
    edge_entry_t *old = es->tab[d], *tab = calloc(cap, sizeof *tab);
    if (!tab) return -1;
    es->tab[d] = tab, es->cap[d] = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].dev) *slot_of(es, d, old[i].key) = old[i];
    free(old);
    return 0;
}

void *edge_store_add(edge_store_t *es, int d, uint64_t key, size_t bytes)
{
    if (store_grow(es, d)) return NULL;
    void *dev = es->ops->alloc(es->b, d, bytes);
    if (!dev) return NULL;
    *slot_of(es, d, key) = (edge_entry_t){key, dev, bytes};
    es->n[d]++, es->held[d] += (double)bytes;
    return dev;
}

void edge_store_drop(edge_store_t *es)
{
    for (int d = 0; d < TOPO_MAX_DEV; d++) {
        for (size_t i = 0; i < es->cap[d]; i++)
            if (es->tab[d][i].dev) es->ops->free(es->b, d, es->tab[d][i].dev, es->tab[d][i].bytes);
        free(es->tab[d]);
        es->tab[d] = NULL, es->cap[d] = es->n[d] = 0, es->held[d] = 0;
    }
}

double edge_store_held(const edge_store_t *es)
{
    double most = 0;
    for (int d = 0; d < es->ndev; d++)
        most = es->held[d] > most ? es->held[d] : most;
    return most;
}
