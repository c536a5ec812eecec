/* metrics_csv.h - the per-epoch metrics file (--metrics FILE.csv): one row
 * per epoch. The file is created atomically with the header and the first
 * row; each later row is appended in one write and synced (a write that
 * fails is cut back off, so the file never ends in half a row), so an
 * interrupted run keeps every finished epoch and a long run's cost per
 * epoch stays one row. Columns: the epoch and every counter of
 * engine/exec/stats.h. The rows are also kept in memory (export). */
#ifndef GS_METRICS_CSV_H
#define GS_METRICS_CSV_H

#include "engine/exec/stats.h"
#include "engine/train/run_kind.h"
#include "base/error.h"

typedef struct {
    char path[4096];
    char *rows;
    size_t len, cap;
    int created; /* the file holds the header and every row so far */
} metrics_csv_t;

/* path may be empty: rows are then only kept in memory (for export). */
void metrics_init(metrics_csv_t *m, const char *path);
/* Appends the epoch's row, in memory and, with a path, to the file; a
 * counter that does not apply to a run of kind k (run_kind.h) is a blank
 * cell (k NULL: every counter is written). */
int metrics_add(metrics_csv_t *m, const epoch_stats_t *st, const run_kind_t *k, gs_err_t *err);
/* Writes every row so far to path, atomically. */
int metrics_write(const metrics_csv_t *m, const char *path, gs_err_t *err);
void metrics_free(metrics_csv_t *m);

#endif
