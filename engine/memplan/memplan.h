/* memplan.h - which vertex tensors stay in device memory between the
 * streamed ops of a training epoch (ROC §5). One epoch of a streamed run
 * is a fixed sequence of steps: a streamed op (a gather or an ApplyVertex
 * matmul, forward or backward) that reads and writes whole (N, *) tensors,
 * or a host op that writes one (its device copies go stale). The trace of
 * one epoch is recorded, with what each streamed read cost in H2D bytes
 * when nothing was kept, and a plan says, after each step, which tensors
 * to keep on every device:
 *   stream  keep nothing (NeuGraph: every op streams its inputs in);
 *   lru     keep every tensor an op touched, evicting the least recently
 *           used when the budget is exceeded (ROC §7.7's baseline);
 *   roc     ROC Algorithm 1: dynamic programming over (state, kept set)
 *           for the fewest transfer bytes within the budget. ROC's states
 *           are every valid execution order; the executor runs one fixed
 *           order, so the states here are its prefixes.
 * The epoch repeats, so the plan is computed on three copies of the trace
 * and the middle copy's decisions are used: a tensor such as the features
 * may then stay resident across the epoch boundary. The plan in force must
 * end each epoch with the set it begins with, so the middle copy is
 * replaced by the cheapest such cycle found from up to 16 start sets
 * (tests/unit/test_memplan.c: on 1000 small traces the bytes of an
 * exhaustive search). It can still miss the optimum through the pruning
 * below, the greedy choice of reads held for one op only, or a cycle
 * starting from a set it did not try.
 * Limits: at most MP_MAX_TENSORS tensors are candidates (the rest always
 * stream); the search keeps at most MP_MAX_STATES kept sets per step and
 * considers at most MP_MAX_CAND tensors per step (the soonest reused),
 * fewer when the states times the subsets would pass 2^MP_WORK_LOG2 (the
 * plan is made at an epoch boundary and must not stall training). */
#ifndef GS_MEMPLAN_H
#define GS_MEMPLAN_H

#include <stdint.h>

typedef enum { MP_STREAM = 0, MP_LRU = 1, MP_ROC = 2 } memplan_kind_t;

#define MP_MAX_TENSORS 64
#define MP_MAX_IO 8
#define MP_MAX_STATES 2048
#define MP_MAX_CAND 12
#define MP_WORK_LOG2 15
#define MP_MAX_KEYS 256

typedef struct {
    int host;                      /* 1: a host op that wrote `writes` */
    int nr, nw;
    int16_t reads[MP_MAX_IO];      /* tensor indices (into the trace's table) */
    int16_t writes[MP_MAX_IO];
    double read_cost[MP_MAX_IO];   /* H2D bytes the read moved with nothing kept */
} mp_step_t;

typedef struct {
    int key[MP_MAX_KEYS];          /* each tensor's key (exec_engine.h's xtensor_t) */
    uint64_t bytes[MP_MAX_KEYS];
    int nkeys;
    mp_step_t *step;
    int nstep, cap;
    int overflow;                  /* too many tensors, or an op with too many operands */
} mp_trace_t;

/* The plan: during step i, hold a device copy of the tensors in hold[i];
 * after it, keep those in keep[i] (bit j = the trace's tensor j; only the
 * first MP_MAX_TENSORS can be held). A read of a tensor kept from before
 * costs nothing; one held but not kept costs its bytes (brought in once,
 * however often the op reads it: a gather reads its input once per
 * column); any other costs what it cost when streamed. cost is the H2D
 * bytes the plan predicts for one epoch, stream_cost the same with
 * nothing held. Device copies are modeled as one device's. */
typedef struct {
    memplan_kind_t kind;
    uint64_t *keep, *hold; /* (the trace's steps) */
    double cost, stream_cost;
    uint64_t budget;
} mp_plan_t;

void mp_trace_reset(mp_trace_t *tr);
void mp_trace_free(mp_trace_t *tr);
/* The index of the tensor at key, or -1 when the trace has none. */
int mp_trace_find(const mp_trace_t *tr, int key);
/* The index of the tensor at key (adding it), or -1 when the table is full. */
int mp_trace_tensor(mp_trace_t *tr, int key, uint64_t bytes);
/* Appends a step; returns its index, or -1 (overflow set). */
int mp_trace_step(mp_trace_t *tr, int host, const int *reads, int nr, const int *writes, int nw);

/* Renumbers the tensors so those a streamed step reads come first (only
 * the first MP_MAX_TENSORS can be kept). */
void mp_trace_compact(mp_trace_t *tr);
/* Plans the trace for a device budget in bytes (UINT64_MAX: unlimited).
 * Returns 0, or -1 when out of memory (plan left empty). */
int mp_plan(const mp_trace_t *tr, memplan_kind_t kind, uint64_t budget, mp_plan_t *out);
void mp_plan_free(mp_plan_t *p);
/* H2D bytes of one epoch under kept and held sets (NULL: none). */
double mp_plan_cost(const mp_trace_t *tr, const uint64_t *keep, const uint64_t *hold);

#endif
