/* gen_draw.h - the generator's edge draws (generator.c), fast enough for a
 * paper-size shape (gen_like.h): inverse-CDF sampling with a guide table
 * (the same vertex a plain binary search over the cumulative weights
 * finds, in O(1) expected steps), the rounds of draws across the thread
 * pool, and a radix sort of the pair keys. The draws are hashes of the
 * seed and the draw's index and the keys are sorted and deduplicated each
 * round, so the graph is the one a serial loop draws, on any number of
 * threads. Internal to datasets/. */
#ifndef GS_GEN_DRAW_H
#define GS_GEN_DRAW_H

#include <stdint.h>

/* Cumulative weights of one vertex set, for inverse-CDF sampling. */
typedef struct {
    int32_t *ids;
    double *cum;
    int64_t n;
    int32_t *guide; /* n + 1 entries: guide[j] = the first i with cum[i] > j / n of the total */
} gen_sampler_t;

/* Builds s's guide table once its cum is filled: 0, or -1 out of memory. */
int gen_sampler_guide(gen_sampler_t *s);
void gen_sampler_free(gen_sampler_t *s);
/* The vertex for u in [0, 1): the first i with cum[i] > u x total (the last if none). */
int32_t gen_sample(const gen_sampler_t *s, double u);

typedef struct {
    uint64_t seed;
    double homophily;      /* the chance an edge's end is drawn within its source's class */
    const int32_t *label;
    const gen_sampler_t *all, *cls;
} gen_draw_t;

/* Draws up to target distinct pairs, sorted, as (low << 32 | high) keys
 * into keys (room for 2 * target + 16); how many. -1 out of memory. */
int64_t gen_draw_pairs(const gen_draw_t *g, int64_t target, uint64_t *keys);

#endif
