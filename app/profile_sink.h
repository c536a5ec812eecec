/* profile_sink.h - turns the engine's observer callbacks (backend tasks on
 * devices, host-side ops) into profiler events. The engine does not depend
 * on the profiler; the app wires the two together here. */
#ifndef GS_PROFILE_SINK_H
#define GS_PROFILE_SINK_H

#include "../engine/backend.h"
#include "../engine/exec.h"
#include "../profiler/profiler.h"

/* user = prof_t * */
void sink_task(void *user, int dev, lane_t lane, chunk_tag_t tag, double t0, double t1, double bytes);
void sink_op(void *user, const instr_t *in, int phase, double t0, double t1, double flops);

#endif
