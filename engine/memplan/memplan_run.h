/* memplan_run.h - the memory plan at run time (ROC §5; memplan.h plans).
 * The streaming engine brackets each streamed op with op_begin/op_end,
 * naming the tensors it reads and writes; between them mp_run_slot gives a
 * tensor's copy on device d (NULL: stream it through the op's buffers),
 * mp_run_load brings rows in, mp_run_wrote records rows written on d (into
 * its copy or not), and mp_run_count books a read's H2D bytes that bypassed
 * mp_run_load (the plan's costs). The first epoch with a plan kind other
 * than stream is recorded: every streamed op's reads and writes, with the
 * H2D bytes each read moved, and every host write of a vertex tensor. At
 * its end the plan is made, and from the next epoch on each step keeps the
 * tensors the plan says on every device, in the capacity the streaming
 * buffers leave free. Each step is checked against the recorded one; if
 * the epoch differs (a rewritten program, an extra forward pass), every
 * device copy is dropped and the next epoch is recorded again.
 * Host memory always holds every value: outputs still go D2H (the host's
 * elementwise ops read them), so a plan saves H2D bytes only. A device
 * copy is trusted row by row: rows are valid on a device once copied in or
 * written there, and go stale when another device or a host op writes them. */
#ifndef GS_MEMPLAN_RUN_H
#define GS_MEMPLAN_RUN_H

#include <stdint.h>

#include "engine/device/backend.h"
#include "engine/exec/exec_engine.h"
#include "memplan.h"

/* The devices the copies live on. */
typedef struct {
    const backend_ops_t *ops;
    backend_t *b;
    int ndev;
    int64_t n;        /* rows of every vertex tensor */
    const int *group; /* (ndev) devices under one switch share a group (topology.h); NULL: one group */
} mp_devices_t;

/* A host tensor's copy on the devices. */
typedef struct {
    int key;                      /* the tensor's key (xtensor_t) */
    size_t bytes;
    float *dev[TOPO_MAX_DEV];     /* device copy, NULL where not held */
    uint8_t *valid[TOPO_MAX_DEV]; /* (N) per row: the device copy equals the host's */
} resident_t;

typedef struct {
    mp_devices_t dev;
    mp_trace_t trace;   /* the recorded epoch (the plan's input) */
    mp_plan_t plan;
    int planned;        /* plan is in force (its trace matched so far) */
    int recording;      /* this epoch's steps go into trace */
    int step;           /* the next step of the epoch */
    resident_t res[MP_MAX_TENSORS];
    int nres;
    int op_reads[MP_MAX_IO];  /* keys the op in progress reads */
    int op_nr;
    double op_cost[MP_MAX_IO]; /* H2D bytes of each read of the op in progress */
    double kept_bytes;         /* this epoch: H2D bytes served by device copies */
    double plan_ms;            /* how long making the plan took */
} memplan_rt_t;

void mp_run_init(memplan_rt_t *m, mp_devices_t dev);
/* Drops the plan and every device copy (knob changes, failures); mp_run_free also the trace. */
void mp_run_reset(memplan_rt_t *m);
void mp_run_free(memplan_rt_t *m);
/* Whether any tensor holds device copies now. */
int mp_run_holding(const memplan_rt_t *m);
void mp_run_op_begin(memplan_rt_t *m, const xtensor_t *reads, int nr, const xtensor_t *writes, int nw);
void mp_run_op_end(memplan_rt_t *m, int failed);
float *mp_run_slot(memplan_rt_t *m, int key, int d);
void mp_run_wrote(memplan_rt_t *m, int key, int d, int64_t lo, int64_t rows, int kept);
void mp_run_count(memplan_rt_t *m, int key, double bytes);
/* Rows [lo, lo + rows) of the host tensor src on device d: its device
 * copy's rows (copied in first when stale: from the copy of a device under
 * the same switch that holds them, over the peer link, else from the
 * host), or a copy into staging. Returns the device address of row lo;
 * *copied = H2D bytes. A peer's copy is read after everything issued on
 * that device so far, and d's next H2D-lane event covers it (what a
 * reader of the rows waits on). */
const float *mp_run_load(memplan_rt_t *m, int d, const xtensor_t *src, int64_t lo, int64_t rows, float *staging,
                         chunk_tag_t tag, double *copied);
/* A host op wrote the (N, cols) tensor t: device copies go stale. */
void mp_run_host_wrote(memplan_rt_t *m, const xtensor_t *t);
/* Epoch boundaries: an epoch under plan kind `kind` begins (recorded when
 * unplanned); the end plans a recorded epoch within each device's
 * capacity less `reserved` bytes (the streaming buffers). */
void mp_run_epoch_begin(memplan_rt_t *m, memplan_kind_t kind);
void mp_run_epoch_end(memplan_rt_t *m, memplan_kind_t kind, uint64_t reserved);
/* The bytes a plan may keep on each device beside `reserved` ones. */
uint64_t mp_run_budget(const memplan_rt_t *m, uint64_t reserved);

#endif
