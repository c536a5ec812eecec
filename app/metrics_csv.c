/* metrics_csv.c - see metrics_csv.h. The columns are the epoch and every
 * counter of stats.h, in declaration order. */
#include "metrics_csv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/atomic_file.h"

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

/* One row at the end of path, synced; on failure the file is cut back to
 * where it ended. */
static int append_row(const char *path, const char *row, size_t n, gs_err_t *err)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return gs_fail(err, GS_EFAIL, "%s: cannot append a row (%s)", path, strerror(errno));
    off_t was = lseek(fd, 0, SEEK_END);
    ssize_t k = write(fd, row, n);
    int e = k < 0 ? errno : k < (ssize_t)n ? ENOSPC : 0;
    if (!e && fdatasync(fd) != 0) e = errno;
    if (e && was >= 0 && ftruncate(fd, was) != 0) e = errno; /* never half a row */
    close(fd);
    return e ? gs_fail(err, GS_EFAIL, "%s: cannot append a row (%s)", path, strerror(e)) : GS_OK;
}

int metrics_add(metrics_csv_t *m, const epoch_stats_t *st, const run_kind_t *k, gs_err_t *err)
{
    int n;
    const stat_desc_t *d = stat_descs(&n);
    char row[4096];
    int w = snprintf(row, sizeof row, "%lld", (long long)st->epoch);
    for (int i = 0; i < n && w < (int)sizeof row; i++) {
        w += snprintf(row + w, sizeof row - (size_t)w, ",");
        if (w < (int)sizeof row && (!k || stat_applies(&d[i], k)))
            w += snprintf(row + w, sizeof row - (size_t)w, d[i].fmt, stat_get(st, &d[i]));
    }
    if (w >= (int)sizeof row - 1) return gs_fail(err, GS_EFAIL, "metrics row too long");
    row[w++] = '\n', row[w] = '\0';
    if (m->len + (size_t)w + 1 > m->cap) {
        size_t cap = (m->cap + (size_t)w + 1) * 2;
        char *r = realloc(m->rows, cap);
        if (!r) return gs_fail(err, GS_EFAIL, "out of memory for metrics");
        m->rows = r, m->cap = cap;
    }
    memcpy(m->rows + m->len, row, (size_t)w + 1);
    m->len += (size_t)w;
    if (!m->path[0]) return GS_OK;
    if (m->created && access(m->path, F_OK) == 0) return append_row(m->path, row, (size_t)w, err);
    int rc = metrics_write(m, m->path, err);
    m->created = rc == GS_OK;
    return rc;
}

int metrics_write(const metrics_csv_t *m, const char *path, gs_err_t *err)
{
    char tmp[4200];
    FILE *f = atomic_fopen(path, tmp, sizeof tmp, err);
    if (!f) return err->code;
    int n;
    const stat_desc_t *d = stat_descs(&n);
    fputs("epoch", f);
    for (int i = 0; i < n; i++) fprintf(f, ",%s", d[i].name);
    fputc('\n', f);
    if (m->len) fwrite(m->rows, 1, m->len, f);
    return atomic_fclose(f, tmp, path, err);
}
