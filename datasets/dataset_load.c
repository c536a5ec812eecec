/* dataset_load.c - see dataset_load.h. Shipped datasets are searched in
 * $GNNSCOPE_DATA, next to the executable (datasets/), in
 * ../share/gnnscope/datasets relative to it, and in the directory compiled
 * in as GS_DATADIR. */
#include "dataset_load.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/resource.h"
#include "base/rng.h"
#include "cache.h"
#include "generator.h"
#include "ogb_loader.h"
#include "snap_loader.h"

#ifndef GS_DATADIR
#define GS_DATADIR "datasets"
#endif

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

/* Reads the cache file cfile when it is valid for fingerprint fp; a
 * damaged one is reported (it is rebuilt from the sources). */
static int read_cache(dataset_t *d, const char *cfile, uint64_t fp, const char *source, gs_warnings_t *warn)
{
    gs_err_t cerr;
    int damaged;
    if (cache_read(d, cfile, fp, &damaged, &cerr) == GS_OK) return 1;
    if (damaged) gs_warn(warn, "damaged dataset cache (%s); rebuilding it from %s", cerr.msg, source);
    return 0;
}

/* A generated dataset ("gen:..."), through the cache like any source. */
static int load_generated(dataset_t *d, const char *spec, int use_cache, gs_warnings_t *warn, gs_err_t *err)
{
    gen_params_t p;
    int rc = gen_parse_spec(spec, &p, err);
    if (rc) return rc;
    char cfile[PATH_MAX + 128];
    gs_err_t cerr;
    uint64_t fp = gs_hash2(cache_fingerprint(""), 0x6e6e);
    for (const char *c = spec; *c; c++) fp = gs_hash2(fp, (unsigned char)*c);
    int cache_ok = use_cache && cache_path(spec, cfile, sizeof cfile, &cerr) == GS_OK;
    if (cache_ok && read_cache(d, cfile, fp, spec, warn)) return GS_OK;
    if ((rc = gen_graph(d, &p, err))) return rc;
    if (cache_ok && cache_write(d, cfile, fp, &cerr) != GS_OK)
        gs_warn(warn, "could not write dataset cache: %s", cerr.msg);
    return GS_OK;
}

int dataset_load(dataset_t *d, const char *spec, int use_cache, gs_warnings_t *warn, gs_err_t *err)
{
    char path[PATH_MAX + 64], abs[PATH_MAX];
    memset(d, 0, sizeof *d);
    if (!spec || !*spec) return gs_fail(err, GS_EINPUT, "--dataset: empty dataset name");
    if (strncmp(spec, GEN_PREFIX, strlen(GEN_PREFIX)) == 0) return load_generated(d, spec, use_cache, warn, err);
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
        if (read_cache(d, cfile, fp, abs, warn)) return GS_OK;
    }
    int rc = load_source(d, abs, err);
    if (rc) {
        dataset_free(d);
        return rc;
    }
    base_name(abs, d->name, sizeof d->name);
    if (cache_ok && cache_write(d, cfile, fp, &cerr) != GS_OK)
        gs_warn(warn, "could not write dataset cache: %s", cerr.msg);
    return GS_OK;
}


int dataset_load_structure(dataset_t *d, const char *spec, int use_cache, gs_warnings_t *warn, gs_err_t *err)
{
    if (!spec || strncmp(spec, GEN_PREFIX, strlen(GEN_PREFIX)) != 0) return dataset_load(d, spec, use_cache, warn, err);
    memset(d, 0, sizeof *d);
    gen_params_t p;
    int rc = gen_parse_spec(spec, &p, err);
    if (rc) return rc;
    p.structure_only = 1;
    return gen_graph(d, &p, err);
}
