/* memplan.c - see memplan.h. */
#include "memplan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void mp_trace_reset(mp_trace_t *tr)
{
    tr->nkeys = 0;
    tr->nstep = 0;
    tr->overflow = 0;
}

void mp_trace_free(mp_trace_t *tr)
{
    free(tr->step);
    memset(tr, 0, sizeof *tr);
}

int mp_trace_find(const mp_trace_t *tr, int key)
{
    for (int i = 0; i < tr->nkeys; i++)
        if (tr->key[i] == key) return i;
    return -1;
}

int mp_trace_tensor(mp_trace_t *tr, int key, uint64_t bytes)
{
    int i = mp_trace_find(tr, key);
    if (i >= 0) return i;
    if (tr->nkeys == MP_MAX_KEYS) {
        tr->overflow = 1;
        return -1;
    }
    tr->key[tr->nkeys] = key;
    tr->bytes[tr->nkeys] = bytes;
    return tr->nkeys++;
}

int mp_trace_step(mp_trace_t *tr, int host, const int *reads, int nr, const int *writes, int nw)
{
    if (nr > MP_MAX_IO || nw > MP_MAX_IO) {
        tr->overflow = 1;
        return -1;
    }
    if (tr->nstep == tr->cap) {
        int cap = tr->cap ? 2 * tr->cap : 64;
        mp_step_t *n = realloc(tr->step, sizeof *n * (size_t)cap);
        if (!n) {
            tr->overflow = 1;
            return -1;
        }
        tr->step = n, tr->cap = cap;
    }
    mp_step_t *s = &tr->step[tr->nstep];
    memset(s, 0, sizeof *s);
    s->host = host, s->nr = nr, s->nw = nw;
    for (int i = 0; i < nr; i++) s->reads[i] = (int16_t)reads[i];
    for (int i = 0; i < nw; i++) s->writes[i] = (int16_t)writes[i];
    return tr->nstep++;
}

void mp_trace_compact(mp_trace_t *tr)
{
    int order[MP_MAX_KEYS], newidx[MP_MAX_KEYS], n = 0;
    uint8_t read[MP_MAX_KEYS] = {0};
    for (int i = 0; i < tr->nstep; i++)
        if (!tr->step[i].host)
            for (int r = 0; r < tr->step[i].nr; r++) read[tr->step[i].reads[r]] = 1;
    for (int pass = 1; pass >= 0; pass--)
        for (int j = 0; j < tr->nkeys; j++)
            if (read[j] == pass) newidx[j] = n, order[n++] = j;
    int key[MP_MAX_KEYS];
    uint64_t bytes[MP_MAX_KEYS];
    for (int i = 0; i < n; i++) key[i] = tr->key[order[i]], bytes[i] = tr->bytes[order[i]];
    memcpy(tr->key, key, sizeof(int) * (size_t)n);
    memcpy(tr->bytes, bytes, sizeof(uint64_t) * (size_t)n);
    for (int i = 0; i < tr->nstep; i++) {
        mp_step_t *st = &tr->step[i];
        for (int r = 0; r < st->nr; r++) st->reads[r] = (int16_t)newidx[st->reads[r]];
        for (int w = 0; w < st->nw; w++) st->writes[w] = (int16_t)newidx[st->writes[w]];
    }
}

void mp_plan_free(mp_plan_t *p)
{
    free(p->keep), free(p->hold);
    memset(p, 0, sizeof *p);
}

/* ---------------- per-step masks ---------------- */

static uint64_t bit(int j) { return j >= 0 && j < MP_MAX_TENSORS ? (uint64_t)1 << j : 0; }

static uint64_t mask_of(const int16_t *idx, int n)
{
    uint64_t m = 0;
    for (int i = 0; i < n; i++) m |= bit(idx[i]);
    return m;
}

static uint64_t read_mask(const mp_step_t *s) { return mask_of(s->reads, s->nr); }
static uint64_t write_mask(const mp_step_t *s) { return mask_of(s->writes, s->nw); }

static uint64_t mask_bytes(const mp_trace_t *tr, uint64_t m)
{
    uint64_t b = 0;
    for (; m; m &= m - 1) b += tr->bytes[__builtin_ctzll(m)];
    return b;
}

/* H2D bytes of step s's reads given c kept from before and h held now. */
static double read_cost(const mp_trace_t *tr, const mp_step_t *s, uint64_t c, uint64_t h)
{
    double x = 0;
    for (int i = 0; i < s->nr; i++) {
        uint64_t b = bit(s->reads[i]);
        if (!(b & c)) x += b & h ? (double)tr->bytes[s->reads[i]] : s->read_cost[i];
    }
    return x;
}

double mp_plan_cost(const mp_trace_t *tr, const uint64_t *keep, const uint64_t *hold)
{
    int m = tr->nstep;
    if (m == 0) return 0;
    uint64_t c = keep ? keep[m - 1] : 0; /* what the previous epoch left */
    double x = 0;
    for (int i = 0; i < m; i++) {
        const mp_step_t *s = &tr->step[i];
        if (!s->host) x += read_cost(tr, s, c, hold ? hold[i] : 0);
        c = keep ? keep[i] : 0;
    }
    return x;
}

/* What to hold during a streamed step besides c & reads and the kept set
 * `keep`: reads that cost more streamed than brought in whole, the
 * biggest saving first, while they fit. */
static uint64_t temporaries(const mp_trace_t *tr, const mp_step_t *s, uint64_t c, uint64_t keep, uint64_t budget)
{
    uint64_t h = (c & read_mask(s)) | keep, used = mask_bytes(tr, h);
    for (;;) {
        int best = -1;
        double gain = 0;
        for (int i = 0; i < s->nr; i++) {
            int j = s->reads[i];
            double g = s->read_cost[i] - (double)tr->bytes[j];
            if (bit(j) && !(bit(j) & h) && g > gain && used + tr->bytes[j] <= budget) best = j, gain = g;
        }
        if (best < 0) return h;
        h |= bit(best);
        used += tr->bytes[best];
    }
}

/* Over three copies of the trace: useful[s] = tensors whose next event
 * after step s is a streamed read, and dist[s][j] how many steps away it is. */
typedef struct {
    int n;            /* 3 * nstep */
    uint64_t *useful; /* (n) */
    int *dist;        /* (n, MP_MAX_TENSORS) */
} reuse_t;

static int reuse_build(const mp_trace_t *tr, reuse_t *r)
{
    int m = tr->nstep;
    r->n = 3 * m;
    r->useful = calloc((size_t)r->n, sizeof(uint64_t));
    r->dist = malloc(sizeof(int) * (size_t)r->n * MP_MAX_TENSORS);
    if (!r->useful || !r->dist) return -1;
    int next[MP_MAX_TENSORS]; /* step of each tensor's next event; -1 none */
    int is_read[MP_MAX_TENSORS];
    for (int j = 0; j < MP_MAX_TENSORS; j++) next[j] = -1, is_read[j] = 0;
    for (int s = r->n - 1; s >= 0; s--) {
        for (int j = 0; j < MP_MAX_TENSORS; j++) {
            r->dist[(size_t)s * MP_MAX_TENSORS + j] = next[j] < 0 ? 1 << 30 : next[j] - s;
            if (next[j] >= 0 && is_read[j]) r->useful[s] |= bit(j);
        }
        const mp_step_t *st = &tr->step[s % m];
        uint64_t rd = st->host ? 0 : read_mask(st), wr = write_mask(st);
        for (int j = 0; j < MP_MAX_TENSORS; j++)
            if ((rd | wr) & bit(j)) next[j] = s, is_read[j] = (rd & bit(j)) != 0;
    }
    return 0;
}

static void reuse_free(reuse_t *r) { free(r->useful), free(r->dist); }

/* ---------------- LRU ---------------- */

static void plan_lru(const mp_trace_t *tr, uint64_t budget, uint64_t *keep_all, uint64_t *hold_all)
{
    int m = tr->nstep;
    uint64_t c = 0;
    int last[MP_MAX_TENSORS] = {0};
    for (int s = 0; s < 3 * m; s++) {
        const mp_step_t *st = &tr->step[s % m];
        if (st->host) {
            c &= ~write_mask(st);
            keep_all[s] = hold_all[s] = c;
            continue;
        }
        uint64_t touched = read_mask(st) | write_mask(st);
        for (int j = 0; j < MP_MAX_TENSORS; j++)
            if (touched & bit(j)) last[j] = s;
        for (int j = 0; j < MP_MAX_TENSORS; j++) {
            if (!(touched & bit(j)) || (c & bit(j)) || tr->bytes[j] > budget) continue;
            while (mask_bytes(tr, c) + tr->bytes[j] > budget) { /* evict the least recently used untouched */
                int victim = -1;
                for (int v = 0; v < MP_MAX_TENSORS; v++)
                    if ((c & bit(v)) && !(touched & bit(v)) && (victim < 0 || last[v] < last[victim])) victim = v;
                if (victim < 0) break;
                c &= ~bit(victim);
            }
            if (mask_bytes(tr, c) + tr->bytes[j] <= budget) c |= bit(j);
        }
        keep_all[s] = hold_all[s] = c;
    }
}

/* ---------------- ROC Algorithm 1 ---------------- */

typedef struct {
    uint64_t set;  /* kept after the step */
    uint64_t hold; /* held during it */
    double cost;
    int parent;    /* index in the previous step's frontier */
} state_t;

typedef struct {
    state_t *st;
    int n, cap;
    int *hash; /* open addressing over set -> index, (hcap) */
    int hcap;
} frontier_t;

static int fr_init(frontier_t *f, int cap)
{
    f->n = 0, f->cap = cap;
    f->hcap = 1;
    while (f->hcap < 4 * cap) f->hcap <<= 1;
    f->st = malloc(sizeof(state_t) * (size_t)cap);
    f->hash = malloc(sizeof(int) * (size_t)f->hcap);
    if (!f->st || !f->hash) return -1;
    for (int i = 0; i < f->hcap; i++) f->hash[i] = -1;
    return 0;
}

static void fr_free(frontier_t *f) { free(f->st), free(f->hash); }

static uint32_t hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

/* Offers (set, cost) reached from parent; keeps the cheaper of duplicates. */
static int fr_offer(frontier_t *f, uint64_t set, uint64_t hold, double cost, int parent)
{
    uint32_t h = hash64(set) & (uint32_t)(f->hcap - 1);
    while (f->hash[h] >= 0) {
        state_t *s = &f->st[f->hash[h]];
        if (s->set == set) {
            if (cost < s->cost) s->cost = cost, s->parent = parent, s->hold = hold;
            return 0;
        }
        h = (h + 1) & (uint32_t)(f->hcap - 1);
    }
    if (f->n == f->cap) {
        int cap = 2 * f->cap;
        state_t *n = realloc(f->st, sizeof(state_t) * (size_t)cap);
        if (!n) return -1;
        f->st = n, f->cap = cap;
        if (4 * f->cap > f->hcap) { /* rehash */
            int hc = f->hcap * 4;
            int *nh = malloc(sizeof(int) * (size_t)hc);
            if (!nh) return -1;
            free(f->hash);
            f->hash = nh, f->hcap = hc;
            for (int i = 0; i < hc; i++) nh[i] = -1;
            for (int i = 0; i < f->n; i++) {
                uint32_t k = hash64(f->st[i].set) & (uint32_t)(hc - 1);
                while (nh[k] >= 0) k = (k + 1) & (uint32_t)(hc - 1);
                nh[k] = i;
            }
            h = hash64(set) & (uint32_t)(hc - 1);
            while (nh[h] >= 0) h = (h + 1) & (uint32_t)(hc - 1);
        }
    }
    f->st[f->n] = (state_t){set, hold, cost, parent};
    f->hash[h] = f->n++;
    return 0;
}

static int cmp_cost(const void *a, const void *b)
{
    const state_t *x = a, *y = b;
    return (x->cost > y->cost) - (x->cost < y->cost);
}

/* Keeps the MP_MAX_STATES cheapest states (frontier stored compactly). */
static void fr_prune(frontier_t *f)
{
    if (f->n <= MP_MAX_STATES) return;
    qsort(f->st, (size_t)f->n, sizeof(state_t), cmp_cost);
    f->n = MP_MAX_STATES; /* the hash is not used after pruning */
}

/* The candidates of a step: avail, cut to the `most` soonest reused. */
static uint64_t limit_candidates(uint64_t avail, const int *dist, int most)
{
    int cnt = __builtin_popcountll(avail);
    while (cnt > most) {
        int far = -1;
        for (int j = 0; j < MP_MAX_TENSORS; j++)
            if ((avail & bit(j)) && (far < 0 || dist[j] > dist[far])) far = j;
        avail &= ~bit(far);
        cnt--;
    }
    return avail;
}

/* Fills the frontiers of steps from + 1 .. to (fr[s - base] is step s's;
 * each fr_init'ed here) from step from's, one step of the three copies at
 * a time. */
static int dp_steps(const mp_trace_t *tr, uint64_t budget, const reuse_t *r, frontier_t *fr, int base, int from, int to)
{
    int m = tr->nstep;
    for (int s = from; s < to; s++) {
        const mp_step_t *st = &tr->step[s % m];
        frontier_t *f = &fr[s - base], *t = &fr[s + 1 - base];
        if (fr_init(t, 64)) return -1;
        uint64_t rd = read_mask(st), wr = write_mask(st), use = r->useful[s];
        int most = MP_MAX_CAND; /* at most 2^MP_WORK_LOG2 transitions per step */
        while (most > 2 && (1L << most) * f->n > (1L << MP_WORK_LOG2)) most--;
        for (int i = 0; i < f->n; i++) {
            uint64_t c = f->st[i].set;
            double base_cost = f->st[i].cost;
            if (st->host) {
                uint64_t k = c & ~wr & use;
                if (fr_offer(t, k, k, base_cost, i)) return -1;
                continue;
            }
            uint64_t held = c & rd; /* served from the device: resident during the op */
            uint64_t avail = limit_candidates((c | rd | wr) & use, r->dist + (size_t)s * MP_MAX_TENSORS, most);
            for (uint64_t sub = avail;; sub = (sub - 1) & avail) { /* every subset of avail */
                if (mask_bytes(tr, held | sub) <= budget) {
                    uint64_t h = temporaries(tr, st, c, sub, budget);
                    if (fr_offer(t, sub, h, base_cost + read_cost(tr, st, c, h), i)) return -1;
                }
                if (sub == 0) break;
            }
        }
        fr_prune(t);
    }
    return 0;
}

/* The kept and held sets of steps from .. to - 1 along the path ending at
 * state `best` of step to's frontier (fr[s - base] is step s's). */
static void dp_path(frontier_t *fr, int base, int from, int to, int best, uint64_t *keep_all, uint64_t *hold_all)
{
    for (int s = to; s > from; s--) { /* back along the parents */
        keep_all[s - 1] = fr[s - base].st[best].set;
        hold_all[s - 1] = fr[s - base].st[best].hold;
        best = fr[s - base].st[best].parent;
    }
}

#define MP_CYCLE_STARTS 16

/* The epoch repeats, so the plan in force must end with the set it
 * starts from: a state the middle copy starts with but the epoch does not
 * leave would be predicted, not held. From the set the three copies' path
 * ends with, the empty set, and the cheapest sets the middle copy could
 * start with (MP_CYCLE_STARTS in all), the cheapest epoch that ends where
 * it began replaces the middle copy's decisions, unless that path is
 * already such a cycle and no dearer. */
static int dp_cycle(const mp_trace_t *tr, uint64_t budget, const reuse_t *r, frontier_t *fr, uint64_t *keep_all,
                    uint64_t *hold_all)
{
    int m = tr->nstep, rc = 0, nstart = 0;
    uint64_t start[MP_CYCLE_STARTS];
    int cyclic = keep_all[2 * m - 1] == keep_all[m - 1];
    double best = cyclic ? mp_plan_cost(tr, keep_all + m, hold_all + m) : INFINITY;
    frontier_t *g = calloc((size_t)m + 1, sizeof(frontier_t)), *b = &fr[m];
    if (!g) return -1;
    start[nstart++] = keep_all[2 * m - 1], start[nstart++] = 0;
    if (b->n > MP_CYCLE_STARTS) qsort(b->st, (size_t)b->n, sizeof(state_t), cmp_cost); /* fr[m]'s order is not needed again */
    for (int i = 0; i < b->n && nstart < MP_CYCLE_STARTS; i++)
        if (b->st[i].set != start[0] && b->st[i].set != 0) start[nstart++] = b->st[i].set;
    for (int i = 0; i < nstart && !rc; i++) {
        if ((rc = fr_init(&g[0], 1)) || (rc = fr_offer(&g[0], start[i], 0, 0, -1)) || (rc = dp_steps(tr, budget, r, g, m, m, 2 * m))) break;
        for (int j = 0; j < g[m].n; j++) /* g[k] is step m + k's frontier */
            if (g[m].st[j].set == start[i] && g[m].st[j].cost < best - 1e-9) {
                best = g[m].st[j].cost;
                dp_path(g, m, m, 2 * m, j, keep_all, hold_all);
            }
        for (int k = 0; k <= m; k++) fr_free(&g[k]), memset(&g[k], 0, sizeof g[k]);
    }
    free(g);
    return rc;
}

static int plan_roc(const mp_trace_t *tr, uint64_t budget, uint64_t *keep_all, uint64_t *hold_all)
{
    int m = tr->nstep, n = 3 * m, rc = -1;
    reuse_t r = {0};
    frontier_t *fr = calloc((size_t)n + 1, sizeof(frontier_t));
    if (!fr || reuse_build(tr, &r)) goto done;
    if (fr_init(&fr[0], 1) || fr_offer(&fr[0], 0, 0, 0, -1) || dp_steps(tr, budget, &r, fr, 0, 0, n)) goto done;
    int best = 0;
    for (int i = 1; i < fr[n].n; i++)
        if (fr[n].st[i].cost < fr[n].st[best].cost) best = i;
    dp_path(fr, 0, 0, n, best, keep_all, hold_all);
    rc = m > 0 ? dp_cycle(tr, budget, &r, fr, keep_all, hold_all) : 0;
done:
    if (fr)
        for (int s = 0; s <= n; s++) fr_free(&fr[s]);
    free(fr);
    reuse_free(&r);
    return rc;
}

int mp_plan(const mp_trace_t *tr, memplan_kind_t kind, uint64_t budget, mp_plan_t *out)
{
    memset(out, 0, sizeof *out);
    int m = tr->nstep;
    out->kind = kind, out->budget = budget;
    out->keep = calloc((size_t)m + 1, sizeof(uint64_t));
    out->hold = calloc((size_t)m + 1, sizeof(uint64_t));
    uint64_t *all = calloc(6 * (size_t)m + 1, sizeof(uint64_t)), *hold_all = all + 3 * m;
    if (!out->keep || !out->hold || !all) {
        free(all);
        mp_plan_free(out);
        return -1;
    }
    int rc = 0;
    if (kind == MP_LRU) plan_lru(tr, budget, all, hold_all);
    else if (kind == MP_ROC) rc = plan_roc(tr, budget, all, hold_all);
    if (!rc) {
        memcpy(out->keep, all + m, sizeof(uint64_t) * (size_t)m);
        memcpy(out->hold, hold_all + m, sizeof(uint64_t) * (size_t)m);
    }
    free(all);
    if (rc) {
        mp_plan_free(out);
        return -1;
    }
    out->cost = mp_plan_cost(tr, out->keep, out->hold);
    out->stream_cost = mp_plan_cost(tr, NULL, NULL);
    return 0;
}
