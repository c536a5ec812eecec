/* profile_sink.h - turns the engine's observer callbacks (backend tasks on
 * devices, host-side ops) into profiler events. The engine does not depend
 * on the profiler; the app wires the two together here. */
#ifndef GS_PROFILE_SINK_H
#define GS_PROFILE_SINK_H

#include "engine/device/backend.h"
#include "engine/device/cuda_plugin.h"
#include "engine/exec/exec.h"
#include "engine/sample/prepro_sched.h"
#include "engine/dist/dist_engine.h"
#include "engine/train/train.h"
#include "profiler/profiler.h"

/* user = prof_t * */
void sink_task(void *user, int dev, lane_t lane, chunk_tag_t tag, double t0, double t1, double bytes);
void sink_op(void *user, const instr_t *in, int phase, double t0, double t1, double flops);
/* A rank's span (distributed runs: op, send or receive): drawn on the
 * rank's COMPUTE, NETSEND or NETRECV lane, its peer in the column field.
 * Ranks past the profiler's 15 devices are not drawn. */
void sink_dist_event(void *user, const dist_event_t *e);
/* A sampled run's span (prepro_sched.h): S, R and K on the host's SAMPLE,
 * REINDEX and LOOKUP lanes, transfers on device 0's H2D lane (phase
 * SAMPLE, the hop in sub), and the steps' ops on device 0's COMPUTE lane
 * (the emulated GPU runs them); the batch is in the column field. */
void sink_stage(void *user, const stage_span_t *sp);
/* CUPTI's spans from the CUDA plugin. */
void sink_gpu_span(void *user, const gpu_span_t *s);
/* When the run uses the CUDA plugin, starts CUPTI collection into p.
 * Returns 0, or -1 with why filled (the run goes on without GPU spans). */
int sink_attach_gpu(prof_t *p, const train_cfg_t *cfg, char *why, size_t n);
/* Delivers the GPU spans still buffered and stops sending them. */
void sink_detach_gpu(void);

#endif
