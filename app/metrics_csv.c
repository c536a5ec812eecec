/* metrics_csv.c - see metrics_csv.h. */
#include "metrics_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/atomic_file.h"

#define HEADER                                                                                                      \
    "epoch,loss,train_acc,val_acc,test_acc,epoch_ms,eval_ms,gflop,h2d_bytes,d2h_bytes,d2d_bytes,overlap,"             \
    "host_compute_s,device_compute_s,device_copy_s,filter_ms,kept_bytes\n"

void metrics_init(metrics_csv_t *m, const char *path)
{
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
}

void metrics_free(metrics_csv_t *m)
{
    free(m->rows);
    m->rows = NULL;
}

int metrics_add(metrics_csv_t *m, const epoch_stats_t *st, const prof_totals_t *pt, gs_err_t *err)
{
    double host = pt->busy_s[0][PL_COMPUTE], dev_comp = 0, dev_copy = 0;
    for (int d = 1; d < PROF_MAX_DEV; d++) {
        dev_comp += pt->busy_s[d][PL_COMPUTE];
        dev_copy += pt->busy_s[d][PL_H2D] + pt->busy_s[d][PL_D2H] + pt->busy_s[d][PL_D2D];
    }
    char row[512];
    int n = snprintf(row, sizeof row, "%lld,%.9g,%.6f,%.6f,%.6f,%.4f,%.4f,%.6g,%.0f,%.0f,%.0f,%.4f,%.6f,%.6f,%.6f,%.4f,%.0f\n",
                     (long long)st->epoch, st->loss, st->train_acc, st->val_acc, st->test_acc, st->epoch_ms, st->eval_ms,
                     st->flops / 1e9, st->h2d_bytes, st->d2h_bytes, st->d2d_bytes, st->overlap, host, dev_comp, dev_copy,
                     st->filter_ms, st->kept_bytes);
    if (m->len + (size_t)n + 1 > m->cap) {
        size_t cap = (m->cap + (size_t)n + 1) * 2;
        char *r = realloc(m->rows, cap);
        if (!r) return gs_fail(err, GS_EFAIL, "out of memory for metrics");
        m->rows = r, m->cap = cap;
    }
    memcpy(m->rows + m->len, row, (size_t)n + 1);
    m->len += (size_t)n;
    return m->path[0] ? metrics_write(m, m->path, err) : GS_OK;
}

int metrics_write(const metrics_csv_t *m, const char *path, gs_err_t *err)
{
    char tmp[4200];
    FILE *f = atomic_fopen(path, tmp, sizeof tmp, err);
    if (!f) return err->code;
    fputs(HEADER, f);
    if (m->len) fwrite(m->rows, 1, m->len, f);
    return atomic_fclose(f, tmp, path, err);
}
