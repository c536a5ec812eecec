/* op_table.h - one description per op of the SAGA-NN programs (program.h),
 * read by everything that needs to know an op: the program builder (its
 * name, arity and shape rule), the executor (which engine runs it, how it
 * moves between levels, which operands it reads by source index, its
 * FLOPs and bytes forward and backward), the fusion pass (elementwise,
 * hoistable, scatter), DKP and the partitioner (aggregations), the
 * distributed cost model (a vertex op's FLOPs per row) and the streaming
 * engine (what it streams). The ops' arithmetic lives with the kernels
 * (engine/kernels/); their vector-Jacobian rules with the executor. */
#ifndef GS_OP_TABLE_H
#define GS_OP_TABLE_H

#include "program_types.h"

/* op_desc_t.flags */
enum {
    OPF_ENGINE = 1,      /* runs on the execution engine (matmuls and sum gathers), not the place's op table */
    OPF_EW = 2,          /* elementwise over rows: the place's elementwise kernel runs it */
    OPF_FUSABLE = 4,     /* elementwise without a parameter or a mask: a fused gather evaluates it per edge */
    OPF_HOISTABLE = 8,   /* has a parameter operand and acts on each row alone: commutes with a scatter */
    OPF_SCATTER = 16,    /* puts a vertex row on each edge, by its source or destination */
    OPF_AGGREGATE = 32,  /* sums (or maxes) onto the vertices: a Gather */
    OPF_MASKED = 64,     /* draws a counter-keyed mask: its site gets a key that survives rewrites */
};

/* How an op moves between levels (exec.h, "Vertex sets"). */
typedef enum {
    OPS_NONE,   /* stays on its operands' level */
    OPS_UP,     /* from its first operand's level to the next, through that hop's block */
    OPS_UP_ALL, /* the same from its latest operand's level (a fused gather's leaves) */
    OPS_EDGES,  /* on the edges of its first operand's hop (edge to edge, edge to vertex) */
} op_step_t;

/* The sizes an op's cost depends on: its output's rows and width, its
 * first operand's rows and width, the edges of its hop, and backward the
 * gradients it computes (a fused gather: its passes over the edges, and
 * its steps). */
typedef struct {
    double rows, cols, in_rows, in_cols, edges;
    int grads;
    int nstep;
    double io_floats; /* the floats of its operands and output (op_traffic) */
} op_dims_t;

typedef struct {
    const char *name;
    int8_t nin_min, nin_max;
    uint8_t flags;
    op_step_t step;
    uint8_t by_source;   /* operands read by source index (bit k: operand k); a fused gather: its source leaves */
    /* The output's domain and width from the operands (v[k], nin of them,
     * the rest NULL) and the op's parameters: *dom and *cols start as the
     * first operand's rows and width. Returns NULL, or why they do not fit. */
    const char *(*shape)(const program_t *p, const value_t *const *v, int nin, float fparam, int iparam, val_domain_t *dom,
                         int64_t *cols);
    /* FLOPs forward (backward = 0) or backward. */
    double (*flops)(const op_dims_t *d, int backward);
    /* The forward values its vector-Jacobian rule reads (OPB_*): what must
     * outlive the forward pass for it (buffer_plan.h). Its output's
     * gradient it always reads; argmax winners are kept apart. */
    uint8_t bwd_reads;
} op_desc_t;

/* op_desc_t.bwd_reads */
enum {
    OPB_IN0 = 1, /* operand k's value: bit k */
    OPB_IN1 = 2,
    OPB_IN2 = 4,
    OPB_INS = 7, /* every operand (a fused gather's leaves) */
    OPB_OUT = 8, /* its own output's value */
};

/* The op's name ("?" for an unknown op). */
const char *op_name(op_kind_t op);
/* The description of op (NULL for an unknown op). */
const op_desc_t *op_desc(op_kind_t op);
static inline int op_has(op_kind_t op, unsigned flag)
{
    const op_desc_t *d = op_desc(op);
    return d && (d->flags & flag);
}
/* FLOPs of instruction in of program p at sizes d. */
double op_flops(const program_t *p, const instr_t *in, op_dims_t d, int backward);
/* Bytes instruction in of program p moves at sizes d (the host roofline's
 * memory side), forward, and backward as the same tensors' gradients:
 * its tensors streamed once, and a graph op's rows read by index per edge
 * (a fused gather: one per source leaf). */
typedef struct {
    double stream, rows;
} op_traffic_t;
op_traffic_t op_traffic(const program_t *p, const instr_t *in, const op_dims_t *d);
static inline double op_traffic_bytes(op_traffic_t t) { return t.stream + t.rows; }
/* Whether instruction in of p reads operand k by source index. */
int op_reads_by_source(const program_t *p, const instr_t *in, int k);

#endif
