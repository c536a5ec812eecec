/* edge_chunks.c - see edge_chunks.h: the parts of a sub-chunk's
 * structure, their packed copy, and which structures are kept (keyed by
 * orientation, sub-chunk, weights and types; edge_store.c holds them). */
#include "edge_chunks.h"

#include "base/parse.h"

static const int32_t *lidx_of(const sub_t *u, lidx_kind_t lk)
{
    return lk == LIDX_FULL ? u->lidx_full : lk == LIDX_SEL ? u->lidx_sel : u->lidx_grp;
}

/* Whether u can be read in numbering lk: the whole block's and the
 * filtered rows' always, a device group's once stream_chain built them
 * (for every sub-chunk at once). Without the kernel arrays (a simulated
 * run) the same answer, from the groups rather than the pointer. */
static int has_lidx(const streamer_t *s, const orient_t *o, const sub_t *u, lidx_kind_t lk)
{
    if (s->fields & SUB_KERNEL_ARRAYS) return lidx_of(u, lk) != NULL;
    return lk != LIDX_GRP || o->grp != NULL;
}

/* Where each array of a packed structure is (indices into its parts; -1: absent). */
typedef struct {
    int n, lidx, alt, ids, w, etype;
} layout_t;

/* The parts of a structure, in device order: offsets, listed rows, the
 * edges' input rows in numbering lk (and in numbering alt after them,
 * unless alt is lk: a kept structure serves filtered and whole blocks;
 * and in the whole block's when ids are asked for and neither is it),
 * weights, types. A simulated run's parts have their sizes and no data. */
static layout_t parts_of(const streamer_t *s, const orient_t *o, const sub_t *u, lidx_kind_t lk, lidx_kind_t alt,
                         agg_weight_t agg, int typed, int ids, copy_part_t *p)
{
    layout_t l = {0, 2, -1, -1, -1, -1};
    size_t e = sizeof(int32_t) * (size_t)u->nnz;
    p[l.n++] = (copy_part_t){u->ptr, sizeof(int64_t) * (size_t)(u->nout + 1)};
    p[l.n++] = (copy_part_t){u->orow, sizeof(int32_t) * (size_t)u->nout};
    p[l.n++] = (copy_part_t){lidx_of(u, lk), e};
    if (alt != lk && has_lidx(s, o, u, alt)) l.alt = l.n, p[l.n++] = (copy_part_t){lidx_of(u, alt), e};
    if (ids) l.ids = lk == LIDX_FULL ? l.lidx : alt == LIDX_FULL && l.alt >= 0 ? l.alt : l.n;
    if (l.ids == l.n) p[l.n++] = (copy_part_t){u->lidx_full, e};
    if (agg != AGG_ONE) l.w = l.n, p[l.n++] = (copy_part_t){u->w[agg], sizeof(float) * (size_t)u->nnz};
    if (typed) l.etype = l.n, p[l.n++] = (copy_part_t){u->etype, e};
    return l;
}

/* The device addresses of a structure packed at base (parts_of's
 * layout), reading the numbering of part `use`. */
static edge_view_t view_at(char *base, const copy_part_t *p, const layout_t *l, int use)
{
    edge_view_t v = {0};
    size_t at = 0;
    const void *addr[GS_COPY_MAX_PARTS];
    for (int i = 0; i < l->n; i++)
        addr[i] = base + at, at += copy_part_align(p[i].bytes);
    v.ptr = addr[0], v.orow = addr[1], v.lidx = addr[use];
    if (l->w >= 0) v.w = addr[l->w];
    if (l->etype >= 0) v.etype = addr[l->etype];
    if (l->ids >= 0) v.ids = addr[l->ids];
    return v;
}

static double parts_bytes(const copy_part_t *p, int n)
{
    double bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += (double)p[i].bytes;
    return bytes;
}

/* ---------------- the store ---------------- */

static uint64_t key_of(const streamer_t *s, const orient_t *o, size_t at, agg_weight_t agg, int typed)
{
    uint64_t orient = o == &s->bwd;
    return (((uint64_t)at << 1 | orient) << 2 | (uint64_t)agg) << 1 | (uint64_t)(typed != 0);
}

/* A kept copy of the structure on d: found, or allocated and copied in
 * (*copied). NULL when it cannot be kept. */
static void *kept(streamer_t *s, int d, uint64_t key, const copy_part_t *p, int n, chunk_tag_t tag, int *copied)
{
    void *dev = edge_store_find(&s->edges, d, key);
    *copied = 0;
    if (dev) return dev;
    size_t bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += copy_part_align(p[i].bytes);
    if (!(dev = edge_store_add(&s->edges, d, key, bytes))) return NULL;
    s->ops->copy_parts(s->b, d, dev, p, n, tag);
    *copied = 1;
    return dev;
}

/* --edge-chunks resident on a device that cannot hold them. */
static int resident_full(const streamer_t *s, int d, gs_err_t *err)
{
    char kept_s[32], cap_s[32];
    gs_format_bytes(s->edges.held[d], kept_s, sizeof kept_s);
    gs_format_bytes((double)s->ops->capacity(s->b, d), cap_s, sizeof cap_s);
    return gs_fail(
        err, GS_EINPUT,
        "--edge-chunks resident: device %d cannot hold the edge chunks (%s kept, cap %s); use --edge-chunks auto or "
        "stream, or raise --device-mem",
        d, kept_s, cap_s);
}

int edge_load(streamer_t *s, int d, const orient_t *o, size_t at, lidx_kind_t lidx_kind, agg_weight_t agg, int typed,
              int ids, void *slot, chunk_tag_t tag, edge_view_t *out, gs_err_t *err)
{
    const sub_t *u = &o->sub[at];
    copy_part_t p[GS_COPY_MAX_PARTS];
    int weighted = agg != AGG_ONE, copied = 0;
    char *base = NULL;
    if ((s->fields & SUB_KERNEL_ARRAYS) && ((weighted && !u->w[agg]) || (typed && !u->etype))) /* stream_edge_fields missed an op */
        return gs_fail(err, GS_EFAIL, "internal: the sub-chunks hold no %s for this gather", typed && !u->etype ? "edge types" : "weights");
    /* kept: both numberings the passes read (whole blocks, and filtered or group rows); a pass that
     * runs naive under chain or ring (the edge-tensor ops) streams what it reads filtered */
    lidx_kind_t alt = s->kn.multidev == MD_NAIVE || s->ndev == 1 ? LIDX_SEL : LIDX_GRP;
    if (s->kn.edge_chunks != EDGE_STREAM && !s->edges.given_up && (lidx_kind == LIDX_FULL || lidx_kind == alt)) {
        layout_t l = parts_of(s, o, u, LIDX_FULL, alt, agg, typed, ids, p);
        base = kept(s, d, key_of(s, o, at, agg, typed), p, l.n, tag, &copied);
        if (!base && s->kn.edge_chunks == EDGE_RESIDENT) return resident_full(s, d, err);
        if (base && lidx_kind != LIDX_FULL && l.alt < 0)
            return gs_fail(err, GS_EFAIL, "internal: a kept edge chunk lacks the rows it is read by");
        if (base) {
            *out = view_at(base, p, &l, lidx_kind == LIDX_FULL ? l.lidx : l.alt);
            if (copied) s->ctr.edge_h2d_bytes += parts_bytes(p, l.n);
            return GS_OK;
        }
        s->edges.given_up = 1; /* auto: the cap is full; stream from now on (the kept chunks go when the pass ends) */
    }
    layout_t l = parts_of(s, o, u, lidx_kind, lidx_kind, agg, typed, ids, p);
    s->ops->copy_parts(s->b, d, slot, p, l.n, tag);
    s->ctr.edge_h2d_bytes += parts_bytes(p, l.n);
    *out = view_at(slot, p, &l, l.lidx);
    return GS_OK;
}
