/* test_util.h - helpers shared by the cmocka tests: temporary
 * directories, small files (plain or gzip), and small random graphs.
 * Header-only so each test binary stays a single translation unit. */
#ifndef GS_TEST_UTIL_H
#define GS_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "datasets/dataset_load.h"
#include "datasets/generator.h"
#include "engine/graph/graph.h"
#include "base/rng.h"
#include "base/threadpool.h"

/* Creates a fresh directory under $TMPDIR (or /tmp) and returns it. */
static inline char *tu_mkdtemp(void)
{
    const char *base = getenv("TMPDIR");
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/gnnscope-test-XXXXXX", base && *base ? base : "/tmp");
    assert_non_null(mkdtemp(p));
    return p;
}

static inline void tu_rmtree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Writes text to dir/name; gzip-compressed when name ends in .gz. */
static inline void tu_write(const char *dir, const char *name, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (char *q = path + strlen(dir) + 1; *q; q++)
        if (*q == '/') {
            *q = '\0';
            mkdir(path, 0755);
            *q = '/';
        }
    size_t n = strlen(name);
    if (n > 3 && strcmp(name + n - 3, ".gz") == 0) {
        gzFile gz = gzopen(path, "wb");
        assert_non_null(gz);
        if (*text) assert_int_equal(gzwrite(gz, text, (unsigned)strlen(text)), (int)strlen(text));
        gzclose(gz);
    } else {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
    }
}

/* A small random dataset: n vertices, npairs random pairs (self-pairs
 * allowed, they are dropped by graph_build), f features, c classes. */
static inline void tu_random_dataset(dataset_t *d, int64_t n, int64_t npairs, int64_t f, int64_t c, int typed,
                                     uint64_t seed)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "random");
    d->n = n, d->f = f, d->c = c, d->npairs = npairs;
    d->pair_src = malloc(sizeof(int32_t) * (size_t)npairs);
    d->pair_dst = malloc(sizeof(int32_t) * (size_t)npairs);
    if (typed) {
        d->pair_type = malloc(sizeof(int32_t) * (size_t)npairs);
        d->ntypes = 2;
    }
    for (int64_t i = 0; i < npairs; i++) {
        d->pair_src[i] = (int32_t)(gs_hash3(seed, 1, (uint64_t)i) % (uint64_t)n);
        d->pair_dst[i] = (int32_t)(gs_hash3(seed, 2, (uint64_t)i) % (uint64_t)n);
        if (typed) d->pair_type[i] = (int32_t)(gs_hash3(seed, 3, (uint64_t)i) % 2);
    }
    d->feat = malloc(sizeof(float) * (size_t)(n * f));
    for (int64_t i = 0; i < n * f; i++) d->feat[i] = gs_normal(gs_hash3(seed, 4, (uint64_t)i));
    d->label = malloc(sizeof(int32_t) * (size_t)n);
    for (int64_t v = 0; v < n; v++) d->label[v] = (int32_t)(gs_hash3(seed, 5, (uint64_t)v) % (uint64_t)c);
    for (int s = 0; s < 3; s++) d->split[s] = malloc(sizeof(int32_t) * (size_t)n);
    for (int64_t v = 0; v < n; v++) {
        int s = (int)(v % 3);
        d->split[s][d->nsplit[s]++] = (int32_t)v;
    }
}

/* A test group's fixture: the thread pool (2 threads), tu_random_dataset's
 * dataset and its graph. Returns graph_build's code. */
static inline int tu_random_graph(dataset_t *d, graph_t *g, int64_t n, int64_t npairs, int64_t f, int64_t c, int typed,
                                  uint64_t seed)
{
    gs_err_t err;
    gs_pool_init(2);
    tu_random_dataset(d, n, npairs, f, c, typed, seed);
    return graph_build(g, d, &err);
}

static inline void tu_random_graph_free(dataset_t *d, graph_t *g)
{
    graph_free(g);
    dataset_free(d);
}

static inline void tu_fill(float *x, int64_t n, uint64_t seed)
{
    for (int64_t i = 0; i < n; i++) x[i] = gs_normal(gs_hash2(seed, (uint64_t)i));
}

/* A generated graph written as an OGB directory in a fresh temporary
 * directory, with the dataset cache pointed at a second one. Both paths
 * are returned for tu_gen_cleanup. */
typedef struct {
    char *data_dir, *work_dir;
} tu_gen_t;

static inline int tu_gen_setup(tu_gen_t *g, const gen_params_t *p)
{
    gs_err_t err;
    dataset_t d;
    g->data_dir = tu_mkdtemp();
    g->work_dir = tu_mkdtemp();
    setenv("GNNSCOPE_CACHE_DIR", g->work_dir, 1);
    if (gen_graph(&d, p, &err) || ogb_write(&d, g->data_dir, &err)) return -1;
    dataset_free(&d);
    return 0;
}

static inline void tu_gen_cleanup(tu_gen_t *g)
{
    tu_rmtree(g->data_dir), tu_rmtree(g->work_dir);
    free(g->data_dir), free(g->work_dir);
}

#endif
