/* generator.c - see generator.h. Edges are sampled in rounds until the
 * requested number of distinct undirected pairs exists. */
#include "generator.h"

#include "base/membudget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "gen_draw.h"
#include "gen_like.h"

#define HOMOPHILY 0.8
#define SIGNAL 0.08f

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static int cmp_asc(const void *a, const void *b) { return cmp_desc(b, a); }

static double unit(uint64_t h) { return ((double)(h >> 11) + 0.5) / 9007199254740992.0; }

/* Each pair listed once in a hashed direction; each vertex's features
 * (its class centroid plus noise) and its split. */
static void fill(dataset_t *d, const gen_params_t *p, const uint64_t *keys)
{
    for (int64_t i = 0; i < d->npairs; i++) {
        int32_t a = (int32_t)(keys[i] >> 32), b = (int32_t)(keys[i] & 0xffffffffu);
        int flip = gs_hash3(p->seed, 6, (uint64_t)i) & 1;
        d->pair_src[i] = flip ? b : a;
        d->pair_dst[i] = flip ? a : b;
    }
    for (int64_t v = 0; v < d->n; v++) {
        float *x = d->feat + v * p->feats;
        for (int64_t j = 0; j < p->feats && !p->structure_only; j++) {
            float mu = gs_normal(gs_hash4(p->seed, 7, (uint64_t)d->label[v], (uint64_t)j));
            x[j] = SIGNAL * mu + gs_normal(gs_hash4(p->seed, 8, (uint64_t)v, (uint64_t)j));
        }
        int b = (int)(gs_hash3(p->seed, 9, (uint64_t)v) % 10);
        int s = b < 6 ? SPLIT_TRAIN : b < 8 ? SPLIT_VALID : SPLIT_TEST;
        d->split[s][d->nsplit[s]++] = (int32_t)v;
    }
}

int gen_graph(dataset_t *d, const gen_params_t *p, gs_err_t *err)
{
    memset(d, 0, sizeof *d);
    /* the generator's own rules (the gen command's flags and gen_parse_spec check them first, naming theirs) */
    if (p->nodes < 2 || p->nodes > GS_MAX_NODES) return gs_fail(err, GS_EINPUT, "nodes must be in [2, %lld]", (long long)GS_MAX_NODES);
    if (p->classes < 2 || p->classes > 1024) return gs_fail(err, GS_EINPUT, "classes must be in [2, 1024]");
    if (p->feats < 1 || p->feats > 1 << 16) return gs_fail(err, GS_EINPUT, "feats must be in [1, 65536]");
    if (!(p->avg_degree > 0) || p->avg_degree > (double)(p->nodes - 1) * 0.5)
        return gs_fail(err, GS_EINPUT, "the average degree must be in (0, (nodes-1)/2]");
    int64_t n = p->nodes, c = p->classes;
    int64_t target = (int64_t)llround((double)n * p->avg_degree / 2.0);
    double need = (double)n * (double)(p->structure_only ? 0 : p->feats) * 4.0 + (double)target * 40.0;
    int rc = gs_mem_check(need, "generating this graph", err);
    if (rc) return rc;
    if (p->like[0]) snprintf(d->name, sizeof d->name, "like-%s-n%lld", p->like, (long long)n);
    else snprintf(d->name, sizeof d->name, "gen-n%lld-d%g%s", (long long)n, p->avg_degree, p->hubs == GEN_HUBS_FIRST ? "-hubs" : p->hubs == GEN_HUBS_LAST ? "-hubslast" : "");
    if (p->local) snprintf(d->name + strlen(d->name), sizeof d->name - strlen(d->name), "-local");
    d->n = n, d->f = p->feats, d->c = c;
    d->label = malloc(sizeof(int32_t) * (size_t)n);
    double *w = malloc(sizeof(double) * (size_t)n);
    gen_sampler_t all = {malloc(sizeof(int32_t) * (size_t)n), malloc(sizeof(double) * (size_t)n), n, NULL};
    gen_sampler_t *cls = calloc((size_t)c, sizeof *cls);
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)(target * 2 + 16));
    if (!d->label || !w || !all.ids || !all.cum || !cls || !keys) goto oom;
    for (int64_t v = 0; v < n; v++) {
        d->label[v] = p->local ? (int32_t)(v * c / n) : (int32_t)(gs_hash3(p->seed, 1, (uint64_t)v) % (uint64_t)c);
        w[v] = pow(unit(gs_hash3(p->seed, 2, (uint64_t)v)), -1.0 / 1.5); /* Pareto, degree exponent 2.5 */
        cls[d->label[v]].n++;
    }
    for (int64_t k = 0; k < c; k++) {
        cls[k].ids = malloc(sizeof(int32_t) * (size_t)(cls[k].n + 1));
        cls[k].cum = malloc(sizeof(double) * (size_t)(cls[k].n + 1));
        if (!cls[k].ids || !cls[k].cum) goto oom;
        cls[k].n = 0;
    }
    for (int64_t v = 0; p->hubs != GEN_HUBS_RANDOM && v < n;) { /* the whole range, or each class's with local */
        int64_t end = p->local ? v : n;
        while (end < n && d->label[end] == d->label[v]) /* with local, a class's range */
            end++;
        qsort(w + v, (size_t)(end - v), sizeof *w, p->hubs == GEN_HUBS_FIRST ? cmp_desc : cmp_asc);
        v = end;
    }
    double acc = 0;
    for (int64_t v = 0; v < n; v++) {
        acc += w[v];
        all.ids[v] = (int32_t)v;
        all.cum[v] = acc;
        gen_sampler_t *s = &cls[d->label[v]];
        s->ids[s->n] = (int32_t)v;
        s->cum[s->n] = (s->n ? s->cum[s->n - 1] : 0.0) + w[v];
        s->n++;
    }
    int bad = gen_sampler_guide(&all);
    for (int64_t k = 0; k < c && !bad; k++) bad = cls[k].n && gen_sampler_guide(&cls[k]);
    gen_draw_t g = {p->seed, HOMOPHILY, d->label, &all, cls};
    int64_t have = bad ? -1 : gen_draw_pairs(&g, target, keys);
    if (have < 0) goto oom;
    d->npairs = have;
    d->pair_src = malloc(sizeof(int32_t) * (size_t)(have + 1));
    d->pair_dst = malloc(sizeof(int32_t) * (size_t)(have + 1));
    d->feat = calloc((size_t)(n * p->feats), sizeof(float)); /* structure_only: zero pages, never touched */
    for (int s = 0; s < 3; s++) d->split[s] = malloc(sizeof(int32_t) * (size_t)n);
    if (!d->pair_src || !d->pair_dst || !d->feat || !d->split[0] || !d->split[1] || !d->split[2]) goto oom;
    fill(d, p, keys);
    for (int64_t k = 0; k < c; k++) gen_sampler_free(&cls[k]);
    gen_sampler_free(&all), free(cls), free(w), free(keys);
    return GS_OK;
oom:
    if (cls)
        for (int64_t k = 0; k < c; k++) gen_sampler_free(&cls[k]);
    gen_sampler_free(&all), free(cls), free(w), free(keys);
    dataset_free(d);
    return gs_fail(err, GS_EFAIL, "out of memory generating the graph");
}

void gen_defaults(gen_params_t *p)
{
    *p = (gen_params_t){.nodes = 10000, .avg_degree = 10, .feats = 64, .classes = 8, .seed = 1, .scale = 1};
}

/* The spec's keys: where each goes and what it accepts (gen_graph's rules). */
typedef struct {
    const char *key;
    double lo, hi;
    int whole; /* an integer */
} gen_key_t;

static const gen_key_t gen_keys[] = {
    {"nodes", 2, (double)GS_MAX_NODES, 1}, {"degree", 1e-6, 1e6, 0}, {"feats", 1, 65536, 1},
    {"classes", 2, 1024, 1},               {"seed", 0, 9e18, 1},     {"hubs", 0, 2, 1},
    {"scale", 1e-9, 16, 0},                {"local", 0, 1, 1},
};
#define GEN_KEYS "nodes, degree, feats, classes, seed, hubs, local, like, scale"
#define GEN_KEY_HUBS 5 /* gen_keys[5], which also takes the names gnnscope gen --hubs takes */

static void gen_set(gen_params_t *p, int k, double v)
{
    switch (k) {
    case 0: p->nodes = (int64_t)v; break;
    case 1: p->avg_degree = v; break;
    case 2: p->feats = (int64_t)v; break;
    case 3: p->classes = (int64_t)v; break;
    case 4: p->seed = (uint64_t)v; break;
    case GEN_KEY_HUBS: p->hubs = (int)v; break;
    case 6: p->scale = v; break;
    default: p->local = (int)v; break;
    }
}

/* One "key=value" of spec, s[0..len). */
static int gen_parse_pair(const char *spec, const char *s, size_t len, gen_params_t *p, gs_err_t *err)
{
    const char *eq = memchr(s, '=', len);
    if (!eq) return gs_fail(err, GS_EINPUT, "--dataset %s: '%.*s' is not key=value (keys: " GEN_KEYS ")", spec, (int)len, s);
    size_t klen = (size_t)(eq - s), vlen = len - klen - 1;
    int k = -1;
    for (int i = 0; i < (int)(sizeof gen_keys / sizeof gen_keys[0]) && k < 0; i++)
        if (strlen(gen_keys[i].key) == klen && !strncmp(gen_keys[i].key, s, klen)) k = i;
    if (k < 0) return gs_fail(err, GS_EINPUT, "--dataset %s: unknown key '%.*s' (keys: " GEN_KEYS ")", spec, (int)klen, s);
    char value[64], *end;
    snprintf(value, sizeof value, "%.*s", (int)(vlen < 63 ? vlen : 63), eq + 1);
    double v = strtod(value, &end);
    const gen_key_t *g = &gen_keys[k];
    static const char *const hubs_names[] = {"random", "first", "last"}; /* GEN_HUBS_*, as gnnscope gen --hubs names them */
    for (int h = 0; h < 3 && k == GEN_KEY_HUBS; h++)
        if (!strcmp(value, hubs_names[h])) v = h, end = value + vlen;
    if (!vlen || vlen >= sizeof value || *end || !isfinite(v) || v < g->lo || v > g->hi || (g->whole && v != floor(v)))
        return gs_fail(err, GS_EINPUT, "--dataset %s: %s=%s is not %s%s in [%.15g, %.15g]", spec, g->key, value,
                       k == GEN_KEY_HUBS ? "random, first, last or " : "", g->whole ? "an integer" : "a number", g->lo, g->hi);
    gen_set(p, k, v);
    return GS_OK;
}

/* "like=NAME" (len chars at s): the shape's counts into p. */
static int gen_like(const char *spec, const char *s, size_t len, gen_params_t *p, gs_err_t *err)
{
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(len - 5 < 31 ? len - 5 : 31), s + 5);
    const gen_shape_t *sh = len - 5 < sizeof p->like ? gen_shape_find(name) : NULL;
    if (!sh) {
        char names[1024] = "";
        for (int i = 0; gen_shape_at(i); i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", gen_shape_at(i)->name);
        return gs_fail(err, GS_EINPUT, "--dataset %s: like=%s is not a known shape (%s)", spec, name, names);
    }
    snprintf(p->like, sizeof p->like, "%s", sh->name);
    p->nodes = sh->vertices, p->avg_degree = sh->edges / (double)sh->vertices;
    p->feats = sh->feats, p->classes = sh->classes;
    return GS_OK;
}

int gen_parse_spec(const char *spec, gen_params_t *p, gs_err_t *err)
{
    gen_defaults(p);
    for (int pass = 0; pass < 2; pass++) /* like= first, so the other keys override its shape */
        for (const char *s = spec + strlen(GEN_PREFIX); *s;) {
            size_t len = strcspn(s, ",");
            int like = len >= 5 && strncmp(s, "like=", 5) == 0, rc = GS_OK;
            if (pass == 0 && like) rc = gen_like(spec, s, len, p, err);
            else if (pass == 1 && !like) rc = gen_parse_pair(spec, s, len, p, err);
            if (rc) return rc;
            s += len + (s[len] == ',');
        }
    if (p->scale != 1) p->nodes = llround((double)p->nodes * p->scale);
    if (p->nodes < 2 || p->nodes > GS_MAX_NODES)
        return gs_fail(err, GS_EINPUT, "--dataset %s: scale=%g makes %lld vertices (2 to %lld)", spec, p->scale,
                       (long long)p->nodes, (long long)GS_MAX_NODES);
    if (p->avg_degree > (double)(p->nodes - 1) * 0.5)
        return gs_fail(err, GS_EINPUT, "--dataset %s: degree=%g is more than half of nodes-1 (%lld)", spec, p->avg_degree,
                       (long long)(p->nodes - 1));
    return GS_OK;
}
