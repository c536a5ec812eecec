/* dataset.c - dataset_load: resolves a dataset spec (shipped name,
 * directory or file), picks the loader, and goes through the binary cache.
 * Shipped datasets are searched in $GNNSCOPE_DATA, next to the executable
 * (datasets/), in ../share/gnnscope/datasets relative to it, and in the
 * directory compiled in as GS_DATADIR. */
#include "dataset.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../engine/resource.h"
#include "../engine/rng.h"
#include "cache.h"
#include "generator.h"
#include "ogb_loader.h"
#include "snap_loader.h"

#ifndef GS_DATADIR
#define GS_DATADIR "datasets"
#endif

void dataset_free(dataset_t *d)
{
    free(d->pair_src);
    free(d->pair_dst);
    free(d->pair_type);
    free(d->feat);
    free(d->label);
    for (int i = 0; i < 3; i++) free(d->split[i]);
    memset(d, 0, sizeof *d);
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static void base_name(const char *path, char *out, size_t outsz)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    size_t len = strlen(tmp);
    while (len > 1 && tmp[len - 1] == '/') tmp[--len] = '\0';
    const char *b = strrchr(tmp, '/');
    snprintf(out, outsz, "%s", b ? b + 1 : tmp);
    char *dot = strstr(out, ".txt");
    if (dot && dot[4] == '\0') *dot = '\0';
}

static int load_source(dataset_t *d, const char *path, gs_err_t *err)
{
    int rc = is_dir(path) ? ogb_load(d, path, err) : snap_load(d, path, err);
    if (rc) return rc;
    return GS_OK;
}

int dataset_check(const dataset_t *d, gs_err_t *err)
{
    for (int64_t i = 0; i < d->npairs; i++) {
        if (d->pair_src[i] < 0 || d->pair_src[i] >= d->n || d->pair_dst[i] < 0 || d->pair_dst[i] >= d->n)
            return gs_fail(err, GS_EINPUT, "edge %lld: endpoint out of range [0, %lld)", (long long)i, (long long)d->n);
        if (d->pair_type && (d->pair_type[i] < 0 || d->pair_type[i] >= d->ntypes))
            return gs_fail(err, GS_EINPUT, "edge %lld: type out of range [0, %d)", (long long)i, d->ntypes);
    }
    for (int64_t v = 0; v < d->n; v++)
        if (d->label[v] < -1 || d->label[v] >= d->c)
            return gs_fail(err, GS_EINPUT, "vertex %lld: label %d out of range [-1, %lld)", (long long)v, d->label[v],
                           (long long)d->c);
    for (int i = 0; i < 3; i++)
        for (int64_t k = 0; k < d->nsplit[i]; k++)
            if (d->split[i][k] < 0 || d->split[i][k] >= d->n)
                return gs_fail(err, GS_EINPUT, "split %d entry %lld: vertex %d out of range [0, %lld)", i, (long long)k,
                               d->split[i][k], (long long)d->n);
    return GS_OK;
}

/* Reads the cache file cfile when it is valid for fingerprint fp; a
 * damaged one is reported (it is rebuilt from the sources). */
static int read_cache(dataset_t *d, const char *cfile, uint64_t fp, const char *source)
{
    gs_err_t cerr;
    int damaged;
    if (cache_read(d, cfile, fp, &damaged, &cerr) == GS_OK) return 1;
    if (damaged) fprintf(stderr, "gnnscope: warning: damaged dataset cache (%s); rebuilding it from %s\n", cerr.msg, source);
    return 0;
}

/* A generated dataset ("gen:..."), through the cache like any source. */
static int load_generated(dataset_t *d, const char *spec, int use_cache, gs_err_t *err)
{
    gen_params_t p;
    int rc = gen_parse_spec(spec, &p, err);
    if (rc) return rc;
    char cfile[PATH_MAX + 128];
    gs_err_t cerr;
    uint64_t fp = gs_hash2(cache_fingerprint(""), 0x6e6e);
    for (const char *c = spec; *c; c++) fp = gs_hash2(fp, (unsigned char)*c);
    int cache_ok = use_cache && cache_path(spec, cfile, sizeof cfile, &cerr) == GS_OK;
    if (cache_ok && read_cache(d, cfile, fp, spec)) return GS_OK;
    if ((rc = gen_graph(d, &p, err))) return rc;
    if (cache_ok && cache_write(d, cfile, fp, &cerr) != GS_OK)
        fprintf(stderr, "gnnscope: warning: could not write dataset cache: %s\n", cerr.msg);
    return GS_OK;
}

int dataset_load(dataset_t *d, const char *spec, int use_cache, gs_err_t *err)
{
    char path[PATH_MAX + 64], abs[PATH_MAX];
    memset(d, 0, sizeof *d);
    if (!spec || !*spec) return gs_fail(err, GS_EINPUT, "--dataset: empty dataset name");
    if (strncmp(spec, GEN_PREFIX, strlen(GEN_PREFIX)) == 0) return load_generated(d, spec, use_cache, err);
    struct stat st;
    if (stat(spec, &st) == 0 && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
        return gs_fail(err, GS_EINPUT, "--dataset %s: not a regular file or directory (a FIFO or a device)", spec);
    if (exists(spec)) snprintf(path, sizeof path, "%s", spec);
    else if (strchr(spec, '/') || !gs_find_resource("datasets", spec, "GNNSCOPE_DATA", GS_DATADIR, path, sizeof path))
        return gs_fail(err, GS_EINPUT, "--dataset %s: no such file, directory or shipped dataset", spec);
    if (!realpath(path, abs)) snprintf(abs, sizeof abs, "%s", path);
    char cfile[PATH_MAX + 128];
    uint64_t fp = 0;
    gs_err_t cerr;
    int cache_ok = use_cache && cache_path(abs, cfile, sizeof cfile, &cerr) == GS_OK;
    if (cache_ok) {
        fp = cache_fingerprint(abs);
        if (read_cache(d, cfile, fp, abs)) return GS_OK;
    }
    int rc = load_source(d, abs, err);
    if (rc) {
        dataset_free(d);
        return rc;
    }
    base_name(abs, d->name, sizeof d->name);
    if (cache_ok && cache_write(d, cfile, fp, &cerr) != GS_OK)
        fprintf(stderr, "gnnscope: warning: could not write dataset cache: %s\n", cerr.msg);
    return GS_OK;
}

int dataset_permute(dataset_t *d, const int32_t *perm, gs_err_t *err)
{
    int32_t *inv = malloc(sizeof(int32_t) * (size_t)d->n);
    float *feat = malloc(sizeof(float) * (size_t)(d->n * d->f + 1));
    int32_t *label = malloc(sizeof(int32_t) * (size_t)d->n);
    if (!inv || !feat || !label) {
        free(inv), free(feat), free(label);
        return gs_fail(err, GS_EFAIL, "out of memory renumbering vertices");
    }
    for (int64_t v = 0; v < d->n; v++) inv[perm[v]] = (int32_t)v;
    for (int64_t v = 0; v < d->n; v++) {
        memcpy(feat + v * d->f, d->feat + (int64_t)perm[v] * d->f, sizeof(float) * (size_t)d->f);
        label[v] = d->label[perm[v]];
    }
    for (int64_t i = 0; i < d->npairs; i++) d->pair_src[i] = inv[d->pair_src[i]], d->pair_dst[i] = inv[d->pair_dst[i]];
    for (int s = 0; s < 3; s++)
        for (int64_t i = 0; i < d->nsplit[s]; i++) d->split[s][i] = inv[d->split[s][i]];
    free(d->feat), free(d->label), free(inv);
    d->feat = feat, d->label = label;
    return GS_OK;
}
