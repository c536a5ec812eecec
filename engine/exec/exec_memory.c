/* exec_memory.c - the in-memory execution engine (exec_engine.h): gathers
 * and products run on the place's own kernels, in its memory. Nothing is
 * cached, so host_wrote and the ghost-row hooks are not needed. */
#include "exec_engine.h"
#include "engine/kernels/kops.h"

static int mem_gather(void *self, const gather_call_t *c, gs_err_t *err)
{
    (void)err;
    const kplace_t *p = self;
    if (c->typed == TYPED_IN) p->K->gather_typed(p->cx, c->g, c->agg, c->in.data, c->f, c->out.data, c->acc);
    else p->K->gather_sum(p->cx, c->g, c->agg, c->in.data, c->f, c->out.data, c->acc);
    return GS_OK;
}

static int mem_gather_bwd(void *self, const gather_call_t *c, gs_err_t *err)
{
    (void)err;
    const kplace_t *p = self;
    if (c->typed == TYPED_OUT) p->K->gather_typed_bwd(p->cx, c->g, c->agg, c->in.data, c->f, c->out.data, c->acc);
    else p->K->gather_sum_bwd(p->cx, c->g, c->agg, c->in.data, c->f, c->out.data, c->acc);
    return GS_OK;
}

static int mem_matmul(void *self, const matmul_call_t *c, gs_err_t *err)
{
    (void)err;
    const kplace_t *p = self;
    p->K->gemm(p->cx, 0, 0, c->a.rows, c->f, c->a.cols, c->a.data, c->w, c->out.data, 0);
    return GS_OK;
}

static int mem_matmul_bwd(void *self, const matmul_call_t *c, gs_err_t *err)
{
    (void)err;
    const kplace_t *p = self;
    if (c->da.data) p->K->gemm(p->cx, 0, 1, c->a.rows, c->a.cols, c->f, c->dy.data, c->w, c->da.data, c->acc_a);
    if (c->dw) p->K->gemm(p->cx, 1, 0, c->a.cols, c->f, c->a.rows, c->a.data, c->dy.data, c->dw, c->acc_w);
    return GS_OK;
}

const exec_engine_ops_t exec_memory_ops = {
    .name = "memory",
    .on_host = 1,
    .gather = mem_gather,
    .gather_bwd = mem_gather_bwd,
    .matmul = mem_matmul,
    .matmul_bwd = mem_matmul_bwd,
};
