/* trainer_step.c - the steps every driver takes (trainer.h): the loss,
 * the optimiser and the evaluation, each booked as host work on the run's
 * clock, and one full-batch epoch over the bound blocks. */
#include "trainer.h"

#include <string.h>

#include "base/mono_clock.h"

/* Milliseconds on the run's clock: the emulated one, or the wall. */
static double now_ms(const trainer_t *t)
{
    return 1e3 * (t->ex.clock ? t->ex.clock->now : gs_mono_s());
}

/* Accuracy on one split, computed where the logits are. */
static double split_accuracy(const trainer_t *t, const tensor_t *logits, int s)
{
    const train_data_t *d = &t->data;
    if (!d->split_labelled[s]) return 0.0;
    if (t->kp.K->annotate) t->kp.K->annotate(t->kp.cx, -1, 0, "accuracy"); /* a GPU's kernels named, not the last op's */
    int64_t ok = t->kp.K->correct(t->kp.cx, logits->data, logits->cols, d->label_k, d->split_k[s], d->split_n[s]);
    return (double)ok / (double)d->split_labelled[s];
}

/* The op model's FLOPs for one listed logit (its exponential, the max, the
 * sum, the scaling, the label's share, the term): bench_roofline.py counts
 * the loss's exponentials as its FLOPs over this. */
#define LOSS_FLOPS_PER_LOGIT 6.0

double trainer_loss(trainer_t *t, const tensor_t *out, const int32_t *label, const int32_t *idx, int64_t n, int64_t labelled)
{
    if (t->kp.K->annotate) t->kp.K->annotate(t->kp.cx, -1, 0, "loss");
    exec_mark_t mark = exec_mark(&t->ex);
    float *d = t->dlogits.data;
    /* idx is host memory, so loss_rows can compare it; a simulated run knows
     * what the host's run would, so the two are charged the same work */
    int host = t->kp.K == &kops_cpu || t->kp.K == &kops_sim;
    int known = host && loss_rows_zero_outside(&t->dlogits_rows, d, out->rows, out->cols, idx, n);
    double loss = t->kp.K->xent(t->kp.cx, out->data, out->rows, out->cols, label, idx, n, labelled, d, known);
    if (host && !known) loss_rows_wrote(&t->dlogits_rows, d, out->rows, out->cols, idx, n); /* known: the copy holds them */
    /* the work done: the listed rows' logits, labels and indices read, their
     * exponentials, and their gradient written, after every row's zeroing
     * unless the unlisted rows are known zero (a device's table always zeroes) */
    double listed = (double)n * (double)out->cols, written = known ? listed : (double)tensor_numel(out) + listed;
    exec_host_work(&t->ex, mark, NULL, 0, LOSS_FLOPS_PER_LOGIT * listed, (op_traffic_t){4.0 * (listed + written) + 8.0 * (double)n, 0});
    return loss;
}

int trainer_optimise(trainer_t *t, gs_err_t *err)
{
    const kops_t *K = t->kp.K;
    if (K->annotate) K->annotate(t->kp.cx, -1, 2, "adam");
    exec_mark_t mark = exec_mark(&t->ex);
    model_step(&t->model, t->cfg.lr, t->cfg.weight_decay);
    int rc = K->sync(t->kp.cx, err);
    double nparams = (double)params_count(&t->model.params);
    exec_host_work(&t->ex, mark, NULL, 2, 10.0 * nparams, (op_traffic_t){28.0 * nparams, 0}); /* w, g, m, v read, w, m, v written */
    return rc;
}

int trainer_evaluate(trainer_t *t, const tensor_t *out, epoch_stats_t *st, gs_err_t *err)
{
    exec_mark_t mark = exec_mark(&t->ex);
    st->train_acc = split_accuracy(t, out, SPLIT_TRAIN);
    st->val_acc = split_accuracy(t, out, SPLIT_VALID);
    st->test_acc = split_accuracy(t, out, SPLIT_TEST);
    exec_host_work(&t->ex, mark, NULL, 0, (double)tensor_numel(out), (op_traffic_t){4.0 * (double)tensor_numel(out), 0});
    return t->kp.K->sync(t->kp.cx, err);
}

static int failed(trainer_t *t, gs_err_t *err)
{
    if (!t->ex.failed) return GS_OK;
    *err = t->ex.err;
    return err->code;
}

int trainer_full_epoch(trainer_t *t, epoch_stats_t *st, const full_epoch_hooks_t *h, gs_err_t *err)
{
    int64_t e = t->epoch; /* 0-based index of this epoch: the dropout counter */
    int rc;
    train_data_t *d = &t->data;
    model_state_t *m = &t->model;
    dkp_model_t *fit = t->ex.samples = trainer_dkp_samples(t);
    t->ex.own_s = 0;
    double t0 = now_ms(t);
    const tensor_t *out = exec_forward(&t->ex, &d->x, 1, e);
    st->loss = trainer_loss(t, out, d->label_k, d->split_k[SPLIT_TRAIN], d->split_n[SPLIT_TRAIN], d->split_labelled[SPLIT_TRAIN]);
    exec_backward(&t->ex, &t->dlogits);
    if ((rc = failed(t, err))) return rc;
    if (h && h->sum_gradients && (rc = h->sum_gradients(t, err))) return rc; /* each rank's part of the whole graph's gradient */
    st->flops = t->ex.flops;
    for (int l = 0; l < PROG_MAX_LAYERS; l++) st->agg_flops += t->ex.agg_flops[l][0] + t->ex.agg_flops[l][1];
    if ((rc = trainer_optimise(t, err))) return rc;
    double t1 = now_ms(t);
    t->ex.samples = NULL;
    out = exec_forward(&t->ex, &d->x, 0, e);
    if ((rc = trainer_evaluate(t, out, st, err))) return rc;
    if (h && h->after_evaluation && (rc = h->after_evaluation(t, st, err))) return rc;
    st->epoch_ms = t1 - t0;
    st->eval_ms = now_ms(t) - t1;
    st->host_ms = 1e3 * t->ex.own_s;
    st->edge_bytes = prog_edge_bytes(&m->prog, d->g.m);
    if ((rc = failed(t, err))) return rc;
    return fit ? trainer_dkp_refit(t, err) : GS_OK; /* the first measured epoch: DKP's model fitted to its kernels */
}

double train_xent(const tensor_t *logits, const int32_t *label, const int32_t *idx, int64_t n, tensor_t *dlogits)
{
    return kops_cpu.xent(NULL, logits->data, logits->rows, logits->cols, label, idx, n,
                         data_count_labelled(label, idx, n), dlogits ? dlogits->data : NULL, 0);
}
