/* atomic_file.h - crash-safe file replacement: write to a temporary file in
 * the same directory, fsync it, rename it over the target, fsync the
 * directory. A crash leaves either the old file or the new one, never a mix.
 * Used for checkpoints, caches, traces, metrics and generated datasets. */
#ifndef GS_ATOMIC_FILE_H
#define GS_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

/* Writes "<path>.tmp.<pid>" into tmp. */
void atomic_tmp_name(const char *path, char *tmp, size_t tmpsz);

/* fsyncs tmp, renames it to path and fsyncs the directory. On failure the
 * temporary file is removed; on success, so are the temporary files of
 * path that writers killed during a save left behind (their pid gone). */
int atomic_commit(const char *tmp, const char *path, gs_err_t *err);

/* Convenience for stdio writers: opens the temporary file for path. */
FILE *atomic_fopen(const char *path, char *tmp, size_t tmpsz, gs_err_t *err);
/* fflush + fclose + atomic_commit; removes tmp if the stream had errors. */
int atomic_fclose(FILE *f, const char *tmp, const char *path, gs_err_t *err);

/* Whether path can be an output file: absent, or a regular file (not a
 * directory, device, FIFO or symlink, which a rename would replace), in
 * an existing writable directory. GS_EINPUT with the reason otherwise. */
int atomic_target_ok(const char *path, gs_err_t *err);

/* Creates a directory and its parents (mode 0755). */
int mkdir_p(const char *dir, gs_err_t *err);

#endif
