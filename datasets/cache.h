/* cache.h - binary dataset cache: a header with a magic number, a format
 * version and a fingerprint of the source files (names, sizes, mtimes),
 * then the raw arrays. Reloads are a handful of large freads.
 * Location: $GNNSCOPE_CACHE_DIR, else $XDG_CACHE_HOME/gnnscope, else
 * ~/.cache/gnnscope. A stale or damaged cache is ignored and rewritten. */
#ifndef GS_CACHE_H
#define GS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "dataset.h"

#define GS_CACHE_MAGIC "GNSCACHE"
#define GS_CACHE_VERSION 1u

/* Fingerprint of a dataset source (file or directory tree). */
uint64_t cache_fingerprint(const char *source);
/* The cache file path for an absolute source path. */
int cache_path(const char *abs_source, char *out, size_t outsz, gs_err_t *err);

/* Returns GS_OK and fills d if `file` holds a valid cache with this
 * fingerprint; GS_EINPUT (with a reason) otherwise. */
int cache_read(dataset_t *d, const char *file, uint64_t fingerprint, gs_err_t *err);
int cache_write(const dataset_t *d, const char *file, uint64_t fingerprint, gs_err_t *err);

#endif
