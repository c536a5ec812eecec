/* dep_plan.c - see dep_plan.h. */
#include "dep_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUBTREE_BUDGET (1 << 18) /* vertices one cost measurement may visit */

int dep_owner(const int64_t *bounds, int nranks, int64_t v)
{
    int lo = 0, hi = nranks - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (bounds[mid] <= v) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* ---------------- a min-heap of (cost, vertex) ---------------- */

typedef struct {
    double key;
    int32_t v;
} entry_t;

typedef struct {
    entry_t *e;
    int64_t n;
} heap_t;

static int before(entry_t a, entry_t b) { return a.key < b.key || (a.key == b.key && a.v < b.v); }

static void heap_push(heap_t *h, entry_t x)
{
    int64_t i = h->n++;
    while (i > 0 && before(x, h->e[(i - 1) / 2])) h->e[i] = h->e[(i - 1) / 2], i = (i - 1) / 2;
    h->e[i] = x;
}

static entry_t heap_pop(heap_t *h)
{
    entry_t top = h->e[0], last = h->e[--h->n];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && before(h->e[c + 1], h->e[c])) c++;
        if (!before(h->e[c], last)) break;
        h->e[i] = h->e[c], i = c;
    }
    if (h->n) h->e[i] = last;
    return top;
}

/* ---------------- subtrees ---------------- */

typedef struct {
    const graph_t *g;
    const dep_params_t *p;
    int64_t lo, hi;
    uint8_t *rep;      /* rep[k * n + v]: v's level-k value is computed here beyond V_i */
    int64_t nrep[DEP_MAX_HOPS + 1];
    int32_t *stamp;    /* per vertex: the frontier it was last queued in */
    int32_t stamp_gen;
    int32_t *front, *next; /* frontiers, n each */
} planner_t;

static int local(const planner_t *s, int64_t v) { return v >= s->lo && v < s->hi; }
static int computed(const planner_t *s, int k, int64_t v) { return local(s, v) || s->rep[(size_t)k * (size_t)s->g->n + (size_t)v]; }

/* Computing w's level-k row here: its vertex ops and its in-edges' gather. */
static double row_cost(const planner_t *s, int k, int32_t w)
{
    const dep_params_t *p = s->p;
    double c = p->vcost[k];
    if (k > 0) c += (double)(s->g->in_ptr[w + 1] - s->g->in_ptr[w]) * p->te * (double)p->width[k];
    return c;
}

/* The floats a hop-l row moves over a training step and an evaluation
 * (gathered along an edge, or sent as a message): its values twice, its
 * gradient where it carries one. */
static double epoch_floats(const dep_params_t *p, int l) { return 2.0 * (double)p->width[l] + (double)p->wgrad[l]; }

/* row_cost over a training step and an evaluation: the vertex ops twice
 * and their backward where one runs, the gather's epoch_floats an edge. */
static double row_epoch_cost(const planner_t *s, int k, int32_t w)
{
    const dep_params_t *p = s->p;
    double c = 2.0 * p->vcost[k] + p->vback[k];
    if (k > 0) c += (double)(s->g->in_ptr[w + 1] - s->g->in_ptr[w]) * p->te * epoch_floats(p, k);
    return c;
}

/* A hop-l dependency's messages over a training step and an evaluation. */
static double comm_epoch_cost(const dep_params_t *p, int l) { return p->tc * epoch_floats(p, l); }

/* The cost (eq. 1, over a step and an evaluation) of computing u's
 * level-(l-1) value here, counting only what is not computed here yet;
 * with apply, marks the subtree as computed and adds its bytes. A
 * measurement past the budget is INFINITY. */
static double subtree(planner_t *s, int32_t u, int l, int apply, double *bytes)
{
    const graph_t *g = s->g;
    int64_t nf = 1, visited = 0;
    double cost = 0;
    s->front[0] = u;
    for (int k = l - 1; k >= 0 && nf > 0; k--) {
        int64_t nn = 0;
        int32_t sid = ++s->stamp_gen;
        for (int64_t i = 0; i < nf; i++) {
            int32_t w = s->front[i];
            if (computed(s, k, w)) continue;
            if (apply) {
                s->rep[(size_t)k * (size_t)g->n + (size_t)w] = 1, s->nrep[k]++;
                *bytes += 4.0 * (double)s->p->dim[k] * (k > 0 ? 2 : 1); /* value and gradient; features alone */
            }
            cost += row_epoch_cost(s, k, w);
            if (k == 0) continue; /* level 0 reads no gather */
            for (int64_t e = g->in_ptr[w]; e < g->in_ptr[w + 1]; e++) {
                int32_t x = g->in_src[e];
                if (s->stamp[x] == sid) continue;
                s->stamp[x] = sid, s->next[nn++] = x;
            }
        }
        visited += nn;
        if (!apply && visited > SUBTREE_BUDGET) return INFINITY;
        int32_t *t = s->front;
        s->front = s->next, s->next = t, nf = nn;
    }
    return cost;
}

/* The bytes caching u at hop l would add (its subtree's new rows). */
static double subtree_bytes(planner_t *s, int32_t u, int l)
{
    double bytes = 0;
    const graph_t *g = s->g;
    int64_t nf = 1;
    s->front[0] = u;
    for (int k = l - 1; k >= 0 && nf > 0; k--) { /* count the rows not computed yet, without marking */
        int64_t nn = 0;
        int32_t sid = ++s->stamp_gen;
        for (int64_t i = 0; i < nf; i++) {
            int32_t w = s->front[i];
            if (computed(s, k, w)) continue;
            bytes += 4.0 * (double)s->p->dim[k] * (k > 0 ? 2 : 1);
            if (k == 0) continue;
            for (int64_t e = g->in_ptr[w]; e < g->in_ptr[w + 1]; e++) {
                int32_t x = g->in_src[e];
                if (s->stamp[x] == sid) continue;
                s->stamp[x] = sid, s->next[nn++] = x;
            }
        }
        int32_t *t = s->front;
        s->front = s->next, s->next = t, nf = nn;
    }
    return bytes;
}

/* DepCache: every level's set is the L-hop in-neighbourhood, level by level. */
static void cache_all(planner_t *s, dep_plan_t *out)
{
    const graph_t *g = s->g;
    int L = s->p->nhops;
    for (int k = L - 1; k >= 0; k--)
        for (int64_t v = 0; v < g->n; v++) {
            if (!(local(s, v) || (k + 1 < L && s->rep[(size_t)(k + 1) * (size_t)g->n + (size_t)v]))) continue;
            for (int64_t e = g->in_ptr[v]; e < g->in_ptr[v + 1]; e++) {
                int32_t x = g->in_src[e];
                if (computed(s, k, x)) continue;
                s->rep[(size_t)k * (size_t)g->n + (size_t)x] = 1, s->nrep[k]++;
                out->cache_bytes += 4.0 * (double)s->p->dim[k] * (k > 0 ? 2 : 1);
                out->t_r[k + 1] += row_epoch_cost(s, k, x);
            }
        }
}

/* Hybrid (and comm, ratio 0): Algorithm 4, layer by layer. Its own split
 * (no ratio) repeats a layer's pass over what is still communicated until
 * a pass caches nothing more: a dependency refused early may cost little
 * once the ones after it are cached (their subtrees overlap), which the
 * paper's single pass would leave communicated. */
static void split_layers(planner_t *s, const int32_t *dep, int64_t ndep, dep_plan_t *out, entry_t *heap_mem)
{
    const dep_params_t *p = s->p;
    int stop = 0;
    for (int l = 1; l <= p->nhops && !stop; l++) {
        double tc = comm_epoch_cost(p, l);
        int64_t target = p->mode == DEP_COMM ? 0 : p->ratio >= 0 ? (int64_t)ceil(p->ratio * (double)ndep - 1e-9) : -1;
        int64_t taken = 0, cached_now = 1;
        for (int pass = 0; cached_now && !stop && (pass == 0 || target < 0) && pass < 8; pass++) {
            heap_t h = {heap_mem, 0};
            for (int64_t i = 0; i < ndep; i++)
                if (pass == 0 || !computed(s, l - 1, dep[i])) heap_push(&h, (entry_t){subtree(s, dep[i], l, 0, NULL), dep[i]});
            cached_now = 0;
            while (h.n > 0 && !stop) {
                entry_t top = heap_pop(&h);
                if (computed(s, l - 1, top.v)) { /* inside another one's subtree: cached at no cost */
                    taken += pass == 0;
                    continue;
                }
                if (target >= 0 && taken >= target) continue;
                double tr = target >= 0 ? 0 : subtree(s, top.v, l, 0, NULL); /* re-measured against what is cached now */
                if (target < 0 && !(tr < tc)) continue;
                if (p->mode == DEP_HYBRID && p->mem_limit > 0 && out->cache_bytes + subtree_bytes(s, top.v, l) > p->mem_limit) {
                    stop = out->mem_stopped = 1;
                    break;
                }
                double bytes = 0;
                double cost = subtree(s, top.v, l, 1, &bytes);
                out->cache_bytes += bytes;
                out->t_r[l] += cost;
                taken++, cached_now++;
            }
        }
    }
}

/* Level sets and mirror lists from the replication marks. */
static int build_sets(planner_t *s, const int32_t *dep, int64_t ndep, dep_plan_t *out)
{
    const graph_t *g = s->g;
    int L = s->p->nhops;
    int64_t own = s->hi - s->lo;
    for (int k = L; k >= 0; k--) {
        int64_t extra_rows = k == L ? 0 : s->nrep[k];
        out->set[k] = malloc(sizeof(int32_t) * (size_t)(own + extra_rows + 1));
        if (!out->set[k]) return -1;
        int64_t w = 0;
        if (k == L) {
            for (int64_t v = s->lo; v < s->hi; v++) out->set[k][w++] = (int32_t)v;
        } else {
            memcpy(out->set[k], out->set[k + 1], sizeof(int32_t) * (size_t)out->nset[k + 1]);
            w = out->nset[k + 1];
            for (int64_t v = 0; v < g->n; v++) /* what level k adds, ascending */
                if (s->rep[(size_t)k * (size_t)g->n + (size_t)v] && !(k + 1 < L && s->rep[(size_t)(k + 1) * (size_t)g->n + (size_t)v]))
                    out->set[k][w++] = (int32_t)v;
        }
        out->nset[k] = w;
    }
    int64_t own_rows = s->hi - s->lo;
    for (int k = 0; k <= L; k++) {
        for (int64_t i = 0; i < out->nset[k]; i++) {
            *(i < own_rows ? &out->own_cost : &out->rep_level[k]) += row_cost(s, k, out->set[k][i]);
            out->epoch_cost += row_epoch_cost(s, k, out->set[k][i]);
        }
        out->rep_cost += out->rep_level[k];
    }
    for (int l = 1; l <= L; l++) {
        out->extra[l - 1] = malloc(sizeof(int32_t) * (size_t)(ndep + 1));
        if (!out->extra[l - 1]) return -1;
        int64_t w = 0;
        for (int64_t i = 0; i < ndep; i++) /* dep is ascending: by owner, then id */
            if (!s->rep[(size_t)(l - 1) * (size_t)g->n + (size_t)dep[i]]) out->extra[l - 1][w++] = dep[i];
        out->nextra[l - 1] = w;
        out->ncomm[l] = w, out->ncached[l] = ndep - w;
        out->t_c[l] = (double)w * s->p->tc * (double)s->p->width[l];
        out->epoch_cost += (double)w * comm_epoch_cost(s->p, l);
    }
    return 0;
}

static int plan_one(const graph_t *g, const dep_params_t *p, dep_plan_t *out, gs_err_t *err)
{
    memset(out, 0, sizeof *out);
    if (p->nhops < 1 || p->nhops > DEP_MAX_HOPS) return gs_fail(err, GS_EINPUT, "the model has %d gathers in a chain", p->nhops);
    if (p->nranks < 1 || p->rank < 0 || p->rank >= p->nranks) return gs_fail(err, GS_EINPUT, "rank %d of %d", p->rank, p->nranks);
    planner_t s = {.g = g, .p = p, .lo = p->bounds[p->rank], .hi = p->bounds[p->rank + 1]};
    out->nhops = p->nhops, out->lo = s.lo, out->hi = s.hi;
    int32_t *dep = malloc(sizeof(int32_t) * (size_t)(g->n + 1));
    entry_t *heap_mem = malloc(sizeof(entry_t) * (size_t)(g->n + 1));
    s.rep = calloc((size_t)p->nhops * (size_t)g->n + 1, 1);
    s.stamp = calloc((size_t)g->n + 1, sizeof(int32_t));
    s.front = malloc(sizeof(int32_t) * (size_t)(g->n + 1));
    s.next = malloc(sizeof(int32_t) * (size_t)(g->n + 1));
    int rc = GS_OK;
    if (!dep || !heap_mem || !s.rep || !s.stamp || !s.front || !s.next) {
        rc = gs_fail(err, GS_EFAIL, "out of memory planning the dependencies of %lld vertices", (long long)g->n);
        goto done;
    }
    int64_t ndep = 0; /* D: the remote in-neighbours of V_i, ascending */
    for (int64_t v = s.lo; v < s.hi; v++)
        for (int64_t e = g->in_ptr[v]; e < g->in_ptr[v + 1]; e++) {
            int32_t x = g->in_src[e];
            if (!local(&s, x) && s.stamp[x] != -1) s.stamp[x] = -1, dep[ndep++] = x;
        }
    for (int64_t i = 0; i < ndep; i++) s.stamp[dep[i]] = 0;
    qsort(dep, (size_t)ndep, sizeof *dep, cmp_i32);
    out->nremote = ndep;
    if (p->mode == DEP_CACHE) cache_all(&s, out);
    else split_layers(&s, dep, ndep, out, heap_mem);
    if (build_sets(&s, dep, ndep, out)) rc = gs_fail(err, GS_EFAIL, "out of memory building the vertex sets");
done:
    free(dep), free(heap_mem), free(s.rep), free(s.stamp), free(s.front), free(s.next);
    if (rc) dep_plan_free(out);
    return rc;
}

double dep_plan_cost(const dep_plan_t *plan) { return plan->epoch_cost; }

int dep_plan(const graph_t *g, const dep_params_t *p, dep_plan_t *out, gs_err_t *err)
{
    int rc = plan_one(g, p, out, err);
    if (rc || p->mode != DEP_HYBRID || p->ratio >= 0) return rc;
    out->choice = "algorithm 4";
    /* Algorithm 4's greedy split is checked against caching or communicating everything, by the same costs */
    dep_params_t alt = *p;
    for (int k = 0; k < 2; k++) {
        alt.mode = k == 0 ? DEP_CACHE : DEP_COMM;
        dep_plan_t other;
        if ((rc = plan_one(g, &alt, &other, err))) {
            dep_plan_free(out);
            return rc;
        }
        int fits = !(p->mem_limit > 0 && other.cache_bytes > p->mem_limit);
        if (fits && dep_plan_cost(&other) < dep_plan_cost(out)) {
            dep_plan_free(out);
            *out = other;
            out->choice = k == 0 ? "cache all (cheaper than algorithm 4's split)" : "communicate all (cheaper than algorithm 4's split)";
        } else {
            dep_plan_free(&other);
        }
    }
    return GS_OK;
}

void dep_plan_free(dep_plan_t *plan)
{
    for (int k = 0; k <= DEP_MAX_HOPS; k++) free(plan->set[k]), free(plan->extra[k]);
    memset(plan, 0, sizeof *plan);
}
