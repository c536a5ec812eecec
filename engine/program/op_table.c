/* op_table.c - see op_table.h. The table below is the one place an op's
 * name, arity, shape rule, kind and costs are written. */
#include "op_table.h"

#include <stddef.h>

/* ---------------- shape rules ---------------- */

#define SHAPE(name) \
    static const char *name(const program_t *p, const value_t *const *v, int nin, float fparam, int iparam, val_domain_t *dom, int64_t *cols)
#define UNUSED (void)p, (void)nin, (void)fparam, (void)iparam

static val_domain_t rows_dom(val_domain_t d) { return d == DOM_EDGE ? DOM_EDGE : DOM_VERTEX; }
static int same_rows(const value_t *a, const value_t *b) { return b && rows_dom(b->dom) == rows_dom(a->dom) && b->cols == a->cols; }

SHAPE(shape_rowwise)
{
    UNUSED, (void)v, (void)dom, (void)cols;
    return NULL;
}

SHAPE(shape_matmul)
{
    UNUSED, (void)dom;
    if (!v[1] || v[1]->dom != DOM_PARAM || v[1]->rows != v[0]->cols) return "needs a (K, M) parameter with K = cols";
    *cols = v[1]->cols;
    return NULL;
}

SHAPE(shape_bias)
{
    UNUSED, (void)dom, (void)cols;
    return !v[1] || v[1]->dom != DOM_PARAM || v[1]->rows != 1 || v[1]->cols != v[0]->cols ? "needs a (1, cols) parameter" : NULL;
}

SHAPE(shape_binary)
{
    UNUSED, (void)dom, (void)cols;
    return same_rows(v[0], v[1]) ? NULL : "shapes differ";
}

SHAPE(shape_lerp)
{
    UNUSED, (void)dom, (void)cols;
    return same_rows(v[0], v[1]) && same_rows(v[0], v[2]) ? NULL : "shapes differ";
}

SHAPE(shape_dropout)
{
    UNUSED, (void)v, (void)dom, (void)cols;
    return fparam >= 0.0f && fparam < 1.0f ? NULL : "drop probability must be in [0, 1)";
}

SHAPE(shape_head_dot)
{
    UNUSED, (void)dom;
    if (!v[1] || v[1]->dom != DOM_PARAM || v[1]->rows != 1 || v[1]->cols != *cols || iparam < 1 || *cols % iparam)
        return "needs a (1, K*H) parameter and K dividing cols";
    *cols = iparam;
    return NULL;
}

/* vertex -> vertex (a gather) or vertex -> edge (a scatter) */
SHAPE(shape_from_vertices)
{
    UNUSED, (void)v, (void)cols;
    return *dom == DOM_VERTEX ? NULL : "needs a vertex tensor";
}

SHAPE(shape_scatter)
{
    const char *why = shape_from_vertices(p, v, nin, fparam, iparam, dom, cols);
    *dom = DOM_EDGE;
    return why;
}

SHAPE(shape_edge_softmax)
{
    UNUSED, (void)v, (void)cols;
    return *dom == DOM_EDGE ? NULL : "needs an edge tensor";
}

SHAPE(shape_gather_edge)
{
    const char *why = shape_edge_softmax(p, v, nin, fparam, iparam, dom, cols);
    *dom = DOM_VERTEX;
    return why;
}

SHAPE(shape_uaddv)
{
    UNUSED;
    if (*dom != DOM_VERTEX || !v[1] || rows_dom(v[1]->dom) != DOM_VERTEX || v[1]->cols != *cols)
        return "needs two vertex tensors of equal width";
    *dom = DOM_EDGE;
    return NULL;
}

SHAPE(shape_attn)
{
    UNUSED;
    return *dom != DOM_VERTEX || !v[1] || v[1]->dom != DOM_EDGE || v[1]->cols != iparam || iparam < 1 || *cols % iparam
               ? "needs X (N, K*H) and A (E, K)"
               : NULL;
}

SHAPE(shape_typed)
{
    UNUSED, (void)v;
    if (*dom != DOM_VERTEX || p->ntypes < 1 || *cols % p->ntypes) return "needs (N, T*H)";
    *cols /= p->ntypes;
    return NULL;
}

SHAPE(shape_scatter_typed)
{
    const char *why = shape_typed(p, v, nin, fparam, iparam, dom, cols);
    *dom = DOM_EDGE;
    return why;
}

SHAPE(shape_edge_matmul_typed)
{
    UNUSED;
    if (*dom != DOM_EDGE || !v[1] || v[1]->dom != DOM_PARAM || v[1]->rows != v[0]->cols || p->ntypes < 1 || v[1]->cols % p->ntypes)
        return "needs an edge tensor (E, K) and a (K, T*M) parameter";
    *cols = v[1]->cols / p->ntypes;
    return NULL;
}

/* ---------------- FLOPs ---------------- */

/* A product of each row, forward; backward once per gradient it computes. */
static double flops_product(const op_dims_t *d, int backward) { return 2.0 * d->in_rows * d->in_cols * d->cols * (backward ? d->grads : 1); }
static double flops_ew(const op_dims_t *d, int backward) { return backward ? (d->grads ? 2.0 * d->rows * d->cols : 0) : d->rows * d->cols; }
static double flops_head_dot(const op_dims_t *d, int backward) { return (backward ? 4.0 : 2.0) * d->rows * d->in_cols; }
static double flops_sum(const op_dims_t *d, int backward) { return backward && !d->grads ? 0 : 2.0 * d->edges * d->cols; }
static double flops_max(const op_dims_t *d, int backward) { return backward ? 0 : d->edges * d->cols; }
static double flops_none(const op_dims_t *d, int backward) { return (void)d, (void)backward, 0; }
static double flops_gather_edge(const op_dims_t *d, int backward) { return backward ? 0 : 2.0 * d->edges * d->cols; }
static double flops_softmax(const op_dims_t *d, int backward) { return backward ? 0 : 4.0 * d->edges * d->cols; }
static double flops_attn(const op_dims_t *d, int backward) { return (backward ? 4.0 : 2.0) * d->edges * d->cols; }
/* The steps and the weighted add per edge; backward, per pass (source and destination leaves) the recomputed steps and their rules. */
static double flops_fused(const op_dims_t *d, int backward)
{
    return backward ? d->grads * (4.0 + 3.0 * d->nstep) * d->edges * d->cols : (2.0 + d->nstep) * d->edges * d->cols;
}

/* ---------------- the table ---------------- */

#define EW (OPF_EW | OPF_FUSABLE)
static const op_desc_t table[OP__COUNT] = {
    [OP_MATMUL] = {"matmul", 2, 2, OPF_ENGINE | OPF_HOISTABLE, OPS_NONE, 0, shape_matmul, flops_product, OPB_IN0},
    [OP_BIAS] = {"bias", 2, 2, OPF_EW | OPF_HOISTABLE, OPS_NONE, 0, shape_bias, flops_ew, 0},
    [OP_ADD] = {"add", 2, 2, EW, OPS_NONE, 0, shape_binary, flops_ew, 0},
    [OP_MUL] = {"mul", 2, 2, EW, OPS_NONE, 0, shape_binary, flops_ew, OPB_IN0 | OPB_IN1},
    [OP_LERP] = {"lerp", 3, 3, EW, OPS_NONE, 0, shape_lerp, flops_ew, OPB_INS},
    [OP_RELU] = {"relu", 1, 1, EW, OPS_NONE, 0, shape_rowwise, flops_ew, OPB_OUT},
    [OP_LEAKY_RELU] = {"leaky_relu", 1, 1, EW, OPS_NONE, 0, shape_rowwise, flops_ew, OPB_IN0},
    [OP_ELU] = {"elu", 1, 1, EW, OPS_NONE, 0, shape_rowwise, flops_ew, OPB_IN0 | OPB_OUT},
    [OP_SIGMOID] = {"sigmoid", 1, 1, EW, OPS_NONE, 0, shape_rowwise, flops_ew, OPB_OUT},
    [OP_TANH] = {"tanh", 1, 1, EW, OPS_NONE, 0, shape_rowwise, flops_ew, OPB_OUT},
    [OP_DROPOUT] = {"dropout", 1, 1, OPF_EW | OPF_MASKED, OPS_NONE, 0, shape_dropout, flops_ew, 0},
    [OP_HEAD_DOT] = {"head_dot", 2, 2, OPF_HOISTABLE, OPS_NONE, 0, shape_head_dot, flops_head_dot, OPB_IN0},
    [OP_GATHER] = {"gather", 1, 1, OPF_ENGINE | OPF_AGGREGATE, OPS_UP, 1, shape_from_vertices, flops_sum, 0},
    [OP_GATHER_MAX] = {"gather_max", 1, 1, OPF_AGGREGATE, OPS_UP, 1, shape_from_vertices, flops_max, 0},
    [OP_SCATTER_SRC] = {"scatter_src", 1, 1, OPF_SCATTER, OPS_UP, 1, shape_scatter, flops_none, 0},
    [OP_SCATTER_DST] = {"scatter_dst", 1, 1, OPF_SCATTER, OPS_UP, 0, shape_scatter, flops_none, 0},
    [OP_GATHER_EDGE] = {"gather_edge", 1, 1, OPF_AGGREGATE, OPS_EDGES, 0, shape_gather_edge, flops_gather_edge, 0},
    [OP_EDGE_UADDV] = {"edge_uaddv", 2, 2, 0, OPS_UP, 1, shape_uaddv, flops_none, 0},
    [OP_EDGE_SOFTMAX] = {"edge_softmax", 1, 1, 0, OPS_EDGES, 0, shape_edge_softmax, flops_softmax, OPB_OUT},
    [OP_GATHER_ATTN] = {"gather_attn", 2, 2, OPF_AGGREGATE, OPS_UP, 1, shape_attn, flops_attn, OPB_IN0 | OPB_IN1},
    [OP_GATHER_TYPED] = {"gather_typed", 1, 1, OPF_ENGINE | OPF_AGGREGATE, OPS_UP, 1, shape_typed, flops_sum, 0},
    [OP_GATHER_FUSED] = {"gather_fused", 1, FUSE_MAX_LEAVES, OPF_AGGREGATE, OPS_UP_ALL, 0, NULL, flops_fused, OPB_INS},
    [OP_SCATTER_TYPED] = {"scatter_typed", 1, 1, 0, OPS_UP, 1, shape_scatter_typed, flops_none, 0},
    [OP_EDGE_MATMUL_TYPED] = {"edge_matmul_typed", 2, 2, 0, OPS_EDGES, 0, shape_edge_matmul_typed, flops_product, OPB_IN0},
    [OP_GATHER_EDGE_MAX] = {"gather_edge_max", 1, 1, OPF_AGGREGATE, OPS_EDGES, 0, shape_gather_edge, flops_max, 0},
};

const op_desc_t *op_desc(op_kind_t op) { return op < OP__COUNT && table[op].name ? &table[op] : NULL; }

const char *op_name(op_kind_t op)
{
    const op_desc_t *d = op_desc(op);
    return d ? d->name : "?";
}

double op_flops(const program_t *p, const instr_t *in, op_dims_t d, int backward)
{
    if (in->op == OP_GATHER_FUSED) d.nstep = p->fused[in->iparam].nstep;
    return op_desc(in->op)->flops(&d, backward);
}

op_traffic_t op_traffic(const program_t *p, const instr_t *in, const op_dims_t *d)
{
    double rows_per_edge = 1;
    if (in->op == OP_GATHER_FUSED) rows_per_edge = in->nin - __builtin_popcount(p->fused[in->iparam].leaf_dst);
    return (op_traffic_t){4.0 * d->io_floats, d->edges > 0 ? 4.0 * rows_per_edge * d->edges * d->cols : 0};
}

int op_reads_by_source(const program_t *p, const instr_t *in, int k)
{
    if (in->op == OP_GATHER_FUSED) return !(p->fused[in->iparam].leaf_dst >> k & 1);
    return op_desc(in->op)->by_source >> k & 1;
}
