/* train.c - see train.h. */
#include "train.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cblas.h>
#include <unistd.h>

#include "cuda_plugin.h"
#include "knobs.h"
#include "threadpool.h"

void train_cfg_defaults(train_cfg_t *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->dataset, sizeof c->dataset, "cora");
    snprintf(c->model, sizeof c->model, "gcn");
    c->layers = 2;
    c->hidden = 16;
    c->heads = 8;
    c->epochs = 200;
    c->lr = 0.01f;
    c->weight_decay = 5e-4f;
    c->dropout = 0.5f;
    c->seed = 42;
    c->threads = 0;
    c->dkp = DKP_AUTO;
    c->feat_norm = FEAT_NORM_AUTO;
    c->use_cache = 1;
    c->devices = 1;
    snprintf(c->topology, sizeof c->topology, "1gpu");
    c->chunks = 0;
    c->order = ORDER_NONE;
    c->knobs = (stream_knobs_t){.pipeline = 1, .subchunks = 2, .selective = SEL_AUTO, .swap = 1, .multidev = MD_CHAIN,
                                .memplan = MP_ROC};
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
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

/* The op observer sees host work only: on a device, ops are asynchronous
 * and the device's own profiler (CUPTI) reports them instead. */
static void observe_ops(trainer_t *t)
{
    t->ex.on_op = t->K->device ? NULL : t->cfg.on_op;
    t->ex.op_user = t->cfg.observer;
}

/* Picks where the tensors live and mirrors the graph there. */
static int trainer_place(trainer_t *t, gs_err_t *err)
{
    t->K = &kops_cpu;
    if (t->cfg.device == DEVICE_CUDA && !t->cfg.stream) {
        const gs_cuda_t *cu = gs_cuda_get(err);
        if (!cu) return err->code;
        t->K = cu->kops;
    }
    if (!t->K->device) {
        t->kg = &t->g; /* the host's mirror is the graph itself, renumbering included */
        return GS_OK;
    }
    t->kg = &t->kg_mirror;
    return t->K->graph_mirror(&t->g, &t->kg_mirror, err);
}

int trainer_rebuild_program(trainer_t *t, gs_err_t *err)
{
    program_t prog;
    model_cfg_t mc = {t->ds.f, t->ds.c, t->cfg.hidden, t->cfg.layers, t->cfg.heads, t->cfg.dropout};
    int rc = model_build(&prog, t->model, &mc, t->g.ntypes, err);
    if (rc) {
        prog_free(&prog);
        return rc;
    }
    streamer_t *stream = t->ex.stream;
    exec_free(&t->ex);
    prog_free(&t->prog);
    t->prog = prog;
    t->ndkp = dkp_rewrite(&t->prog, t->cfg.dkp, t->g.n, t->g.m, t->dkp, 64);
    if ((rc = exec_init(&t->ex, &t->prog, t->kg, &t->params, t->cfg.seed, err))) return rc;
    t->ex.stream = stream;
    observe_ops(t);
    return GS_OK;
}

/* Rows of idx that have a label (the loss and accuracy denominators). */
static int64_t count_labelled(const int32_t *label, const int32_t *idx, int64_t n)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) k += label[idx[i]] >= 0;
    return k;
}

/* Copies the labels and the splits into the kernels' memory, and counts
 * each split's labelled rows (the loss and accuracy denominators). */
static int place_labels(trainer_t *t, gs_err_t *err)
{
    const kops_t *K = t->K;
    size_t lb = sizeof(int32_t) * (size_t)(t->ds.n ? t->ds.n : 1);
    if (!t->label_k && !(t->label_k = K->alloc(lb))) return gs_fail(err, GS_EFAIL, "out of %s memory for labels", K->name);
    K->upload(t->label_k, t->ds.label, sizeof(int32_t) * (size_t)t->ds.n);
    for (int s = 0; s < 3; s++) {
        int64_t n = t->ds.nsplit[s];
        if (!t->split_k[s] && !(t->split_k[s] = K->alloc(sizeof(int32_t) * (size_t)(n ? n : 1))))
            return gs_fail(err, GS_EFAIL, "out of %s memory for splits", K->name);
        K->upload(t->split_k[s], t->ds.split[s], sizeof(int32_t) * (size_t)n);
        t->split_labelled[s] = count_labelled(t->ds.label, t->ds.split[s], n);
    }
    return GS_OK;
}

int trainer_load_features(trainer_t *t, gs_err_t *err)
{
    tensor_t host = t->x;
    int rc;
    if (t->K->device && (rc = tensor_alloc(&host, t->x.rows, t->x.cols, err))) return rc;
    memcpy(host.data, t->ds.feat, tensor_bytes(&host));
    normalise_features(&host, t->cfg.feat_norm);
    if (t->K->device) {
        t->K->upload(t->x.data, host.data, tensor_bytes(&host));
        tensor_free(&host);
    }
    return place_labels(t, err);
}

static int alloc_k(const kops_t *K, tensor_t *x, int64_t rows, int64_t cols, gs_err_t *err)
{
    if (!K->device) return tensor_alloc(x, rows, cols, err);
    x->rows = rows, x->cols = cols;
    x->data = K->alloc(sizeof(float) * (size_t)(rows * cols));
    return x->data ? GS_OK : gs_fail(err, GS_EFAIL, "out of %s memory for a (%lld, %lld) tensor", K->name,
                                     (long long)rows, (long long)cols);
}

static void free_k(const kops_t *K, tensor_t *x)
{
    if (!K->device) tensor_free(x);
    else if (x->data) K->release(x->data);
    x->data = NULL;
}

int trainer_open(trainer_t *t, const train_cfg_t *cfg, gs_err_t *err)
{
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    int rc;
    t->model = model_find(cfg->model);
    if (!t->model) return gs_fail(err, GS_EINPUT, "--model %s: unknown model (choose %s)", cfg->model, model_names());
    if (cfg->epochs < 0) return gs_fail(err, GS_EINPUT, "--epochs must be >= 0");
    if (!(cfg->lr > 0) || !isfinite(cfg->lr)) return gs_fail(err, GS_EINPUT, "--lr must be > 0");
    if (!(cfg->weight_decay >= 0)) return gs_fail(err, GS_EINPUT, "--weight-decay must be >= 0");
    if (!(cfg->dropout >= 0 && cfg->dropout < 1)) return gs_fail(err, GS_EINPUT, "--dropout must be in [0, 1)");
    int threads = cfg->threads > 0 ? cfg->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (gs_pool_init(threads) != 0) return gs_fail(err, GS_EFAIL, "cannot start %d threads", threads);
    openblas_set_num_threads(threads);
    double t0 = now_ms();
    if ((rc = dataset_load(&t->ds, cfg->dataset, cfg->use_cache, err))) return rc;
    if (t->ds.nsplit[SPLIT_TRAIN] == 0) return gs_fail(err, GS_EINPUT, "%s: the train split is empty", cfg->dataset);
    double t1 = now_ms();
    if ((rc = graph_build(&t->g, &t->ds, err))) return rc;
    t->load_ms = t1 - t0;
    t->graph_ms = now_ms() - t1;
    model_cfg_t mc = {t->ds.f, t->ds.c, cfg->hidden, cfg->layers, cfg->heads, cfg->dropout};
    if ((rc = model_build(&t->prog, t->model, &mc, t->g.ntypes, err))) return rc;
    t->ndkp = dkp_rewrite(&t->prog, cfg->dkp, t->g.n, t->g.m, t->dkp, 64);
    if ((rc = trainer_place(t, err))) return rc;
    if ((rc = params_init(&t->params, &t->prog, cfg->seed, t->K, err))) return rc;
    if ((rc = exec_init(&t->ex, &t->prog, t->kg, &t->params, cfg->seed, err))) return rc;
    observe_ops(t);
    if ((rc = trainer_stream_open(t, err))) return rc; /* may renumber vertices: before features are copied */
    if ((rc = alloc_k(t->K, &t->x, t->ds.n, t->ds.f, err))) return rc;
    if ((rc = trainer_load_features(t, err))) return rc;
    if ((rc = alloc_k(t->K, &t->dlogits, t->ds.n, t->ds.c, err))) return rc;
    t->best_val = -1;
    return GS_OK;
}

void trainer_close(trainer_t *t)
{
    trainer_stream_close(t);
    exec_free(&t->ex);
    params_free(&t->params);
    prog_free(&t->prog);
    if (t->K) {
        free_k(t->K, &t->x);
        free_k(t->K, &t->dlogits);
        if (t->label_k) t->K->release(t->label_k);
        for (int s = 0; s < 3; s++)
            if (t->split_k[s]) t->K->release(t->split_k[s]);
        if (t->kg == &t->kg_mirror) t->K->graph_release(&t->kg_mirror);
    }
    graph_free(&t->g);
    dataset_free(&t->ds);
    memset(t, 0, sizeof *t);
}

double train_xent(const tensor_t *logits, const int32_t *label, const int32_t *idx, int64_t n, tensor_t *dlogits)
{
    return kops_cpu.xent(logits->data, logits->rows, logits->cols, label, idx, n, count_labelled(label, idx, n),
                         dlogits ? dlogits->data : NULL);
}

void train_adam_step(params_t *ps, int64_t t, float lr, float weight_decay)
{
    const float b1 = 0.9f, b2 = 0.999f;
    float c1 = 1.0f - powf(b1, (float)t), c2 = 1.0f - powf(b2, (float)t);
    for (int i = 0; i < ps->n; i++)
        ps->K->adam(ps->w[i].data, ps->g[i].data, ps->m[i].data, ps->v[i].data, tensor_numel(&ps->w[i]), lr,
                    weight_decay, c1, c2);
}

/* Accuracy on one split, computed where the logits are. */
static double split_accuracy(const trainer_t *t, const tensor_t *logits, int s)
{
    if (!t->split_labelled[s]) return 0.0;
    int64_t ok = t->K->correct(logits->data, logits->cols, t->label_k, t->split_k[s], t->ds.nsplit[s]);
    return (double)ok / (double)t->split_labelled[s];
}

int trainer_epoch(trainer_t *t, epoch_stats_t *st, gs_err_t *err)
{
    (void)err;
    memset(st, 0, sizeof *st);
    int64_t e = t->epoch; /* 0-based index of this epoch: the dropout counter */
    int rc = knob_apply(t, err);
    if (rc) return rc;
    trainer_stream_epoch_begin(t);
    t->ex.samples = t->epoch == 0 && t->ndkp > 0 ? &t->dkp_model : NULL;
    double t0 = now_ms();
    const tensor_t *out = exec_forward(&t->ex, &t->x, 1, e);
    st->loss = t->K->xent(out->data, out->rows, out->cols, t->label_k, t->split_k[SPLIT_TRAIN], t->ds.nsplit[SPLIT_TRAIN],
                          t->split_labelled[SPLIT_TRAIN], t->dlogits.data);
    exec_backward(&t->ex, &t->dlogits);
    if (t->ex.failed) {
        *err = t->ex.err;
        return err->code;
    }
    st->flops = t->ex.flops;
    double t_opt = now_ms();
    if (t->K->annotate) t->K->annotate(-1, 2, "adam");
    train_adam_step(&t->params, ++t->adam_t, t->cfg.lr, t->cfg.weight_decay);
    if ((rc = t->K->sync(err))) return rc;
    double t1 = now_ms();
    if (t->ex.on_op) t->ex.on_op(t->cfg.observer, NULL, 2, t_opt / 1e3, t1 / 1e3, 10.0 * (double)params_count(&t->params));
    if (t->ex.samples) { /* first epoch: fit the DKP cost model on its kernel timings */
        dkp_fit(&t->dkp_model, t->dkp, t->ndkp < 64 ? t->ndkp : 64, t->g.n, t->g.m);
        t->ex.samples = NULL;
    }
    out = exec_forward(&t->ex, &t->x, 0, e);
    st->train_acc = split_accuracy(t, out, SPLIT_TRAIN);
    st->val_acc = split_accuracy(t, out, SPLIT_VALID);
    st->test_acc = split_accuracy(t, out, SPLIT_TEST);
    if ((rc = t->K->sync(err))) return rc;
    st->epoch_ms = t1 - t0;
    st->eval_ms = now_ms() - t1;
    trainer_stream_epoch_end(t, st); /* counters cover the training step and the evaluation */
    if (t->ex.failed) {
        *err = t->ex.err;
        return err->code;
    }
    st->epoch = ++t->epoch;
    if (!isfinite(st->loss)) return gs_fail(err, GS_EFAIL, "epoch %lld: loss is not finite (try a lower --lr)", (long long)st->epoch);
    if (st->val_acc > t->best_val) {
        t->best_val = st->val_acc;
        t->test_at_best = st->test_acc;
        t->best_epoch = st->epoch;
    }
    return GS_OK;
}
