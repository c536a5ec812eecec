/* slabs.h - the shared buffers of an in-memory executor (exec.h,
 * share_buffers): one allocation per slab of the program's buffer plan
 * (engine/program/buffer_plan.h), the plan built at the first fit from that
 * fit's sizes, each slab grown to its largest member when a later fit (a
 * bigger mini-batch) needs more. A tensor's data is its slab's. */
#ifndef GS_SLABS_H
#define GS_SLABS_H

#include "engine/kernels/kops.h"
#include "engine/program/buffer_plan.h"

typedef struct {
    buffer_plan_t plan;
    tensor_t *slab;
    int64_t *cap; /* floats each slab holds */
} slabs_t;

/* Plans p on the first call (relu_masks: RELU's rules read sign bits, not
 * its output), then grows the slabs to bytes[] (per value: its tensor's
 * size, its gradient's too). */
int slabs_fit(slabs_t *s, const program_t *p, kplace_t kp, const double *bytes, int relu_masks, gs_err_t *err);
/* The data of tensor t (2v: value v, 2v+1: its gradient), NULL when unplanned. */
float *slabs_data(const slabs_t *s, int t);
void slabs_free(slabs_t *s, kplace_t kp);

#endif
