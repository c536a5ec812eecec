/* dataset_load.h - a dataset by name: resolves a spec (a shipped name such
 * as "cora", an OGB raw directory, a SNAP edge-list file, or "gen:..." for
 * the generator), picks its loader, and goes through the binary cache
 * (cache.h). */
#ifndef GS_DATASET_LOAD_H
#define GS_DATASET_LOAD_H

#include "dataset.h"

/* Loads spec into d (zeroed first). Uses the binary cache unless use_cache
 * is 0; a damaged cache rebuilt, or one that could not be written, is a
 * warning in warn (which may be NULL). */
int dataset_load(dataset_t *d, const char *spec, int use_cache, gs_warnings_t *warn, gs_err_t *err);
/* The same for a run that never reads the features (--simulate): a
 * generated graph is drawn without them (zero pages, never written, not
 * cached), so a paper-size shape costs only its structure; any other
 * source loads as dataset_load does. */
int dataset_load_structure(dataset_t *d, const char *spec, int use_cache, gs_warnings_t *warn, gs_err_t *err);

#endif
