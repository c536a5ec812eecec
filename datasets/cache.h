/* cache.h - binary dataset cache: a header with a magic number, a format
 * version and a fingerprint of the source files (names, sizes, mtimes),
 * then the raw arrays, and a checksum of the header and the arrays (so a
 * count the header declares cannot change unseen). Reloads are a handful
 * of large freads.
 * Location: $GNNSCOPE_CACHE_DIR, else $XDG_CACHE_HOME/gnnscope, else
 * ~/.cache/gnnscope. A stale cache is ignored and rewritten; a damaged
 * one (bad sizes, checksum or contents) too, with a warning. A cache the
 * memory rule refuses is not damaged: the sources are read instead (and
 * the loaders' own checks refuse them with the limit that binds). */
#ifndef GS_CACHE_H
#define GS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "dataset.h"

#define GS_CACHE_MAGIC "GNSCACHE"
#define GS_CACHE_VERSION 3u
#define GS_CACHE_MAX_FEATS (1LL << 20)
#define GS_CACHE_MAX_PAIRS (1LL << 40)

/* Fingerprint of a dataset source (file or directory tree). */
uint64_t cache_fingerprint(const char *source);
/* The cache file path for an absolute source path. */
int cache_path(const char *abs_source, char *out, size_t outsz, gs_err_t *err);

/* Returns GS_OK and fills d if `file` holds a valid cache with this
 * fingerprint; otherwise GS_EINPUT (or GS_EFAIL) with a reason, and
 * *damaged = 1 when the file is a damaged cache (not merely absent or
 * stale), which the caller reports before rebuilding it. */
int cache_read(dataset_t *d, const char *file, uint64_t fingerprint, int *damaged, gs_err_t *err);
int cache_write(const dataset_t *d, const char *file, uint64_t fingerprint, gs_err_t *err);

#endif
