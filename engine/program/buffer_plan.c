/* buffer_plan.c - see buffer_plan.h. Times are half-steps of one training
 * step of n instructions: forward op j reads at 2j (an elementwise op, so
 * that its output may take a dying operand's buffer) or 2j+1 and writes at
 * 2j+1; the loss runs at 2n; the backward rule of op j reads and writes at
 * b = 2n+1+2(n-1-j), except that an in-place rule (rule_in_place) reads its
 * output's gradient at b-1, so that its operand's gradient, first written
 * at b, may take that buffer. */
#include "buffer_plan.h"

#include <math.h>
#include <stdlib.h>

#include "op_table.h"

typedef struct {
    int64_t start, end; /* inclusive; start > end: not planned */
} life_t;

static int owned(const program_t *p, int v) { return p->vals[v].dom == DOM_VERTEX || p->vals[v].dom == DOM_EDGE; }

/* Whether in's rule may write its operand's gradient over its output's:
 * an elementwise op with one vertex or edge operand (a bias's other one is
 * a parameter, its gradient a column sum taken first), whose kernels read
 * each element of the output's gradient before writing the operand's. */
static int rule_in_place(const program_t *p, const instr_t *in)
{
    if (!(op_desc(in->op)->flags & OPF_EW)) return 0;
    return in->nin == 1 || (in->op == OP_BIAS && !owned(p, in->in[1]));
}

static void extend(life_t *l, int64_t t)
{
    if (t > l->end) l->end = t;
}

int plan_keeps_sign_bits(const program_t *p, const instr_t *in, int relu_masks)
{
    return relu_masks && in->op == OP_RELU && p->vals[in->out].requires_grad;
}

/* The lives of every value (life[2v]) and gradient (life[2v+1]). */
static void lives(const program_t *p, int relu_masks, life_t *life)
{
    int64_t n = p->ncode, loss = 2 * n, never = INT64_MAX;
    for (int t = 0; t < 2 * p->nvals; t++) life[t] = (life_t){never, -1};
    for (int j = 0; j < p->ncode; j++) { /* each value from its write; each gradient until its producer's rule */
        const instr_t *in = &p->code[j];
        int64_t bwd = 2 * n + 1 + 2 * (n - 1 - j);
        life[2 * in->out] = (life_t){2 * j + 1, 2 * j + 1};
        if (p->vals[in->out].requires_grad) {
            life[2 * in->out + 1] = (life_t){bwd, bwd};
            if ((op_desc(in->op)->bwd_reads & OPB_OUT) && !plan_keeps_sign_bits(p, in, relu_masks)) extend(&life[2 * in->out], bwd);
        }
    }
    for (int j = 0; j < p->ncode; j++) { /* each operand until its last reader, forward and backward */
        const instr_t *in = &p->code[j];
        const op_desc_t *d = op_desc(in->op);
        int64_t bwd = 2 * n + 1 + 2 * (n - 1 - j), read = (d->flags & OPF_EW) ? 2 * j : 2 * j + 1;
        int rule_runs = p->vals[in->out].requires_grad;
        for (int k = 0; k < in->nin; k++) {
            int v = in->in[k];
            extend(&life[2 * v], read);
            if (rule_runs && (d->bwd_reads >> k & 1)) extend(&life[2 * v], bwd);
            if (rule_runs && p->vals[v].requires_grad && bwd < life[2 * v + 1].start) life[2 * v + 1].start = bwd;
        }
    }
    if (p->output >= 0) {
        extend(&life[2 * p->output], 4 * n + 2); /* the caller reads it after the step */
        if (loss < life[2 * p->output + 1].start) life[2 * p->output + 1].start = loss;
    }
    for (int j = 0; j < p->ncode; j++) { /* in-place rules let go of their output's gradient a half-step early */
        life_t *g = &life[2 * p->code[j].out + 1];
        if (rule_in_place(p, &p->code[j]) && g->start < g->end) g->end--;
    }
    for (int v = 0; v < p->nvals; v++)
        if (!owned(p, v)) life[2 * v] = life[2 * v + 1] = (life_t){never, -1};
}

/* A planned tensor and what orders it: largest first, then earliest, then
 * by id; and the tensor whose slab it takes when that slab is free for it
 * (-1: none), so that an in-place op's output (or rule's gradient) does
 * alias what it overwrites. */
typedef struct {
    double bytes;
    int64_t start;
    int t, prefer;
} entry_t;

/* Per tensor, the one it would overwrite in place: an elementwise op's
 * output its first owned operand, an in-place rule's operand gradient its
 * output's gradient. */
static void preferences(const program_t *p, int *prefer)
{
    for (int t = 0; t < 2 * p->nvals; t++) prefer[t] = -1;
    for (int j = 0; j < p->ncode; j++) {
        const instr_t *in = &p->code[j];
        for (int k = in->nin - 1; k >= 0 && (op_desc(in->op)->flags & OPF_EW); k--)
            if (owned(p, in->in[k])) prefer[2 * in->out] = 2 * in->in[k];
        if (rule_in_place(p, in)) prefer[2 * in->in[0] + 1] = 2 * in->out + 1;
    }
}

static int by_size(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->t - y->t;
}

/* Tensor t into the smallest slab none of whose members' lives meet its own. */
static void place(buffer_plan_t *bp, const life_t *life, const entry_t *order, int placed, double *slab_bytes,
                  unsigned char *busy)
{
    int t = order[placed].t;
    for (int s = 0; s < bp->nslab; s++) busy[s] = 0;
    for (int i = 0; i < placed; i++) {
        int u = order[i].t;
        if (life[u].start <= life[t].end && life[t].start <= life[u].end) busy[bp->slab_of[u]] = 1;
    }
    int best = -1, want = order[placed].prefer >= 0 ? bp->slab_of[order[placed].prefer] : -1;
    for (int s = 0; s < bp->nslab; s++)
        if (!busy[s] && (best < 0 || slab_bytes[s] < slab_bytes[best])) best = s;
    if (want >= 0 && want < bp->nslab && !busy[want]) best = want;
    if (best < 0) best = bp->nslab++, slab_bytes[best] = order[placed].bytes;
    bp->slab_of[t] = best;
}

int buffer_plan_build(const program_t *p, const double *bytes, int relu_masks, buffer_plan_t *bp, gs_err_t *err)
{
    int nt = 2 * p->nvals;
    *bp = (buffer_plan_t){nt, 0, malloc(sizeof(int) * (size_t)(nt ? nt : 1))};
    life_t *life = malloc(sizeof(life_t) * (size_t)(nt ? nt : 1));
    entry_t *order = malloc(sizeof(entry_t) * (size_t)(nt ? nt : 1));
    double *slab_bytes = malloc(sizeof(double) * (size_t)(nt ? nt : 1));
    unsigned char *busy = calloc((size_t)(nt ? nt : 1), 1);
    int *prefer = malloc(sizeof(int) * (size_t)(nt ? nt : 1));
    int rc = GS_OK, nplan = 0;
    if (!bp->slab_of || !life || !order || !slab_bytes || !busy || !prefer) {
        rc = gs_fail(err, GS_EFAIL, "out of memory planning the buffers");
    } else {
        lives(p, relu_masks, life);
        preferences(p, prefer);
        for (int t = 0; t < nt; t++) {
            bp->slab_of[t] = -1;
            if (life[t].start <= life[t].end) order[nplan++] = (entry_t){bytes[t / 2], life[t].start, t, prefer[t]};
        }
        qsort(order, (size_t)nplan, sizeof(entry_t), by_size);
        for (int i = 0; i < nplan; i++) place(bp, life, order, i, slab_bytes, busy);
    }
    free(life), free(order), free(slab_bytes), free(busy), free(prefer);
    if (rc) buffer_plan_free(bp);
    return rc;
}

double buffer_plan_bytes(const buffer_plan_t *bp, const double *bytes)
{
    double *most = calloc((size_t)(bp->nslab ? bp->nslab : 1), sizeof(double)), sum = 0;
    if (!most) return -1;
    for (int t = 0; t < bp->ntensors; t++)
        if (bp->slab_of[t] >= 0 && bytes[t / 2] > most[bp->slab_of[t]]) most[bp->slab_of[t]] = bytes[t / 2];
    for (int s = 0; s < bp->nslab; s++) sum += most[s];
    free(most);
    return sum;
}

void buffer_plan_free(buffer_plan_t *bp)
{
    free(bp->slab_of);
    *bp = (buffer_plan_t){0, 0, NULL};
}

double prog_memory_bytes(const program_t *p, int64_t n, int64_t m, int shared, int relu_masks)
{
    double bytes = 0, tensors = 0, *size = calloc((size_t)p->nvals + 1, sizeof(double));
    if (!size) return INFINITY;
    for (int v = 0; v < p->nvals; v++) {
        const value_t *val = &p->vals[v];
        if (val->dom == DOM_PARAM) bytes += 4.0 * 4.0 * (double)val->rows * (double)val->cols; /* value, gradient, Adam's moments */
        if (val->dom != DOM_VERTEX && val->dom != DOM_EDGE) continue;
        size[v] = 4.0 * (double)(val->dom == DOM_EDGE ? m : n) * (double)val->cols;
        tensors += size[v] * (1 + (val->requires_grad != 0));
    }
    buffer_plan_t bp;
    gs_err_t err;
    relu_masks = shared && relu_masks;
    if (shared && buffer_plan_build(p, size, relu_masks, &bp, &err) == GS_OK)
        tensors = buffer_plan_bytes(&bp, size), buffer_plan_free(&bp);
    free(size);
    for (int i = 0; i < p->ncode; i++) {
        const instr_t *in = &p->code[i];
        int64_t cols = p->vals[in->out].cols;
        if (in->op == OP_GATHER_MAX || in->op == OP_GATHER_EDGE_MAX) bytes += 4.0 * (double)n * (double)cols;
        if (plan_keeps_sign_bits(p, in, relu_masks)) bytes += 8.0 * (double)n * (double)((cols + 63) / 64);
    }
    if (p->output >= 0) bytes += 4.0 * (double)n * (double)p->vals[p->output].cols;
    return bytes + tensors;
}
