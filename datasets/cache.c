/* cache.c - see cache.h. The format is host-endian; the version is bumped
 * whenever the layout changes. A cache is trusted only after its header's
 * counts are in range and fill the file exactly (checked before any
 * allocation), its checksum holds, and its contents pass the loaders'
 * range checks (dataset_check). */
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/checksum.h"
#include "base/membudget.h"
#include "base/rng.h"

typedef struct {
    char magic[8];
    uint32_t version, header_bytes;
    uint64_t fingerprint;
    int64_t n, f, c, npairs, nsplit[3];
    int32_t ntypes, has_types;
    char name[256];
    uint64_t checksum; /* gs_checksum of this header (with checksum 0) and the arrays after it */
} cache_header_t;

static uint64_t hash_str(uint64_t h, const char *s)
{
    while (*s) h = gs_hash2(h, (unsigned char)*s++);
    return h;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Hashes (relative name, size, mtime) of every file below dir, sorted. */
static uint64_t fingerprint_tree(const char *dir, const char *rel, int depth, uint64_t h)
{
    DIR *dp = opendir(dir);
    if (!dp || depth > 3) {
        if (dp) closedir(dp);
        return h;
    }
    char *names[512];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) && n < 512)
        if (de->d_name[0] != '.') names[n++] = strdup(de->d_name);
    closedir(dp);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char path[4096], sub[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        if (stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                h = fingerprint_tree(path, sub, depth + 1, h);
            } else {
                h = hash_str(h, sub);
                h = gs_hash3(h, (uint64_t)st.st_size, (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec);
            }
        }
        free(names[i]);
    }
    return h;
}

uint64_t cache_fingerprint(const char *source)
{
    struct stat st;
    uint64_t h = gs_hash2(0xcac4e, GS_CACHE_VERSION);
    if (stat(source, &st) != 0) return h;
    if (S_ISDIR(st.st_mode)) return fingerprint_tree(source, "", 0, h);
    return gs_hash3(h, (uint64_t)st.st_size, (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec);
}

int cache_path(const char *abs_source, char *out, size_t outsz, gs_err_t *err)
{
    char dir[4096];
    const char *env = getenv("GNNSCOPE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (env && *env) snprintf(dir, sizeof dir, "%s", env);
    else if (xdg && *xdg) snprintf(dir, sizeof dir, "%s/gnnscope", xdg);
    else if (home && *home) snprintf(dir, sizeof dir, "%s/.cache/gnnscope", home);
    else snprintf(dir, sizeof dir, "/tmp/gnnscope-cache-%ld", (long)getuid());
    int rc = mkdir_p(dir, err);
    if (rc) return rc;
    const char *base = strrchr(abs_source, '/');
    base = base && base[1] ? base + 1 : abs_source;
    snprintf(out, outsz, "%s/%.64s-%016llx.gsc", dir, base, (unsigned long long)hash_str(0x9a7, abs_source));
    return GS_OK;
}

typedef struct {
    void *ptr;
    size_t bytes;
} span_t;

/* The arrays after the header, in file order. */
static int spans_of(const dataset_t *d, span_t *s)
{
    int k = 0;
    s[k++] = (span_t){d->pair_src, sizeof(int32_t) * (size_t)d->npairs};
    s[k++] = (span_t){d->pair_dst, sizeof(int32_t) * (size_t)d->npairs};
    if (d->pair_type) s[k++] = (span_t){d->pair_type, sizeof(int32_t) * (size_t)d->npairs};
    s[k++] = (span_t){d->feat, sizeof(float) * (size_t)(d->n * d->f)};
    s[k++] = (span_t){d->label, sizeof(int32_t) * (size_t)d->n};
    for (int i = 0; i < 3; i++) s[k++] = (span_t){d->split[i], sizeof(int32_t) * (size_t)d->nsplit[i]};
    return k;
}

/* The checksum's start: the header itself, its checksum field zeroed (so
 * no count it declares can change without the checksum failing). */
static uint64_t header_sum(const cache_header_t *h)
{
    cache_header_t z = *h;
    z.checksum = 0;
    return gs_checksum(GS_CHECKSUM_SEED, &z, sizeof z);
}

/* The header's sizes, checked before anything is allocated: each count
 * in range and the arrays exactly filling the file. */
static int header_ok(const cache_header_t *h, double file_bytes, const char *file, gs_err_t *err)
{
    if (h->n <= 0 || h->n > GS_MAX_NODES || h->f < 0 || h->f > GS_CACHE_MAX_FEATS || h->c < 0 || h->c > GS_MAX_LABEL + 1 ||
        h->npairs < 0 || h->npairs > GS_CACHE_MAX_PAIRS || h->ntypes < 0 || (h->has_types != 0 && h->has_types != 1))
        return gs_fail(err, GS_EINPUT, "%s: header counts out of range", file);
    double want = sizeof *h + 4.0 * (double)h->npairs * (2 + h->has_types) + 4.0 * (double)h->n * (double)h->f +
                  4.0 * (double)h->n;
    for (int i = 0; i < 3; i++) {
        if (h->nsplit[i] < 0 || h->nsplit[i] > h->n) return gs_fail(err, GS_EINPUT, "%s: split %d size out of range", file, i);
        want += 4.0 * (double)h->nsplit[i];
    }
    if (want != file_bytes)
        return gs_fail(err, GS_EINPUT, "%s: %.0f bytes, the header describes %.0f", file, file_bytes, want);
    return GS_OK;
}

int cache_read(dataset_t *d, const char *file, uint64_t fingerprint, int *damaged, gs_err_t *err)
{
    memset(d, 0, sizeof *d);
    *damaged = 0;
    FILE *f = fopen(file, "rb");
    if (!f) return gs_fail(err, GS_EINPUT, "%s: no cache", file);
    cache_header_t h;
    int rc = GS_EINPUT;
    struct stat st;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, GS_CACHE_MAGIC, 8) != 0) {
        gs_fail(err, GS_EINPUT, "%s: not a gnnscope cache", file);
        *damaged = 1;
        goto done;
    }
    if (h.version != GS_CACHE_VERSION || h.header_bytes != sizeof h || h.fingerprint != fingerprint) {
        gs_fail(err, GS_EINPUT, "%s: stale cache", file); /* an older build's, or the sources changed */
        goto done;
    }
    *damaged = 1; /* from here on, a failure means the file is ours but damaged */
    if (fstat(fileno(f), &st) != 0) {
        gs_fail(err, GS_EINPUT, "%s: cannot stat", file);
        goto done;
    }
    if (header_ok(&h, (double)st.st_size, file, err)) goto done;
    if (gs_mem_check((double)st.st_size, "the cached dataset", err)) { /* the file is fine; the memory rule refuses it */
        *damaged = 0;
        goto done;
    }
    d->n = h.n, d->f = h.f, d->c = h.c, d->npairs = h.npairs, d->ntypes = h.ntypes;
    memcpy(d->nsplit, h.nsplit, sizeof h.nsplit);
    memcpy(d->name, h.name, sizeof d->name);
    d->name[sizeof d->name - 1] = '\0';
    d->pair_src = malloc(sizeof(int32_t) * (size_t)(h.npairs + 1));
    d->pair_dst = malloc(sizeof(int32_t) * (size_t)(h.npairs + 1));
    if (h.has_types) d->pair_type = malloc(sizeof(int32_t) * (size_t)(h.npairs + 1));
    d->feat = malloc(sizeof(float) * (size_t)(h.n * h.f + 1));
    d->label = malloc(sizeof(int32_t) * (size_t)h.n);
    for (int i = 0; i < 3; i++) d->split[i] = malloc(sizeof(int32_t) * (size_t)(h.nsplit[i] + 1));
    span_t s[9];
    int k = spans_of(d, s);
    uint64_t sum = header_sum(&h);
    for (int i = 0; i < k; i++) {
        if (!s[i].ptr) {
            rc = gs_fail(err, GS_EFAIL, "out of memory reading %s", file);
            *damaged = 0;
            goto done;
        }
        if (s[i].bytes && fread(s[i].ptr, s[i].bytes, 1, f) != 1) {
            gs_fail(err, GS_EINPUT, "%s: short read", file);
            goto done;
        }
        sum = gs_checksum(sum, s[i].ptr, s[i].bytes);
    }
    if (sum != h.checksum) {
        gs_fail(err, GS_EINPUT, "%s: checksum mismatch", file);
        goto done;
    }
    gs_err_t why;
    if (dataset_check(d, &why)) { /* a checksum of bad data: written by a broken build */
        gs_fail(err, GS_EINPUT, "%s: %s", file, why.msg);
        goto done;
    }
    rc = GS_OK;
    *damaged = 0;
done:
    fclose(f);
    if (rc) dataset_free(d);
    return rc;
}

int cache_write(const dataset_t *d, const char *file, uint64_t fingerprint, gs_err_t *err)
{
    char tmp[4200];
    FILE *f = atomic_fopen(file, tmp, sizeof tmp, err);
    if (!f) return err->code;
    cache_header_t h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, GS_CACHE_MAGIC, 8);
    h.version = GS_CACHE_VERSION;
    h.header_bytes = sizeof h;
    h.fingerprint = fingerprint;
    h.n = d->n, h.f = d->f, h.c = d->c, h.npairs = d->npairs, h.ntypes = d->ntypes;
    h.has_types = d->pair_type != NULL;
    memcpy(h.nsplit, d->nsplit, sizeof h.nsplit);
    snprintf(h.name, sizeof h.name, "%s", d->name);
    span_t s[9];
    int k = spans_of(d, s);
    uint64_t sum = header_sum(&h);
    for (int i = 0; i < k; i++) sum = gs_checksum(sum, s[i].ptr, s[i].bytes);
    h.checksum = sum;
    fwrite(&h, sizeof h, 1, f);
    for (int i = 0; i < k; i++)
        if (s[i].bytes) fwrite(s[i].ptr, s[i].bytes, 1, f);
    return atomic_fclose(f, tmp, file, err);
}
