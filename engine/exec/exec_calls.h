/* exec_calls.h - what the executor's forward (exec_forward.c) and
 * backward (exec_backward.c) passes share: the calls they hand the
 * execution engine (a gather, a matmul, with their tensors), the
 * elementwise kernel's arguments, the ghost rows of a distributed rank
 * before and after a source-indexed read, the bookkeeping of an op (host
 * work on the clock, FLOPs by layer for the Gather stage, the engine told
 * of host writes) and DKP's timing samples. Internal to engine/exec/. */
#ifndef GS_EXEC_CALLS_H
#define GS_EXEC_CALLS_H

#include "exec.h"

/* The value v's tensor data. */
const float *exec_data(exec_t *ex, int v);
/* The engine's call for instruction i, forward or backward. */
gather_call_t exec_gather_call(const exec_t *ex, int i, int backward);
matmul_call_t exec_matmul_call(const exec_t *ex, const instr_t *in);
/* Offers graph op i (exec_engine.h's graph_op) to the engine, forward or
 * backward (then into the operands' gradients d[k], NULL where not wanted,
 * adding where acc[k]; an op other than the fused gather is offered only
 * when its first operand wants one): 1 when the engine ran it, 0 when the
 * executor must (ex->failed on an error). */
int exec_engine_graph_op(exec_t *ex, int i, int backward, float *const *d, const int *acc);
/* Whether instructions i and i + 1 are a source scatter and the gather
 * of its edge rows whose edge tensor nothing else reads (TF-SAGA's
 * scatter-gather pair), offered to the engine as one op (exec_engine.h,
 * graph_call_t's sag). */
int exec_sag_pair(const exec_t *ex, int i);
/* Offers pair i (exec_sag_pair) to the engine, forward, or backward into
 * the scatter's input gradient (adding when acc): 1 when the engine ran
 * it, 0 when the executor must run both ops (ex->failed on an error). */
int exec_engine_sag(exec_t *ex, int i, int backward, int acc);
/* The ApplyVertex ops after gather i that an engine may run with it
 * (exec_engine.h's gather_apply), into ops (at most APPLY_MAX_OPS): how many. */
int exec_apply_chain(const exec_t *ex, int i, apply_op_t *ops);
/* The place's elementwise kernel's arguments for in (dropout keyed by the rows' original ids). */
ew_args_t exec_ew_args(const exec_t *ex, const instr_t *in);
/* Before instruction i: the ghost rows of the operands it reads by source
 * index first; after its backward, their gradients returned. */
void exec_src_ready(exec_t *ex, int i);
void exec_src_grad_ready(exec_t *ex, int i);
/* A failed engine call (rc != GS_OK) stops the pass (ex->failed, ex->err). */
void exec_engine_failed(exec_t *ex, int rc);
/* One of the executor's own ops wrote value v (or its gradient): the engine's copies go stale. */
void exec_host_wrote(exec_t *ex, int v, int grad);
/* Books op in (phase 0 forward, 1 backward), marked at m: host work on
 * the clock and to the observer unless a device engine ran it. */
void exec_op_done(exec_t *ex, const instr_t *in, int phase, int engine_op, exec_mark_t m, double flops);
/* Adds an op's FLOPs to its layer's aggregation count when it belongs to
 * the Gather stage (after a DKP rewrite the stage moves with the gather). */
void exec_count_aggregation(exec_t *ex, const instr_t *in, int phase, double flops);
/* Seconds since t0 of the op just issued (waiting for a device to finish
 * it); files a timing sample (two features, seconds) for DKP's model. */
double exec_op_seconds(exec_t *ex, double t0);
void exec_sample(double (*rows)[3], int *n, double x1, double x2, double t);

#endif
