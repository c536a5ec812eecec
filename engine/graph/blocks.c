/* blocks.c - see blocks.h. */
#include "blocks.h"

#include <stdlib.h>
#include <string.h>

void blocks_free(blockset_t *b)
{
    for (int h = 1; h <= b->nhops && h <= BLOCKS_MAX_HOPS; h++) graph_free(&b->block[h]);
    memset(b, 0, sizeof *b);
}

typedef struct {
    int32_t dst_orig; /* the original id of the entry's destination */
    int32_t dst;
    int64_t eid;
    float wn, wm;
} csr_entry_t;

static int cmp_entry(const void *a, const void *b)
{
    const csr_entry_t *x = a, *y = b;
    return (x->dst_orig > y->dst_orig) - (x->dst_orig < y->dst_orig);
}

int blocks_build_csr(graph_t *b, gs_err_t *err)
{
    int64_t *cnt = calloc((size_t)b->nsrc + 1, sizeof *cnt);
    csr_entry_t *ent = malloc(sizeof *ent * (size_t)(b->m ? b->m : 1));
    b->out_ptr = calloc((size_t)b->nsrc + 1, sizeof *b->out_ptr);
    b->out_dst = malloc(sizeof(int32_t) * (size_t)(b->m ? b->m : 1));
    b->out_eid = malloc(sizeof(int64_t) * (size_t)(b->m ? b->m : 1));
    b->out_w_norm = malloc(sizeof(float) * (size_t)(b->m ? b->m : 1));
    b->out_w_mean = malloc(sizeof(float) * (size_t)(b->m ? b->m : 1));
    if (!cnt || !ent || !b->out_ptr || !b->out_dst || !b->out_eid || !b->out_w_norm || !b->out_w_mean) {
        free(cnt), free(ent);
        return gs_fail(err, GS_EFAIL, "out of memory building a block");
    }
    for (int64_t e = 0; e < b->m; e++) cnt[b->in_src[e]]++;
    for (int64_t u = 0; u < b->nsrc; u++) b->out_ptr[u + 1] = b->out_ptr[u] + cnt[u], cnt[u] = b->out_ptr[u];
    for (int64_t e = 0; e < b->m; e++)
        ent[cnt[b->in_src[e]]++] = (csr_entry_t){b->orig_id[b->in_dst[e]], b->in_dst[e], e, b->w_norm[e], b->w_mean[e]};
    for (int64_t u = 0; u < b->nsrc; u++) {
        csr_entry_t *row = ent + b->out_ptr[u];
        qsort(row, (size_t)(b->out_ptr[u + 1] - b->out_ptr[u]), sizeof *row, cmp_entry);
    }
    for (int64_t k = 0; k < b->m; k++)
        b->out_dst[k] = ent[k].dst, b->out_eid[k] = ent[k].eid, b->out_w_norm[k] = ent[k].wn, b->out_w_mean[k] = ent[k].wm;
    free(cnt), free(ent);
    return GS_OK;
}

/* Block h: destinations dst (nd), sources src (ns, dst a prefix), map the
 * graph's-id to source-row scratch (all -1 on entry and on return). */
static int build_one(const graph_t *g, int h, const int32_t *dst, int64_t nd, const int32_t *const *src_parts,
                     const int64_t *src_n, int32_t *map, graph_t *b, gs_err_t *err)
{
    memset(b, 0, sizeof *b);
    int64_t ns = src_n[0] + src_n[1], m = 0;
    b->n = nd, b->nsrc = ns, b->nbase = src_n[0], b->ntypes = g->ntypes;
    b->orig_id = malloc(sizeof(int32_t) * (size_t)(ns ? ns : 1));
    b->in_ptr = calloc((size_t)nd + 1, sizeof *b->in_ptr);
    if (!b->orig_id || !b->in_ptr) return gs_fail(err, GS_EFAIL, "out of memory building a block");
    int rc = GS_OK;
    int64_t r = 0;
    for (int p = 0; p < 2; p++)
        for (int64_t i = 0; i < src_n[p]; i++, r++) {
            int32_t v = src_parts[p][i];
            if (v < 0 || v >= g->n || map[v] >= 0) {
                rc = gs_fail(err, GS_EINPUT, "hop %d: source vertex %d is out of range or listed twice", h, v);
                goto done;
            }
            map[v] = (int32_t)r, b->orig_id[r] = g->orig_id[v];
        }
    for (int64_t i = 0; i < nd; i++) {
        if (dst[i] != src_parts[0][i]) {
            rc = gs_fail(err, GS_EINPUT, "hop %d: the destinations are not a prefix of the sources", h);
            goto done;
        }
        m += g->in_ptr[dst[i] + 1] - g->in_ptr[dst[i]];
    }
    b->m = m;
    b->in_src = malloc(sizeof(int32_t) * (size_t)(m ? m : 1));
    b->in_dst = malloc(sizeof(int32_t) * (size_t)(m ? m : 1));
    b->etype = malloc(sizeof(int32_t) * (size_t)(m ? m : 1));
    b->w_norm = malloc(sizeof(float) * (size_t)(m ? m : 1));
    b->w_mean = malloc(sizeof(float) * (size_t)(m ? m : 1));
    if (!b->in_src || !b->in_dst || !b->etype || !b->w_norm || !b->w_mean) {
        rc = gs_fail(err, GS_EFAIL, "out of memory building a block");
        goto done;
    }
    int64_t k = 0;
    for (int64_t i = 0; i < nd; i++) {
        for (int64_t e = g->in_ptr[dst[i]]; e < g->in_ptr[dst[i] + 1]; e++, k++) {
            int32_t u = map[g->in_src[e]];
            if (u < 0) {
                rc = gs_fail(err, GS_EINPUT, "hop %d: vertex %d needs vertex %d, which is not among the block's sources", h,
                             g->orig_id[dst[i]], g->orig_id[g->in_src[e]]);
                goto done;
            }
            b->in_src[k] = u, b->in_dst[k] = (int32_t)i, b->etype[k] = g->etype[e];
            b->w_norm[k] = g->w_norm[e], b->w_mean[k] = g->w_mean[e];
        }
        b->in_ptr[i + 1] = k;
    }
    rc = blocks_build_csr(b, err);
done:
    for (int p = 0; p < 2; p++)
        for (int64_t i = 0; i < src_n[p]; i++)
            if (src_parts[p][i] >= 0 && src_parts[p][i] < g->n) map[src_parts[p][i]] = -1;
    return rc;
}

int blocks_build(const graph_t *g, int nhops, const int32_t *const *set, const int64_t *nset,
                 const int32_t *const *extra, const int64_t *nextra, blockset_t *out, gs_err_t *err)
{
    memset(out, 0, sizeof *out);
    if (nhops < 1 || nhops > BLOCKS_MAX_HOPS) return gs_fail(err, GS_EINPUT, "blocks: %d hops", nhops);
    int32_t *map = malloc(sizeof(int32_t) * (size_t)(g->n ? g->n : 1));
    if (!map) return gs_fail(err, GS_EFAIL, "out of memory building blocks");
    for (int64_t v = 0; v < g->n; v++) map[v] = -1;
    out->nhops = nhops;
    int rc = GS_OK;
    for (int h = 1; h <= nhops && !rc; h++) {
        const int32_t *parts[2] = {set[h - 1], extra ? extra[h - 1] : NULL};
        int64_t n[2] = {nset[h - 1], extra && nextra ? nextra[h - 1] : 0};
        rc = build_one(g, h, set[h], nset[h], parts, n, map, &out->block[h], err);
        out->ptr[h] = &out->block[h];
    }
    free(map);
    if (rc) blocks_free(out);
    return rc;
}

int blocks_khop(const graph_t *g, int nhops, const int32_t *targets, int64_t ntargets, blockset_t *out, gs_err_t *err)
{
    if (nhops < 1 || nhops > BLOCKS_MAX_HOPS) return gs_fail(err, GS_EINPUT, "blocks: %d hops", nhops);
    int32_t *set[BLOCKS_MAX_HOPS + 1] = {0};
    int64_t nset[BLOCKS_MAX_HOPS + 1] = {0};
    uint8_t *in = calloc((size_t)g->n + 1, 1);
    int rc = in ? GS_OK : gs_fail(err, GS_EFAIL, "out of memory building blocks");
    if (!rc && !(set[nhops] = malloc(sizeof(int32_t) * (size_t)(ntargets ? ntargets : 1))))
        rc = gs_fail(err, GS_EFAIL, "out of memory building blocks");
    if (!rc) memcpy(set[nhops], targets, sizeof(int32_t) * (size_t)ntargets), nset[nhops] = ntargets;
    for (int64_t i = 0; !rc && i < ntargets; i++) in[targets[i]] = 1;
    for (int k = nhops; !rc && k >= 1; k--) { /* level k-1: level k, then the in-neighbours it lacks */
        int64_t cap = nset[k], n = nset[k];
        for (int64_t i = 0; i < nset[k]; i++) cap += g->in_ptr[set[k][i] + 1] - g->in_ptr[set[k][i]];
        if (cap > g->n) cap = g->n;
        if (!(set[k - 1] = malloc(sizeof(int32_t) * (size_t)(cap ? cap : 1)))) {
            rc = gs_fail(err, GS_EFAIL, "out of memory building blocks");
            break;
        }
        memcpy(set[k - 1], set[k], sizeof(int32_t) * (size_t)nset[k]);
        for (int64_t i = 0; i < nset[k]; i++)
            for (int64_t e = g->in_ptr[set[k][i]]; e < g->in_ptr[set[k][i] + 1]; e++)
                if (!in[g->in_src[e]]) in[g->in_src[e]] = 1, set[k - 1][n++] = g->in_src[e];
        nset[k - 1] = n;
    }
    if (!rc) rc = blocks_build(g, nhops, (const int32_t *const *)set, nset, NULL, NULL, out, err);
    for (int k = 0; k <= nhops; k++) free(set[k]);
    free(in);
    return rc;
}
