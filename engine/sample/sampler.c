/* sampler.c - see sampler.h. */
#include "sampler.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/threadpool.h"

#define SAMPLE_SALT 0x73616d706c65ULL /* "sample": keeps these draws apart from dropout's */

int sampler_init(sampler_t *s, const graph_t *g, gs_err_t *err)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->map = malloc(sizeof(int32_t) * (size_t)(g->n ? g->n : 1));
    if (!s->map) return gs_fail(err, GS_EFAIL, "out of memory for the sampler's id map (%lld vertices)", (long long)g->n);
    for (int64_t v = 0; v < g->n; v++) s->map[v] = -1;
    return GS_OK;
}

void sampler_free(sampler_t *s)
{
    free(s->map), free(s->count), free(s->chosen);
    memset(s, 0, sizeof *s);
}

static double unit_draw(uint64_t h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }

void sampler_shuffle(const int32_t *train, int64_t n, uint64_t seed, int64_t epoch, int32_t *out)
{
    memcpy(out, train, sizeof(int32_t) * (size_t)n);
    for (int64_t i = n - 1; i > 0; i--) { /* Fisher-Yates, position i's draw keyed by (seed, epoch, i) */
        int64_t j = (int64_t)(unit_draw(gs_hash4(seed ^ SAMPLE_SALT, (uint64_t)epoch, ~0ULL, (uint64_t)i)) * (double)(i + 1));
        if (j > i) j = i;
        int32_t t = out[i];
        out[i] = out[j], out[j] = t;
    }
}

void batch_free(batch_t *b)
{
    for (int k = 0; k <= BLOCKS_MAX_HOPS; k++) free(b->set[k]);
    blocks_free(&b->bs);
    tensor_free(&b->x);
    free(b->label), free(b->rows);
    memset(b, 0, sizeof *b);
}

/* Room for n entries in *p (capacity *cap, elements of size sz). */
static int reserve(void **p, int64_t *cap, int64_t n, size_t sz)
{
    if (n <= *cap && *p) return 0;
    int64_t c = n > 2 * *cap ? n : 2 * *cap;
    void *q = realloc(*p, sz * (size_t)(c ? c : 1));
    if (!q) return -1;
    *p = q, *cap = c;
    return 0;
}

typedef struct {
    const sampler_t *s;
    const int32_t *dst;
    int fanout;
    uint64_t key[3]; /* seed, epoch, batch */
    int hop;
} draw_ctx_t;

/* Pass 1: edges each destination keeps. */
static void count_range(void *arg, int64_t lo, int64_t hi)
{
    const draw_ctx_t *c = arg;
    const graph_t *g = c->s->g;
    for (int64_t i = lo; i < hi; i++) {
        int64_t d = g->in_ptr[c->dst[i] + 1] - g->in_ptr[c->dst[i]];
        c->s->count[i] = d < c->fanout ? d : c->fanout;
    }
}

/* Pass 2 (A): selection sampling (Knuth's algorithm S) of each
 * destination's kept edges, in CSC order, at its offset. */
static void draw_range(void *arg, int64_t lo, int64_t hi)
{
    const draw_ctx_t *c = arg;
    const graph_t *g = c->s->g;
    for (int64_t i = lo; i < hi; i++) {
        int32_t v = c->dst[i];
        int64_t e0 = g->in_ptr[v], d = g->in_ptr[v + 1] - e0, need = c->s->count[i + 1] - c->s->count[i];
        int64_t *out = c->s->chosen + c->s->count[i];
        if (need == d) {
            for (int64_t j = 0; j < d; j++) out[j] = e0 + j;
            continue;
        }
        uint64_t vk = ((uint64_t)(uint32_t)c->hop << 32) | (uint32_t)v;
        for (int64_t j = 0, left = d; need > 0; j++, left--)
            if ((double)left * unit_draw(gs_hash5(c->key[0], c->key[1], c->key[2], vk, (uint64_t)j)) < (double)need)
                *out++ = e0 + j, need--;
    }
}

/* Block h from the kept edges: destinations D_h (the first nd rows),
 * sources D_{h-1}, local rows from the id map. */
static int build_block(const sampler_t *s, const batch_t *b, int h, graph_t *blk, gs_err_t *err)
{
    const graph_t *g = s->g;
    int64_t nd = b->nset[h], ns = b->nset[h - 1], m = s->count[nd];
    memset(blk, 0, sizeof *blk);
    blk->n = nd, blk->nsrc = ns, blk->nbase = ns, blk->m = m, blk->ntypes = g->ntypes;
    size_t me = (size_t)(m ? m : 1);
    blk->orig_id = malloc(sizeof(int32_t) * (size_t)(ns ? ns : 1));
    blk->in_ptr = malloc(sizeof(int64_t) * (size_t)(nd + 1));
    blk->in_src = malloc(sizeof(int32_t) * me), blk->in_dst = malloc(sizeof(int32_t) * me);
    blk->etype = malloc(sizeof(int32_t) * me);
    blk->w_norm = malloc(sizeof(float) * me), blk->w_mean = malloc(sizeof(float) * me);
    if (!blk->orig_id || !blk->in_ptr || !blk->in_src || !blk->in_dst || !blk->etype || !blk->w_norm || !blk->w_mean)
        return gs_fail(err, GS_EFAIL, "out of memory building hop %d's sampled block", h);
    for (int64_t r = 0; r < ns; r++) blk->orig_id[r] = g->orig_id[b->set[h - 1][r]];
    memcpy(blk->in_ptr, s->count, sizeof(int64_t) * (size_t)(nd + 1));
    for (int64_t i = 0; i < nd; i++) {
        int32_t v = b->set[h][i];
        int64_t k0 = s->count[i], k1 = s->count[i + 1];
        float scale = k1 > k0 ? (float)(g->in_ptr[v + 1] - g->in_ptr[v]) / (float)(k1 - k0) : 1.0f;
        for (int64_t k = k0; k < k1; k++) {
            int64_t e = s->chosen[k];
            blk->in_src[k] = s->map[g->in_src[e]], blk->in_dst[k] = (int32_t)i, blk->etype[k] = g->etype[e];
            blk->w_norm[k] = scale == 1.0f ? g->w_norm[e] : g->w_norm[e] * scale;
            blk->w_mean[k] = scale == 1.0f ? g->w_mean[e] : g->w_mean[e] * scale;
        }
    }
    return blocks_build_csr(blk, err);
}

/* S and R of hop h: D_{h-1} from D_h and its sampled in-edges, then block h. */
static int sample_hop(sampler_t *s, batch_t *b, int h, int fanout, const uint64_t key[3], gs_err_t *err)
{
    const graph_t *g = s->g;
    int64_t nd = b->nset[h];
    if (reserve((void **)&s->count, &s->count_cap, nd + 1, sizeof(int64_t)))
        return gs_fail(err, GS_EFAIL, "out of memory sampling hop %d", h);
    draw_ctx_t c = {s, b->set[h], fanout, {key[0], key[1], key[2]}, h};
    gs_parallel_for(nd, 1024, count_range, &c);
    int64_t total = 0, scanned = 0;
    for (int64_t i = 0; i < nd; i++) {
        int64_t k = s->count[i];
        s->count[i] = total, total += k;
        scanned += g->in_ptr[b->set[h][i] + 1] - g->in_ptr[b->set[h][i]];
    }
    s->count[nd] = total;
    if (reserve((void **)&s->chosen, &s->chosen_cap, total, sizeof(int64_t)))
        return gs_fail(err, GS_EFAIL, "out of memory sampling hop %d (%lld edges)", h, (long long)total);
    gs_parallel_for(nd, 256, draw_range, &c);
    /* H: new sources take the next local rows, in edge order (serial: one writer of the id map) */
    int64_t n = nd, cap = nd + total;
    if (reserve((void **)&b->set[h - 1], &b->cap[h - 1], cap, sizeof(int32_t)))
        return gs_fail(err, GS_EFAIL, "out of memory sampling hop %d", h);
    memcpy(b->set[h - 1], b->set[h], sizeof(int32_t) * (size_t)nd);
    for (int64_t k = 0; k < total; k++) {
        int32_t u = g->in_src[s->chosen[k]];
        if (s->map[u] < 0) s->map[u] = (int32_t)n, b->set[h - 1][n++] = u;
    }
    b->nset[h - 1] = n;
    b->work[h] = (hop_work_t){nd, scanned, total, n - nd};
    int rc = build_block(s, b, h, &b->bs.block[h], err);
    b->bs.ptr[h] = &b->bs.block[h];
    return rc;
}

int sampler_sample(sampler_t *s, const int32_t *targets, int64_t nt, int nhops, const int *fanout, uint64_t seed,
                   int64_t epoch, int64_t key_batch, batch_t *b, gs_err_t *err)
{
    if (nhops < 1 || nhops > BLOCKS_MAX_HOPS) return gs_fail(err, GS_EINPUT, "sampling: %d hops", nhops);
    blocks_free(&b->bs);
    b->nhops = b->bs.nhops = nhops, b->ntargets = nt;
    int rc = GS_OK;
    if (reserve((void **)&b->set[nhops], &b->cap[nhops], nt, sizeof(int32_t)))
        return gs_fail(err, GS_EFAIL, "out of memory for a batch of %lld targets", (long long)nt);
    memcpy(b->set[nhops], targets, sizeof(int32_t) * (size_t)nt);
    memset(b->nset, 0, sizeof b->nset);
    for (int64_t i = 0; i < nt; i++) {
        if (targets[i] < 0 || targets[i] >= s->g->n || s->map[targets[i]] >= 0) {
            rc = gs_fail(err, GS_EINPUT, "sampling: target %d is out of range or listed twice", targets[i]);
            break;
        }
        s->map[targets[i]] = (int32_t)i, b->nset[nhops] = i + 1;
    }
    uint64_t key[3] = {seed ^ SAMPLE_SALT, (uint64_t)epoch, (uint64_t)key_batch};
    for (int h = nhops; h >= 1 && !rc; h--) rc = sample_hop(s, b, h, fanout[nhops - h], key, err);
    int deepest = 0; /* the deepest level written holds every vertex the id map took (the sets are nested) */
    while (deepest < nhops && !b->nset[deepest]) deepest++;
    for (int64_t i = 0; i < b->nset[deepest]; i++) s->map[b->set[deepest][i]] = -1;
    if (rc) blocks_free(&b->bs);
    return rc;
}

typedef struct {
    const float *src;
    float *dst;
    const int32_t *rows;
    int64_t f;
} lookup_ctx_t;

static void lookup_range(void *arg, int64_t lo, int64_t hi)
{
    const lookup_ctx_t *c = arg;
    for (int64_t i = lo; i < hi; i++) memcpy(c->dst + i * c->f, c->src + (int64_t)c->rows[i] * c->f, sizeof(float) * (size_t)c->f);
}

int sampler_lookup(batch_t *b, const tensor_t *x, const int32_t *label, gs_err_t *err)
{
    int64_t n = b->nset[0], nt = b->ntargets;
    if (b->x.rows * b->x.cols < n * x->cols || !b->x.data) {
        tensor_free(&b->x);
        int rc = tensor_alloc(&b->x, n, x->cols, err);
        if (rc) return rc;
    }
    b->x.rows = n, b->x.cols = x->cols;
    lookup_ctx_t c = {x->data, b->x.data, b->set[0], x->cols};
    gs_parallel_for(n, 64, lookup_range, &c);
    free(b->label), free(b->rows);
    b->label = malloc(sizeof(int32_t) * (size_t)(nt ? nt : 1)), b->rows = malloc(sizeof(int32_t) * (size_t)(nt ? nt : 1));
    if (!b->label || !b->rows) return gs_fail(err, GS_EFAIL, "out of memory for a batch's labels");
    b->labelled = 0;
    for (int64_t i = 0; i < nt; i++) {
        b->label[i] = label[b->set[b->nhops][i]], b->rows[i] = (int32_t)i;
        b->labelled += b->label[i] >= 0;
    }
    return GS_OK;
}
