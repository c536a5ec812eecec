/* cmd_train.c - `gnnscope train`: headless full-batch training with one
 * progress line per epoch, or a JSON summary as the last stdout line.
 * Ctrl-C / SIGTERM stop after the current epoch; with --checkpoint the
 * last finished epoch is already on disk (saved atomically each epoch). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../engine/train.h"
#include "cli.h"
#include "commands.h"
#include "metrics_csv.h"
#include "profile_sink.h"
#include "stream_cli.h"
#include "train_opts.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (n == 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static long long peak_rss_bytes(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (long long)ru.ru_maxrss * 1024LL;
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
        else putchar(*s);
    }
    putchar('"');
}

typedef struct {
    double *loss, *ms, *eval_ms, *flops;
    int n;
    epoch_stats_t last;
    uint64_t events, dropped; /* profiler events recorded and dropped */
} run_log_t;

static void print_json(const trainer_t *t, const run_log_t *log)
{
    double ms_med = median(log->ms, log->n), ev_med = median(log->eval_ms, log->n);
    double fl = log->n ? log->flops[0] : 0;
    printf("{\"dataset\":");
    json_str(t->ds.name);
    printf(",\"model\":");
    json_str(t->cfg.model);
    printf(",\"nodes\":%lld,\"edges\":%lld,\"features\":%lld,\"classes\":%lld,\"layers\":%d,\"hidden\":%lld,\"heads\":%d",
           (long long)t->g.n, (long long)t->g.m, (long long)t->ds.f, (long long)t->ds.c, t->cfg.layers,
           (long long)t->cfg.hidden, t->cfg.heads);
    printf(",\"params\":%lld,\"threads\":%d,\"seed\":%llu", (long long)params_count(&t->params), t->cfg.threads,
           (unsigned long long)t->cfg.seed);
    printf(",\"epochs\":%lld,\"final_loss\":%.9g,\"train_acc\":%.6f,\"val_acc\":%.6f,\"test_acc\":%.6f", (long long)t->epoch,
           log->last.loss, log->last.train_acc, log->last.val_acc, log->last.test_acc);
    printf(",\"best_val_acc\":%.6f,\"test_acc_at_best_val\":%.6f,\"best_epoch\":%lld", t->best_val < 0 ? 0 : t->best_val,
           t->test_at_best, (long long)t->best_epoch);
    printf(",\"epoch_ms_median\":%.4f,\"eval_ms_median\":%.4f,\"flops_per_epoch\":%.6g,\"gflops\":%.4f", ms_med, ev_med, fl,
           ms_med > 0 ? fl / (ms_med * 1e6) : 0.0);
    printf(",\"load_ms\":%.3f,\"graph_ms\":%.3f", t->load_ms, t->graph_ms);
    printf(",\"peak_rss_bytes\":%lld,\"dkp\":[", peak_rss_bytes());
    for (int i = 0; i < t->ndkp && i < 64; i++)
        printf("%s{\"layer\":%d,\"din\":%lld,\"dout\":%lld,\"order\":\"%s\",\"agg_flops_fwd\":{\"aggregation_first\":%.6g,"
               "\"combination_first\":%.6g},\"agg_flops_bwd\":{\"aggregation_first\":%.6g,\"combination_first\":%.6g},"
               "\"predicted_saving_ms\":%.4f}",
               i ? "," : "", t->dkp[i].layer, (long long)t->dkp[i].din, (long long)t->dkp[i].dout,
               t->dkp[i].combination_first ? "combination-first" : "aggregation-first", t->dkp[i].agg_flops_fwd[0],
               t->dkp[i].agg_flops_fwd[1], t->dkp[i].agg_flops_bwd[0], t->dkp[i].agg_flops_bwd[1],
               1e3 * t->dkp[i].predicted_saving_s);
    printf("],\"agg_flops_by_layer\":[");
    int nlayers = 0;
    for (int i = 0; i < t->prog.ncode; i++)
        if (t->prog.code[i].layer + 1 > nlayers) nlayers = t->prog.code[i].layer + 1;
    for (int l = 0; l < nlayers && l < PROG_MAX_LAYERS; l++)
        printf("%s{\"layer\":%d,\"fwd\":%.6g,\"bwd\":%.6g}", l ? "," : "", l, t->ex.agg_flops[l][0], t->ex.agg_flops[l][1]);
    printf("]");
    if (t->dkp_model.fitted)
        printf(",\"dkp_fit\":{\"alpha\":%.4g,\"beta\":%.4g,\"gamma\":%.4g,\"delta\":%.4g,\"gemm_samples\":%d,\"gather_samples\":%d}",
               t->dkp_model.alpha, t->dkp_model.beta, t->dkp_model.gamma, t->dkp_model.delta, t->dkp_model.ngemm,
               t->dkp_model.ngather);
    if (t->backend) print_stream_json(t, &log->last, (log->last.epoch_ms + log->last.eval_ms) / 1e3);
    else printf(",\"engine\":\"memory\",\"backend\":\"%s\"", t->K->name);
    printf(",\"profile_events\":%llu,\"profile_dropped\":%llu", (unsigned long long)log->events,
           (unsigned long long)log->dropped);
    printf(",\"losses\":[");
    for (int i = 0; i < log->n; i++) printf("%s%.9g", i ? "," : "", log->loss[i]);
    printf("]}\n");
}

int cmd_train(int argc, char **argv)
{
    train_opts_t o;
    gs_err_t err = {0};
    int help = 0;
    if (train_opts_parse("gnnscope train", argc, argv, &o, &help, &err)) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    if (help) {
        train_opts_help("usage: gnnscope train [flags]\n\nTrains a GNN full-batch and reports loss and accuracy.");
        return 0;
    }
    train_cfg_t cfg = o.cfg;
    const char *checkpoint = o.checkpoint, *resume = o.resume, *trace = o.trace, *metrics = o.metrics;
    int json = o.json, quiet = o.quiet, profile = o.profile;
    static prof_t prof;
    int profiling = profile || trace[0] || metrics[0];
    metrics_csv_t mcsv;
    metrics_init(&mcsv, metrics);
    if (profiling) {
        if (prof_init(&prof, &err)) {
            fprintf(stderr, "gnnscope: error: %s\n", err.msg);
            return 1;
        }
        cfg.on_task = sink_task, cfg.on_op = sink_op, cfg.observer = &prof;
    }
    trainer_t t;
    int rc = trainer_open(&t, &cfg, &err);
    if (!rc && resume[0]) rc = trainer_resume(&t, resume, &err);
    if (!rc && profiling) {
        char why[256];
        if (sink_attach_gpu(&prof, &t.cfg, why, sizeof why))
            fprintf(stderr, "gnnscope: warning: no GPU timeline: CUPTI: %s\n", why);
    }
    if (!rc && trace[0]) rc = prof_trace_start(&prof, trace, &err);
    if (rc) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        trainer_close(&t);
        if (profiling) prof_shutdown(&prof);
        return rc == GS_EINPUT ? 2 : 1;
    }
    t.cfg.threads = cfg.threads > 0 ? cfg.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    int todo = cfg.epochs > t.epoch ? cfg.epochs - (int)t.epoch : 0;
    run_log_t log = {calloc((size_t)todo + 1, sizeof(double)), calloc((size_t)todo + 1, sizeof(double)),
                     calloc((size_t)todo + 1, sizeof(double)), calloc((size_t)todo + 1, sizeof(double)), 0, {0}, 0, 0};
    if (!quiet && !json)
        printf("gnnscope: %s on %s: %lld nodes, %lld edges, %lld features, %lld classes, %d threads\n", cfg.model,
               t.ds.name, (long long)t.g.n, (long long)t.g.m, (long long)t.ds.f, (long long)t.ds.c, t.cfg.threads);
    for (int i = 0; i < todo && !stop_requested; i++) {
        epoch_stats_t st;
        if ((rc = trainer_epoch(&t, &st, &err))) break;
        log.loss[log.n] = st.loss, log.ms[log.n] = st.epoch_ms, log.eval_ms[log.n] = st.eval_ms;
        log.flops[log.n] = st.flops;
        log.n++;
        log.last = st;
        if (!quiet && !json) {
            printf("epoch %4lld  loss %.4f  train %.4f  val %.4f  test %.4f  %.1f ms", (long long)st.epoch, st.loss,
                   st.train_acc, st.val_acc, st.test_acc, st.epoch_ms);
            if (t.backend)
                printf("  h2d %.1f MB  kept %.1f MB  d2d %.1f MB  overlap %.0f%% (emulated, %s)", st.h2d_bytes / 1e6,
                       st.kept_bytes / 1e6, st.d2d_bytes / 1e6, 100 * st.overlap, t.cfg.topology);
            printf("\n");
        }
        fflush(stdout);
        if (checkpoint[0] && (rc = trainer_save(&t, checkpoint, &err))) break;
        if (profiling) {
            prof_totals_t pt;
            prof_take_totals(&prof, &pt);
            log.events += pt.events, log.dropped = pt.dropped;
            if (metrics[0] && (rc = metrics_add(&mcsv, &st, &pt, &err))) break;
        }
    }
    if (profiling) { /* the trace is complete on disk before anything else is reported */
        sink_detach_gpu();
        gs_err_t terr;
        if (prof_trace_stop(&prof, &terr) && !rc) rc = terr.code, err = terr;
    }
    metrics_free(&mcsv);
    if (rc) fprintf(stderr, "gnnscope: error: %s\n", err.msg);
    else if (stop_requested) fprintf(stderr, "gnnscope: interrupted after epoch %lld%s\n", (long long)t.epoch,
                                     checkpoint[0] ? " (checkpoint saved)" : "");
    if (!rc && json) print_json(&t, &log);
    else if (!rc && !quiet && log.n)
        printf("best val %.4f at epoch %lld (test %.4f); final test %.4f\n", t.best_val, (long long)t.best_epoch,
               t.test_at_best, log.last.test_acc);
    free(log.loss), free(log.ms), free(log.eval_ms), free(log.flops);
    trainer_close(&t);
    if (profiling) prof_shutdown(&prof);
    if (rc) return rc == GS_EINPUT ? 2 : 1;
    return stop_requested ? 130 : 0;
}
