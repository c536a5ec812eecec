/* gen_draw.c - see gen_draw.h. */
#include "gen_draw.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/threadpool.h"

static double unit(uint64_t h) { return ((double)(h >> 11) + 0.5) / 9007199254740992.0; }

int gen_sampler_guide(gen_sampler_t *s)
{
    s->guide = malloc(sizeof(int32_t) * (size_t)(s->n + 1));
    if (!s->guide) return -1;
    double total = s->cum[s->n - 1];
    int64_t i = 0;
    for (int64_t j = 0; j <= s->n; j++) {
        double edge = total * (double)j / (double)s->n;
        while (i < s->n - 1 && s->cum[i] <= edge)
            i++;
        s->guide[j] = (int32_t)i;
    }
    return 0;
}

void gen_sampler_free(gen_sampler_t *s)
{
    free(s->ids), free(s->cum), free(s->guide);
    s->ids = NULL, s->cum = NULL, s->guide = NULL;
}

int32_t gen_sample(const gen_sampler_t *s, double u)
{
    double x = u * s->cum[s->n - 1];
    /* the answer lies between the guides of the buckets around x (one either side, against rounding) */
    int64_t j = (int64_t)(u * (double)s->n);
    int64_t lo = j > 0 ? s->guide[j - 1] : 0, hi = j + 2 <= s->n ? s->guide[j + 2] : s->n - 1;
    if (lo > 0 && s->cum[lo - 1] > x) lo = 0; /* never narrower than the truth */
    if (s->cum[hi] <= x) hi = s->n - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (s->cum[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return s->ids[lo];
}

/* ---------------- one round of draws across the pool ---------------- */

#define DRAW_CHUNKS 256

typedef struct {
    const gen_draw_t *g;
    uint64_t first; /* the round's first draw */
    int64_t want, per;
    uint64_t *out; /* chunk c writes from out + c * per */
    int64_t got[DRAW_CHUNKS];
} round_t;

static void draw_chunk(void *ctx, int64_t c0, int64_t c1)
{
    round_t *r = ctx;
    const gen_draw_t *g = r->g;
    for (int64_t c = c0; c < c1; c++) {
        int64_t a = c * r->per, b = a + r->per < r->want ? a + r->per : r->want, n = 0;
        for (int64_t i = a; i < b; i++) {
            uint64_t draw = r->first + (uint64_t)i;
            int32_t u = gen_sample(g->all, unit(gs_hash3(g->seed, 3, draw)));
            uint64_t h = gs_hash3(g->seed, 4, draw);
            const gen_sampler_t *s =
                unit(h) < g->homophily && g->cls[g->label[u]].n > 1 ? &g->cls[g->label[u]] : g->all;
            int32_t v = gen_sample(s, unit(gs_hash3(g->seed, 5, draw)));
            if (u == v) continue;
            uint64_t lo = (uint64_t)(u < v ? u : v), hi = (uint64_t)(u < v ? v : u);
            r->out[a + n++] = lo << 32 | hi;
        }
        r->got[c] = n;
    }
}

/* LSD radix sort by 16-bit digits, skipping a digit every key shares. */
static int radix_sort(uint64_t *k, int64_t n)
{
    uint64_t *tmp = malloc(sizeof(uint64_t) * (size_t)(n + 1));
    int64_t *count = malloc(sizeof(int64_t) * 65536);
    if (!tmp || !count) return free(tmp), free(count), -1;
    for (int shift = 0; shift < 64; shift += 16) {
        memset(count, 0, sizeof(int64_t) * 65536);
        for (int64_t i = 0; i < n; i++)
            count[(k[i] >> shift) & 0xffff]++;
        if (n == 0 || count[(k[0] >> shift) & 0xffff] == n) continue;
        int64_t at = 0;
        for (int d = 0; d < 65536; d++) {
            int64_t c = count[d];
            count[d] = at, at += c;
        }
        for (int64_t i = 0; i < n; i++)
            tmp[count[(k[i] >> shift) & 0xffff]++] = k[i];
        memcpy(k, tmp, sizeof(uint64_t) * (size_t)n);
    }
    free(tmp), free(count);
    return 0;
}

int64_t gen_draw_pairs(const gen_draw_t *g, int64_t target, uint64_t *keys)
{
    int64_t have = 0;
    uint64_t draw = 0;
    for (int round = 0; round < 64 && have < target; round++) {
        /* want fits: have + want <= 2 target + 16 whenever have < target */
        round_t r = {.g = g, .first = draw, .want = (target - have) + (target - have) / 8 + 16, .out = keys + have};
        r.per = (r.want + DRAW_CHUNKS - 1) / DRAW_CHUNKS;
        gs_parallel_for(DRAW_CHUNKS, 1, draw_chunk, &r);
        int64_t at = have;
        for (int c = 0; c < DRAW_CHUNKS; c++) { /* compact the chunks' runs */
            memmove(keys + at, r.out + c * r.per, sizeof(uint64_t) * (size_t)r.got[c]);
            at += r.got[c];
        }
        draw += (uint64_t)r.want, have = at;
        if (radix_sort(keys, have)) return -1;
        int64_t uniq = 0;
        for (int64_t i = 0; i < have; i++)
            if (i == 0 || keys[i] != keys[i - 1]) keys[uniq++] = keys[i];
        have = uniq;
    }
    return have < target ? have : target;
}
