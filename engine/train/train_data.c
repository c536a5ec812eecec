/* train_data.c - see train_data.h. */
#include "train_data.h"
#include "base/membudget.h"
#include "base/mono_clock.h"
#include "datasets/generator.h"
#include "engine/stream/streamer.h"
#include "run_kind.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A generated graph's shape is known before it is made, so a run of one
 * that cannot fit is refused at once: amazon's shape at scale 2 was
 * generated for more than 15 minutes before a later check could refuse a
 * real run, and simulated for 9 minutes (17 GB of structure) before the
 * streaming engine's own check refused its chunk grid. The need counted is
 * what the run holds at least, so no run that fits is refused here; the
 * later checks (the graph's, the grid's, the model's) still follow.
 *   - a real run: the features and pair list, the graph (graph_bytes; the
 *     generator makes exactly N x degree edges, plus the self-loops) and,
 *     in a full-batch run in one process, two N x hidden activations;
 *   - a simulated run: the graph's structure (no CSR weights) and, when
 *     it streams, the chunk grid at the chunk count that needs least of
 *     the ones it may have (--chunks, or with auto one a device or more),
 *     both held when stream_engine.c checks the grid. */
static double gen_run_need(const train_cfg_t *c, const gen_params_t *p, char *what, size_t n)
{
    double nodes = (double)p->nodes, edges = nodes * p->avg_degree; /* directed, self-loops excluded */
    int64_t m = (int64_t)edges + p->nodes;
    if (c->simulate) {
        int streams = run_kind_of(c, 0).engine == ENGINE_STREAM;
        int most = (int)(p->nodes < STREAMER_CHUNKS_SEARCH ? p->nodes : STREAMER_CHUNKS_SEARCH);
        int lo = c->chunks ? c->chunks : c->devices > 1 ? c->devices : 1, hi = c->chunks ? c->chunks : most;
        double grid = 0;
        if (streams) streamer_leanest_chunks(p->nodes, m, lo, hi, c->knobs.subchunks, 0, &grid);
        snprintf(what, n, "--dataset %s: a simulated run (the graph's structure%s, at least)", c->dataset,
                 streams ? " and its chunk grid" : "");
        return graph_bytes(p->nodes, m, 0) + grid;
    }
    int whole = c->batch_size == 0 && !c->dist; /* a sampled run's batches and a rank's rows are parts of N */
    double data = 4.0 * nodes * (double)p->feats + 4.0 * edges;
    double activations = whole ? 2.0 * 4.0 * nodes * (double)c->hidden : 0.0;
    snprintf(what, n, "--dataset %s: a real run (%s, at least)", c->dataset,
             whole ? "features, graph and two activations" : "features and graph");
    return data + graph_bytes(p->nodes, m, 1) + activations;
}

static int gen_run_fits(const train_cfg_t *c, gs_err_t *err)
{
    if (strncmp(c->dataset, GEN_PREFIX, strlen(GEN_PREFIX)) != 0) return GS_OK;
    gen_params_t p;
    int rc = gen_parse_spec(c->dataset, &p, err);
    if (rc) return rc;
    char what[400];
    double need = gen_run_need(c, &p, what, sizeof what);
    if ((rc = gs_mem_check(need, what, err)) == GS_OK || c->simulate) return rc;
    size_t len = strlen(err->msg);
    snprintf(err->msg + len, sizeof err->msg - len, "; --simulate runs this shape without its features");
    return rc;
}

int data_open(train_data_t *d, const train_cfg_t *c, gs_warnings_t *warn, gs_err_t *err)
{
    memset(d, 0, sizeof *d);
    int rc = gen_run_fits(c, err);
    if (rc) return rc;
    double t0 = 1e3 * gs_mono_s();
    rc = c->simulate ? dataset_load_structure(&d->ds, c->dataset, !c->no_cache, warn, err)
                     : dataset_load(&d->ds, c->dataset, !c->no_cache, warn, err);
    if (rc) return rc;
    if (d->ds.nsplit[SPLIT_TRAIN] == 0) return gs_fail(err, GS_EINPUT, "%s: the train split is empty", c->dataset);
    if (data_count_labelled(d->ds.label, d->ds.split[SPLIT_TRAIN], d->ds.nsplit[SPLIT_TRAIN]) == 0)
        return gs_fail(err, GS_EINPUT, "%s: no vertex of the train split has a label (labels are -1)", c->dataset);
    double t1 = 1e3 * gs_mono_s();
    if ((rc = c->simulate ? graph_build_structure(&d->g, &d->ds, err) : graph_build(&d->g, &d->ds, err))) return rc;
    d->load_ms = t1 - t0;
    d->graph_ms = 1e3 * gs_mono_s() - t1;
    return GS_OK;
}

/* Row-L1 normalisation; AUTO applies it only to non-negative features
 * (bag-of-words style, as for Cora). */
static void normalise_features(tensor_t *x, feat_norm_t mode)
{
    int64_t n = x->rows, f = x->cols;
    if (mode == FEAT_NORM_NONE) return;
    if (mode == FEAT_NORM_AUTO)
        for (int64_t i = 0; i < n * f; i++)
            if (x->data[i] < 0) return;
    for (int64_t v = 0; v < n; v++) {
        double s = 0;
        for (int64_t j = 0; j < f; j++) s += fabsf(x->data[v * f + j]);
        if (s > 0)
            for (int64_t j = 0; j < f; j++) x->data[v * f + j] = (float)(x->data[v * f + j] / s);
    }
}

int64_t data_count_labelled(const int32_t *label, const int32_t *idx, int64_t n)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) k += label[idx[i]] >= 0;
    return k;
}

/* A kp buffer of bytes, allocated on first use. */
static int ensure(kplace_t kp, void **p, size_t bytes, const char *what, gs_err_t *err)
{
    if (!*p && !(*p = kp.K->alloc(kp.cx, bytes ? bytes : 1)))
        return gs_fail(err, GS_EFAIL, "out of %s memory for %s", kp.K->name, what);
    return GS_OK;
}

static void release_copies(train_data_t *d)
{
    if (!d->kp.K) return;
    if (d->x.data && !d->x_is_view) d->kp.K->release(d->kp.cx, d->x.data);
    d->x_is_view = 0;
    if (d->label_k) d->kp.K->release(d->kp.cx, d->label_k);
    for (int s = 0; s < 3; s++)
        if (d->split_k[s]) d->kp.K->release(d->kp.cx, d->split_k[s]);
    if (d->kg == &d->kg_mirror) d->kp.K->graph_release(d->kp.cx, &d->kg_mirror);
    d->x.data = NULL, d->label_k = NULL, d->kg = NULL;
    memset(d->split_k, 0, sizeof d->split_k);
}

int data_place(train_data_t *d, kplace_t kp, feat_norm_t fn, gs_err_t *err)
{
    release_copies(d);
    d->kp = kp;
    const kops_t *K = kp.K;
    int rc;
    if (!K->device) d->kg = &d->g; /* the host's mirror is the graph itself */
    else if ((rc = K->graph_mirror(kp.cx, &d->g, &d->kg_mirror, err))) return rc;
    else d->kg = &d->kg_mirror;
    d->x.rows = d->ds.n, d->x.cols = d->ds.f;
    int simulated = K == &kops_sim; /* a simulated run never reads them */
    if (!simulated && !d->feat_normalised) {
        tensor_t feat = {d->ds.n, d->ds.f, d->ds.feat};
        normalise_features(&feat, fn);
        d->feat_normalised = 1;
    }
    if (!simulated && !K->device) {
        d->x.data = d->ds.feat, d->x_is_view = 1; /* no second copy of the features */
    } else {
        if ((rc = ensure(kp, (void **)&d->x.data, tensor_bytes(&d->x), "features", err))) return rc;
        if (!simulated) K->upload(kp.cx, d->x.data, d->ds.feat, tensor_bytes(&d->x));
    }
    if ((rc = ensure(kp, (void **)&d->label_k, sizeof(int32_t) * (size_t)d->ds.n, "labels", err))) return rc;
    K->upload(kp.cx, d->label_k, d->ds.label, sizeof(int32_t) * (size_t)d->ds.n);
    for (int s = 0; s < 3; s++) {
        int64_t n = d->ds.nsplit[s];
        if ((rc = ensure(kp, (void **)&d->split_k[s], sizeof(int32_t) * (size_t)n, "splits", err))) return rc;
        K->upload(kp.cx, d->split_k[s], d->ds.split[s], sizeof(int32_t) * (size_t)n);
        d->split_labelled[s] = data_count_labelled(d->ds.label, d->ds.split[s], n);
        d->split_n[s] = n;
    }
    return GS_OK;
}

int data_localize(train_data_t *d, const int32_t *rows, int64_t nrows, int64_t room, int64_t lo, int64_t hi, gs_err_t *err)
{
    if (d->kp.K->device) return gs_fail(err, GS_EINPUT, "a rank's data lives in host memory (--backend cuda with --ranks is not supported)");
    int64_t f = d->x.cols, own = hi - lo;
    float *x = calloc((size_t)(room * f + 1), sizeof(float));
    int32_t *label = malloc(sizeof(int32_t) * (size_t)(own + 1)), *split[3] = {NULL, NULL, NULL};
    int bad = !x || !label;
    for (int s = 0; s < 3 && !bad; s++) bad = !(split[s] = malloc(sizeof(int32_t) * (size_t)(d->split_n[s] + 1)));
    if (bad) {
        free(x), free(label);
        for (int s = 0; s < 3; s++) free(split[s]);
        return gs_fail(err, GS_EFAIL, "out of memory for the rank's data");
    }
    int simulated = d->kp.K == &kops_sim; /* its features are never read */
    for (int64_t i = 0; i < nrows && !simulated; i++) memcpy(x + i * f, d->x.data + (int64_t)rows[i] * f, sizeof(float) * (size_t)f);
    memcpy(label, d->label_k + lo, sizeof(int32_t) * (size_t)own);
    int64_t n[3] = {0, 0, 0};
    for (int s = 0; s < 3; s++)
        for (int64_t i = 0; i < d->split_n[s]; i++)
            if (d->split_k[s][i] >= lo && d->split_k[s][i] < hi) split[s][n[s]++] = (int32_t)(d->split_k[s][i] - lo);
    release_copies(d);
    d->kg = &d->g;
    d->x = (tensor_t){room, f, x};
    d->label_k = label;
    for (int s = 0; s < 3; s++) d->split_k[s] = split[s], d->split_n[s] = n[s];
    dataset_t *ds = &d->ds; /* what is not needed any more */
    free(ds->pair_src), free(ds->pair_dst), free(ds->pair_type), free(ds->feat), free(ds->label);
    ds->pair_src = ds->pair_dst = ds->pair_type = NULL, ds->feat = NULL, ds->label = NULL;
    for (int s = 0; s < 3; s++) free(ds->split[s]), ds->split[s] = NULL;
    d->kp = simulated ? kplace_sim() : kplace_host();
    return GS_OK;
}

int data_renumber(train_data_t *d, const int32_t *perm, gs_err_t *err)
{
    int64_t n = d->g.n;
    int32_t *orig = malloc(sizeof(int32_t) * (size_t)n);
    if (!orig) return gs_fail(err, GS_EFAIL, "out of memory");
    for (int64_t v = 0; v < n; v++) orig[v] = d->g.orig_id[perm[v]];
    int rc = dataset_permute(&d->ds, perm, err);
    if (!rc) {
        int structure_only = d->g.out_w_norm == NULL; /* a simulated run's */
        graph_free(&d->g);
        rc = structure_only ? graph_build_structure(&d->g, &d->ds, err) : graph_build(&d->g, &d->ds, err);
    }
    if (!rc) memcpy(d->g.orig_id, orig, sizeof(int32_t) * (size_t)n);
    free(orig);
    return rc;
}

void data_close(train_data_t *d)
{
    release_copies(d);
    graph_free(&d->g);
    dataset_free(&d->ds);
    memset(d, 0, sizeof *d);
}
