/* ogb_writer.c - writes a dataset_t as an OGB raw directory of .csv.gz
 * files (gzip level 1 for speed). Each file is written atomically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/atomic_file.h"
#include "generator.h"

typedef struct {
    gzFile gz;
    char path[4200], tmp[4300];
    char buf[1 << 16];
    size_t len;
    int bad;
} gz_out_t;

static int gz_begin(gz_out_t *o, const char *dir, const char *name, gs_err_t *err)
{
    snprintf(o->path, sizeof o->path, "%s/%s.csv.gz", dir, name);
    atomic_tmp_name(o->path, o->tmp, sizeof o->tmp);
    o->len = 0;
    o->bad = 0;
    o->gz = gzopen(o->tmp, "wb1");
    if (!o->gz) return gs_fail(err, GS_EINPUT, "%s: cannot create", o->path);
    return GS_OK;
}

static void gz_flush(gz_out_t *o)
{
    if (o->len && gzwrite(o->gz, o->buf, (unsigned)o->len) != (int)o->len) o->bad = 1;
    o->len = 0;
}

static void gz_put(gz_out_t *o, const char *s, size_t n)
{
    if (o->len + n > sizeof o->buf) gz_flush(o);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static int gz_end(gz_out_t *o, gs_err_t *err)
{
    gz_flush(o);
    if (gzclose(o->gz) != Z_OK) o->bad = 1;
    if (o->bad) {
        remove(o->tmp);
        return gs_fail(err, GS_EFAIL, "%s: write failed", o->path);
    }
    return atomic_commit(o->tmp, o->path, err);
}

static int write_ints(const char *dir, const char *name, const int32_t *a, const int32_t *b, int64_t n,
                      gs_err_t *err)
{
    gz_out_t *o = malloc(sizeof *o);
    if (!o) return gs_fail(err, GS_EFAIL, "out of memory");
    int rc = gz_begin(o, dir, name, err);
    if (rc) {
        free(o);
        return rc;
    }
    char line[64];
    for (int64_t i = 0; i < n; i++) {
        int k = b ? snprintf(line, sizeof line, "%d,%d\n", a[i], b[i]) : snprintf(line, sizeof line, "%d\n", a[i]);
        gz_put(o, line, (size_t)k);
    }
    rc = gz_end(o, err);
    free(o);
    return rc;
}

static int write_feats(const char *dir, const dataset_t *d, gs_err_t *err)
{
    gz_out_t *o = malloc(sizeof *o);
    if (!o) return gs_fail(err, GS_EFAIL, "out of memory");
    int rc = gz_begin(o, dir, "node-feat", err);
    if (rc) {
        free(o);
        return rc;
    }
    char cell[32];
    for (int64_t v = 0; v < d->n; v++)
        for (int64_t j = 0; j < d->f; j++) {
            int k = snprintf(cell, sizeof cell, "%.5g%c", d->feat[v * d->f + j], j + 1 == d->f ? '\n' : ',');
            gz_put(o, cell, (size_t)k);
        }
    rc = gz_end(o, err);
    free(o);
    return rc;
}

int ogb_write(const dataset_t *d, const char *dir, gs_err_t *err)
{
    char split[4200];
    int rc;
    snprintf(split, sizeof split, "%s/split", dir);
    if ((rc = mkdir_p(split, err))) return rc;
    int32_t nn = (int32_t)d->n, ne = (int32_t)d->npairs;
    if ((rc = write_ints(dir, "num-node-list", &nn, NULL, 1, err))) return rc;
    if ((rc = write_ints(dir, "num-edge-list", &ne, NULL, 1, err))) return rc;
    if ((rc = write_ints(dir, "edge", d->pair_src, d->pair_dst, d->npairs, err))) return rc;
    if ((rc = write_feats(dir, d, err))) return rc;
    if ((rc = write_ints(dir, "node-label", d->label, NULL, d->n, err))) return rc;
    static const char *names[3] = {"train", "valid", "test"};
    for (int s = 0; s < 3; s++)
        if ((rc = write_ints(split, names[s], d->split[s], NULL, d->nsplit[s], err))) return rc;
    return GS_OK;
}
