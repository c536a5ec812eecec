/* train.c - see train.h. */
#include "train.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cblas.h>
#include <unistd.h>

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
    c->knobs = (stream_knobs_t){.pipeline = 1, .subchunks = 2, .selective = SEL_AUTO, .swap = 1, .multidev = MD_CHAIN};
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
    if ((rc = exec_init(&t->ex, &t->prog, &t->g, &t->params, t->cfg.seed, err))) return rc;
    t->ex.stream = stream;
    t->ex.on_op = t->cfg.on_op;
    t->ex.op_user = t->cfg.observer;
    return GS_OK;
}

void trainer_load_features(trainer_t *t)
{
    memcpy(t->x.data, t->ds.feat, tensor_bytes(&t->x));
    normalise_features(&t->x, t->cfg.feat_norm);
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
    if ((rc = params_init(&t->params, &t->prog, cfg->seed, err))) return rc;
    if ((rc = exec_init(&t->ex, &t->prog, &t->g, &t->params, cfg->seed, err))) return rc;
    t->ex.on_op = cfg->on_op;
    t->ex.op_user = cfg->observer;
    if ((rc = trainer_stream_open(t, err))) return rc; /* may renumber vertices: before features are copied */
    if ((rc = tensor_alloc(&t->x, t->ds.n, t->ds.f, err))) return rc;
    trainer_load_features(t);
    if ((rc = tensor_alloc(&t->dlogits, t->ds.n, t->ds.c, err))) return rc;
    t->best_val = -1;
    return GS_OK;
}

void trainer_close(trainer_t *t)
{
    trainer_stream_close(t);
    exec_free(&t->ex);
    params_free(&t->params);
    prog_free(&t->prog);
    graph_free(&t->g);
    dataset_free(&t->ds);
    tensor_free(&t->x);
    tensor_free(&t->dlogits);
}

double train_xent(const tensor_t *logits, const int32_t *label, const int32_t *idx, int64_t n, tensor_t *dlogits)
{
    int64_t c = logits->cols;
    double total = 0;
    int64_t cnt = 0;
    if (dlogits) tensor_zero(dlogits);
    for (int64_t i = 0; i < n; i++)
        if (label[idx[i]] >= 0) cnt++;
    if (cnt == 0) return 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = idx[i];
        if (label[v] < 0) continue;
        const float *z = logits->data + v * c;
        float mx = z[0];
        for (int64_t j = 1; j < c; j++) mx = fmaxf(mx, z[j]);
        double s = 0;
        for (int64_t j = 0; j < c; j++) s += exp((double)(z[j] - mx));
        double lse = log(s) + mx;
        total += lse - z[label[v]];
        if (dlogits) {
            float *d = dlogits->data + v * c;
            for (int64_t j = 0; j < c; j++) d[j] += (float)(exp((double)z[j] - lse) / (double)cnt);
            d[label[v]] -= 1.0f / (float)cnt;
        }
    }
    return total / (double)cnt;
}

double train_accuracy(const tensor_t *logits, const int32_t *label, const int32_t *idx, int64_t n)
{
    int64_t c = logits->cols, ok = 0, cnt = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = idx[i];
        if (label[v] < 0) continue;
        const float *z = logits->data + v * c;
        int64_t best = 0;
        for (int64_t j = 1; j < c; j++)
            if (z[j] > z[best]) best = j;
        ok += best == label[v];
        cnt++;
    }
    return cnt ? (double)ok / (double)cnt : 0.0;
}

void train_adam_step(params_t *ps, int64_t t, float lr, float weight_decay)
{
    const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
    float c1 = 1.0f - powf(b1, (float)t), c2 = 1.0f - powf(b2, (float)t);
    for (int i = 0; i < ps->n; i++) {
        float *w = ps->w[i].data, *g = ps->g[i].data, *m = ps->m[i].data, *v = ps->v[i].data;
        for (int64_t j = 0; j < tensor_numel(&ps->w[i]); j++) {
            float gj = g[j] + weight_decay * w[j];
            m[j] = b1 * m[j] + (1.0f - b1) * gj;
            v[j] = b2 * v[j] + (1.0f - b2) * gj * gj;
            w[j] -= lr * (m[j] / c1) / (sqrtf(v[j] / c2) + eps);
        }
    }
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
    st->loss = train_xent(out, t->ds.label, t->ds.split[SPLIT_TRAIN], t->ds.nsplit[SPLIT_TRAIN], &t->dlogits);
    exec_backward(&t->ex, &t->dlogits);
    if (t->ex.failed) {
        *err = t->ex.err;
        return err->code;
    }
    st->flops = t->ex.flops;
    double t_opt = now_ms();
    train_adam_step(&t->params, ++t->adam_t, t->cfg.lr, t->cfg.weight_decay);
    double t1 = now_ms();
    if (t->cfg.on_op) t->cfg.on_op(t->cfg.observer, NULL, 2, t_opt / 1e3, t1 / 1e3, 10.0 * (double)params_count(&t->params));
    if (t->ex.samples) { /* first epoch: fit the DKP cost model on its kernel timings */
        dkp_fit(&t->dkp_model, t->dkp, t->ndkp < 64 ? t->ndkp : 64, t->g.n, t->g.m);
        t->ex.samples = NULL;
    }
    out = exec_forward(&t->ex, &t->x, 0, e);
    st->train_acc = train_accuracy(out, t->ds.label, t->ds.split[SPLIT_TRAIN], t->ds.nsplit[SPLIT_TRAIN]);
    st->val_acc = train_accuracy(out, t->ds.label, t->ds.split[SPLIT_VALID], t->ds.nsplit[SPLIT_VALID]);
    st->test_acc = train_accuracy(out, t->ds.label, t->ds.split[SPLIT_TEST], t->ds.nsplit[SPLIT_TEST]);
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
