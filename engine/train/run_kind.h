/* run_kind.h - what kind of run a trainer is: its driver (full-batch,
 * sampled mini-batches, or one rank of a distributed job), the execution
 * engine its gathers run on (memory, the streaming engine's devices, or
 * the rank engine), and the place its tensors live (host or GPU). The
 * trainer publishes its kind; counters, knobs, the JSON summary and the
 * views read it rather than re-deriving it from flags. */
#ifndef GS_RUN_KIND_H
#define GS_RUN_KIND_H

#include "config.h"
#include "engine/exec/stats.h"

typedef enum { DRIVER_FULL, DRIVER_SAMPLED, DRIVER_DIST } driver_kind_t;
typedef enum { ENGINE_MEMORY, ENGINE_STREAM, ENGINE_DIST } engine_kind_t;
typedef enum { PLACE_HOST, PLACE_CUDA } place_kind_t;

typedef struct {
    driver_kind_t driver;
    engine_kind_t engine;
    place_kind_t place;
    int devices; /* the streaming engine's devices (0 unless ENGINE_STREAM) */
    int ranks;   /* the job's ranks (0 unless DRIVER_DIST) */
} run_kind_t;

/* The kind configuration c asks for (a rank's rank count is its job's). */
run_kind_t run_kind_of(const train_cfg_t *c, int ranks);
/* "full-batch", "sampled" or "distributed"; "memory", "stream" or "dist"; "host" or "cuda". */
const char *run_driver_name(driver_kind_t k);
const char *run_engine_name(engine_kind_t k);
/* Whether counter d means something for a run of kind k (stats.h's flags). */
int stat_applies(const stat_desc_t *d, const run_kind_t *k);

#endif
