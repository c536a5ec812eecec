/* ogb_loader.c - the OGB raw node-property layout (README.md, "Datasets"):
 *   num-node-list, num-edge-list, edge (u,v[,type]), node-feat, node-label,
 *   split/{train,valid,test}, each as NAME.csv.gz or NAME.csv.
 * Also accepts OGB's download layout: DIR/raw/... and DIR/split/SCHEME/...
 * Every malformed row is reported with its file, line and column. */
#include "ogb_loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv_reader.h"
#include "base/membudget.h"

/* Something other than a directory is there (csv_open refuses what is not a regular file). */
static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && !S_ISDIR(st.st_mode);
}

int ogb_find_file(const char *dir, const char *base, char *out, size_t outsz)
{
    snprintf(out, outsz, "%s/%s.csv.gz", dir, base);
    if (file_exists(out)) return 1;
    snprintf(out, outsz, "%s/%s.csv", dir, base);
    if (file_exists(out)) return 1;
    snprintf(out, outsz, "%s/%s.csv.gz", dir, base);
    return 0;
}

/* Directory holding edge/node files: DIR itself or DIR/raw. */
static void data_dir(const char *dir, char *out, size_t outsz)
{
    char probe[4200];
    snprintf(out, outsz, "%s", dir);
    if (!ogb_find_file(dir, "edge", probe, sizeof probe)) {
        char raw[4200];
        snprintf(raw, sizeof raw, "%s/raw", dir);
        if (ogb_find_file(raw, "edge", probe, sizeof probe)) snprintf(out, outsz, "%s", raw);
    }
}

/* Directory holding train/valid/test: DIR/split or its single subfolder. */
static int split_dir(const char *dir, char *out, size_t outsz)
{
    char probe[4400];
    snprintf(out, outsz, "%s/split", dir);
    if (ogb_find_file(out, "train", probe, sizeof probe)) return 1;
    char base[4200];
    snprintf(base, sizeof base, "%s/split", dir);
    static const char *schemes[] = {"time", "species", "sales_ranking", "random", "default", NULL};
    for (int i = 0; schemes[i]; i++) {
        snprintf(out, outsz, "%s/%s", base, schemes[i]);
        if (ogb_find_file(out, "train", probe, sizeof probe)) return 1;
    }
    snprintf(out, outsz, "%s/split", dir);
    return 0;
}

static int open_required(csv_reader_t **r, const char *dir, const char *base, gs_err_t *err)
{
    char path[4400];
    if (!ogb_find_file(dir, base, path, sizeof path))
        return gs_fail(err, GS_EINPUT, "%s/%s.csv.gz: missing file (also tried %s.csv)", dir, base, base);
    return csv_open(r, path, err);
}

/* Reads the next data line; an empty file is an error naming line 1. */
static int need_line(csv_reader_t *r, char **line, const char *what, gs_err_t *err)
{
    int got = csv_next_line(r, line, err);
    if (got < 0) return err->code;
    if (got == 0) {
        if (csv_lineno(r) == 0) return csv_error(r, err, "file is empty (expected %s)", what);
        return gs_fail(err, GS_EINPUT, "%s:%lld: file ends early (expected %s)", csv_path(r),
                       (long long)csv_lineno(r) + 1, what);
    }
    return GS_OK;
}

static int expect_end(csv_reader_t *r, const char *what, gs_err_t *err)
{
    char *line;
    for (;;) {
        int got = csv_next_line(r, &line, err);
        if (got < 0) return err->code;
        if (got == 0) return GS_OK;
        if (line[0] != '\0') return csv_error(r, err, "extra row beyond the %s", what);
    }
}

static int read_count(const char *dir, const char *base, const char *name, int64_t least, int64_t limit, int64_t *out,
                      gs_err_t *err)
{
    csv_reader_t *r;
    char *line;
    int rc = open_required(&r, dir, base, err);
    if (rc) return rc;
    if ((rc = need_line(r, &line, "one number", err))) goto done;
    if (csv_count_fields(line, CSV_SEP_COMMA) != 1) {
        rc = csv_error(r, err, "expected 1 column, found %d", csv_count_fields(line, CSV_SEP_COMMA));
        goto done;
    }
    if ((rc = csv_field_i64(r, &line, CSV_SEP_COMMA, 1, name, out, err))) goto done;
    if (*out < least) {
        rc = *out < 0 ? csv_error(r, err, "column 1 (%s): %lld is negative", name, (long long)*out)
                      : csv_error(r, err, "column 1 (%s): %lld, but at least %lld is needed", name, (long long)*out,
                                  (long long)least);
        goto done;
    }
    if (*out > limit) {
        rc = csv_error(r, err, "column 1 (%s): declared %lld exceeds the limit of %lld", name,
                       (long long)*out, (long long)limit);
        goto done;
    }
    rc = expect_end(r, "single count", err);
done:
    csv_close(r);
    return rc;
}

/* Refuses allocations past the memory rule (membudget.h), naming the file and line. */
static int check_size(csv_reader_t *r, double bytes, const char *what, gs_err_t *err)
{
    gs_err_t why;
    if (gs_mem_check(bytes, what, &why)) return csv_error(r, err, "%s", why.msg);
    return GS_OK;
}

static int read_edges(const char *dir, dataset_t *d, gs_err_t *err)
{
    csv_reader_t *r;
    char *line;
    int rc = open_required(&r, dir, "edge", err);
    if (rc) return rc;
    if ((rc = check_size(r, (double)d->npairs * 12.0 * 3.0, "the declared edge count", err))) goto done;
    d->pair_src = malloc(sizeof(int32_t) * (size_t)(d->npairs ? d->npairs : 1));
    d->pair_dst = malloc(sizeof(int32_t) * (size_t)(d->npairs ? d->npairs : 1));
    if (!d->pair_src || !d->pair_dst) {
        rc = gs_fail(err, GS_EFAIL, "out of memory for %lld edges", (long long)d->npairs);
        goto done;
    }
    int ncols = 0;
    int32_t maxtype = -1;
    for (int64_t i = 0; i < d->npairs; i++) {
        if ((rc = need_line(r, &line, "one row per declared edge", err))) goto done;
        int nf = csv_count_fields(line, CSV_SEP_COMMA);
        if (i == 0) {
            if (nf != 2 && nf != 3) {
                rc = csv_error(r, err, "expected 2 columns (src,dst) or 3 (src,dst,type), found %d", nf);
                goto done;
            }
            ncols = nf;
            if (ncols == 3 && !(d->pair_type = malloc(sizeof(int32_t) * (size_t)d->npairs))) {
                rc = gs_fail(err, GS_EFAIL, "out of memory for edge types");
                goto done;
            }
        } else if (nf != ncols) {
            rc = csv_error(r, err, "expected %d columns like line 1, found %d", ncols, nf);
            goto done;
        }
        int64_t u, v, t = 0;
        if ((rc = csv_field_i64(r, &line, CSV_SEP_COMMA, 1, "src", &u, err))) goto done;
        if ((rc = csv_field_i64(r, &line, CSV_SEP_COMMA, 2, "dst", &v, err))) goto done;
        if (ncols == 3 && (rc = csv_field_i64(r, &line, CSV_SEP_COMMA, 3, "type", &t, err))) goto done;
        if (u < 0 || u >= d->n) {
            rc = csv_error(r, err, "column 1 (src): node id %lld is not in [0, %lld)", (long long)u, (long long)d->n);
            goto done;
        }
        if (v < 0 || v >= d->n) {
            rc = csv_error(r, err, "column 2 (dst): node id %lld is not in [0, %lld)", (long long)v, (long long)d->n);
            goto done;
        }
        if (t < 0 || t > 255) {
            rc = csv_error(r, err, "column 3 (type): edge type %lld is not in [0, 255]", (long long)t);
            goto done;
        }
        d->pair_src[i] = (int32_t)u;
        d->pair_dst[i] = (int32_t)v;
        if (d->pair_type) {
            d->pair_type[i] = (int32_t)t;
            if (t > maxtype) maxtype = (int32_t)t;
        }
    }
    d->ntypes = d->pair_type ? maxtype + 1 : 0;
    rc = expect_end(r, "edge count declared in num-edge-list", err);
done:
    csv_close(r);
    return rc;
}

static int read_features(const char *dir, dataset_t *d, gs_err_t *err)
{
    csv_reader_t *r;
    char *line;
    int rc = open_required(&r, dir, "node-feat", err);
    if (rc) return rc;
    for (int64_t v = 0; v < d->n; v++) {
        if ((rc = need_line(r, &line, "one row per node", err))) goto done;
        int nf = csv_count_fields(line, CSV_SEP_COMMA);
        if (v == 0) {
            d->f = nf;
            if ((rc = check_size(r, (double)d->n * nf * 4.0, "the feature matrix (nodes x columns)", err)))
                goto done;
            d->feat = malloc(sizeof(float) * (size_t)d->n * (size_t)nf);
            if (!d->feat) {
                rc = gs_fail(err, GS_EFAIL, "out of memory for a %lld x %d feature matrix", (long long)d->n, nf);
                goto done;
            }
        } else if (nf != d->f) {
            rc = csv_error(r, err, "expected %lld columns like line 1, found %d", (long long)d->f, nf);
            goto done;
        }
        float *row = d->feat + v * d->f;
        for (int j = 0; j < nf; j++)
            if ((rc = csv_field_f32(r, &line, CSV_SEP_COMMA, j + 1, "feature", &row[j], err))) goto done;
    }
    rc = expect_end(r, "node count declared in num-node-list", err);
done:
    csv_close(r);
    return rc;
}

static int read_labels(const char *dir, dataset_t *d, gs_err_t *err)
{
    csv_reader_t *r;
    char *line;
    int rc = open_required(&r, dir, "node-label", err);
    if (rc) return rc;
    d->label = malloc(sizeof(int32_t) * (size_t)d->n);
    if (!d->label) {
        rc = gs_fail(err, GS_EFAIL, "out of memory for labels");
        goto done;
    }
    int64_t maxl = -1;
    for (int64_t v = 0; v < d->n; v++) {
        if ((rc = need_line(r, &line, "one label per node", err))) goto done;
        int nf = csv_count_fields(line, CSV_SEP_COMMA);
        if (nf != 1) {
            rc = csv_error(r, err, "expected 1 column (label), found %d", nf);
            goto done;
        }
        if (strcmp(line, "nan") == 0 || strcmp(line, "NaN") == 0) { /* OGB marks unlabeled nodes so */
            d->label[v] = -1;
            continue;
        }
        int64_t l;
        if ((rc = csv_field_i64(r, &line, CSV_SEP_COMMA, 1, "label", &l, err))) goto done;
        if (l < 0 || l > GS_MAX_LABEL) {
            rc = csv_error(r, err, "column 1 (label): %lld is out of range [0, %d]", (long long)l, GS_MAX_LABEL);
            goto done;
        }
        d->label[v] = (int32_t)l;
        if (l > maxl) maxl = l;
    }
    d->c = maxl + 1;
    if (d->c < 2) {
        rc = csv_error(r, err, "column 1 (label): need at least 2 classes, found %lld", (long long)d->c);
        goto done;
    }
    rc = expect_end(r, "node count declared in num-node-list", err);
done:
    csv_close(r);
    return rc;
}

static int read_split(const char *dir, const char *base, dataset_t *d, int which, gs_err_t *err)
{
    csv_reader_t *r;
    char *line;
    int rc = open_required(&r, dir, base, err);
    if (rc) return rc;
    int64_t cap = 1024, n = 0;
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)cap);
    uint8_t *seen = calloc((size_t)d->n / 8 + 1, 1); /* a bit per vertex listed so far */
    if (!ids || !seen) {
        rc = gs_fail(err, GS_EFAIL, "out of memory reading the %s split", base);
        goto done;
    }
    for (;;) {
        int got = csv_next_line(r, &line, err);
        if (got < 0) {
            rc = err->code;
            goto done;
        }
        if (got == 0) break;
        if (line[0] == '\0') continue;
        int64_t v;
        int nf = csv_count_fields(line, CSV_SEP_COMMA);
        if (nf != 1) {
            rc = csv_error(r, err, "expected 1 column (node index), found %d", nf);
            goto done;
        }
        if ((rc = csv_field_i64(r, &line, CSV_SEP_COMMA, 1, "node index", &v, err))) goto done;
        if (v < 0 || v >= d->n) {
            rc = csv_error(r, err, "column 1 (node index): %lld is not in [0, %lld)", (long long)v, (long long)d->n);
            goto done;
        }
        if (seen[v / 8] & (1u << (v % 8))) { /* so a split never holds more than the vertices */
            rc = csv_error(r, err, "column 1 (node index): %lld is listed twice", (long long)v);
            goto done;
        }
        seen[v / 8] |= (uint8_t)(1u << (v % 8));
        if (n == cap) {
            cap *= 2;
            int32_t *nb = realloc(ids, sizeof(int32_t) * (size_t)cap);
            if (!nb) {
                rc = gs_fail(err, GS_EFAIL, "out of memory");
                goto done;
            }
            ids = nb;
        }
        ids[n++] = (int32_t)v;
    }
    if (n == 0) {
        rc = csv_error(r, err, "file is empty (expected node indices)");
        goto done;
    }
    d->split[which] = ids;
    d->nsplit[which] = n;
    ids = NULL;
done:
    free(ids), free(seen);
    csv_close(r);
    return rc;
}

int ogb_load(dataset_t *d, const char *dir, gs_err_t *err)
{
    char ddir[4200], sdir[4400];
    int rc;
    data_dir(dir, ddir, sizeof ddir);
    if ((rc = read_count(ddir, "num-node-list", "node count", 1, GS_MAX_NODES, &d->n, err))) return rc;
    if ((rc = read_count(ddir, "num-edge-list", "edge count", 0, INT64_MAX / 64, &d->npairs, err))) return rc;
    if ((rc = read_edges(ddir, d, err))) return rc;
    if ((rc = read_features(ddir, d, err))) return rc;
    if ((rc = read_labels(ddir, d, err))) return rc;
    if (!split_dir(dir, sdir, sizeof sdir))
        return gs_fail(err, GS_EINPUT, "%s/train.csv.gz: missing file (no split found under %s/split)", sdir, dir);
    static const char *names[3] = {"train", "valid", "test"};
    for (int s = 0; s < 3; s++)
        if ((rc = read_split(sdir, names[s], d, s, err))) return rc;
    return GS_OK;
}
