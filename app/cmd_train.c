/* cmd_train.c - `gnnscope train`: headless full-batch training with one
 * progress line per epoch, or a JSON summary as the last stdout line.
 * Ctrl-C, SIGTERM and SIGHUP stop after the current epoch (stop_signal.h);
 * with --checkpoint the last finished epoch is already on disk (saved
 * atomically each epoch). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine/train/train.h"
#include "engine/train/driver_dist.h"
#include "cli.h"
#include "commands.h"
#include "launch.h"
#include "metrics_csv.h"
#include "profile_sink.h"
#include "run_json.h"
#include "stop_signal.h"
#include "train_opts.h"

/* Reports a failure; on a rank, ends the whole job (the others may wait
 * in a collective for this one). */
static void fail(dist_comm_t *comm, int rank, const gs_err_t *err)
{
    if (!comm) {
        fprintf(stderr, "gnnscope: error: %s\n", err->msg);
        return;
    }
    if (rank == 0) fprintf(stderr, "gnnscope: error: %s\n", err->msg);
    else fprintf(stderr, "gnnscope: error: rank %d: %s\n", rank, err->msg);
    fflush(stderr);
    dist_comm_abort(comm, err->code == GS_EINPUT ? 2 : 1);
}

int cmd_train(int argc, char **argv)
{
    train_opts_t o;
    gs_err_t err = {0};
    int help = 0;
    if (train_opts_parse(OPTS_TRAIN, argc, argv, &o, &help, &err)) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    if (help) {
        train_opts_help(OPTS_TRAIN, "usage: gnnscope train [flags]\n\nTrains a GNN full-batch and reports loss and accuracy.");
        return 0;
    }
    if (o.ranks && !o.dist) return launch_ranks("train", argc, argv, &o);
    train_cfg_t cfg = o.cfg;
    const char *checkpoint = o.checkpoint, *resume = o.resume, *trace = o.trace, *metrics = o.metrics;
    int json = o.json, quiet = o.quiet, profile = o.profile, rank = 0;
    dist_comm_t *comm = NULL;
    if (o.dist) { /* one rank of a job: rank 0 reports and writes files, the others only train */
        int size;
        if (dist_comm_open(&comm, &rank, &size, &err)) {
            fprintf(stderr, "gnnscope: error: %s\n", err.msg);
            return err.code == GS_EINPUT ? 2 : 1;
        }
        cfg.dist = 1, cfg.comm = comm;
        if (rank != 0) json = 0, quiet = 1, checkpoint = trace = metrics = "", profile = 0;
    }
    static prof_t prof;
    int profiling = profile || trace[0] || metrics[0];
    metrics_csv_t mcsv;
    metrics_init(&mcsv, metrics);
    if (profiling) {
        if (prof_init(&prof, &err)) {
            fprintf(stderr, "gnnscope: error: %s\n", err.msg);
            return 1;
        }
        cfg.on_task = sink_task, cfg.on_op = sink_op, cfg.on_dist_event = sink_dist_event, cfg.on_stage = sink_stage,
        cfg.observer = &prof;
    }
    trainer_t t;
    int rc = trainer_open(&t, &cfg, &err);
    cli_print_warnings(&t.warnings);
    if (!rc && resume[0]) rc = trainer_resume(&t, resume, &err);
    if (!rc && resume[0] && t.epoch >= cfg.epochs)
        rc = gs_fail(&err, GS_EINPUT, "%s is at epoch %lld: --epochs %d is already reached (raise it to train on)", resume,
                     (long long)t.epoch, cfg.epochs);
    if (!rc && profiling) {
        char why[256];
        if (sink_attach_gpu(&prof, &t.cfg, why, sizeof why))
            fprintf(stderr, "gnnscope: warning: no GPU timeline: CUPTI: %s\n", why);
    }
    if (!rc && trace[0]) rc = prof_trace_start(&prof, trace, &err);
    if (rc) {
        fail(comm, rank, &err);
        trainer_close(&t);
        if (profiling) prof_shutdown(&prof);
        return rc == GS_EINPUT ? 2 : 1;
    }
    t.cfg.threads = cfg.threads > 0 ? cfg.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    stop_signal_install();
    int todo = cfg.epochs > t.epoch ? cfg.epochs - (int)t.epoch : 0;
    run_log_t log = {calloc((size_t)todo + 1, sizeof(double)), calloc((size_t)todo + 1, sizeof(double)),
                     calloc((size_t)todo + 1, sizeof(double)), calloc((size_t)todo + 1, sizeof(double)), 0, {0}, 0, 0};
    if (!quiet && !json)
        printf("gnnscope: %s on %s: %lld nodes, %lld edges, %lld features, %lld classes, %d threads\n", cfg.model,
               t.data.ds.name, (long long)t.data.g.n, (long long)t.data.g.m, (long long)t.data.ds.f, (long long)t.data.ds.c,
               t.cfg.threads);
    int stop = 0;
    for (int i = 0; i < todo; i++) {
        stop = rank == 0 && stop_signal();
        if (t.dist && (rc = trainer_dist_sync(&t, &stop, &err))) break; /* rank 0 decides for every rank */
        if (stop) break;
        epoch_stats_t st;
        if ((rc = trainer_epoch(&t, &st, &err))) break;
        log.loss[log.n] = st.loss, log.ms[log.n] = st.epoch_ms, log.eval_ms[log.n] = st.eval_ms;
        log.flops[log.n] = st.flops;
        log.n++;
        log.last = st;
        if (!quiet && !json) {
            printf("epoch %4lld  loss %.4f  train %.4f  val %.4f  test %.4f  %.1f ms", (long long)st.epoch, st.loss,
                   st.train_acc, st.val_acc, st.test_acc, st.epoch_ms);
            if (t.streaming)
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
            if (metrics[0] && (rc = metrics_add(&mcsv, &st, &err))) break;
        }
    }
    if (!rc && t.dist) rc = trainer_dist_gather(&t, &err); /* every rank: the job's account for rank 0's summary */
    if (profiling) { /* the trace is complete on disk before anything else is reported */
        sink_detach_gpu();
        gs_err_t terr;
        if (prof_trace_stop(&prof, &terr) && !rc) rc = terr.code, err = terr;
    }
    metrics_free(&mcsv);
    if (rc) fail(comm, rank, &err);
    else if (stop && rank == 0) fprintf(stderr, "gnnscope: interrupted after epoch %lld%s\n", (long long)t.epoch,
                                        checkpoint[0] ? " (checkpoint saved)" : "");
    if (!rc && json) run_json_print(stdout, &t, &log);
    else if (!rc && !quiet && log.n)
        printf("best val %.4f at epoch %lld (test %.4f); final test %.4f\n", t.best_val, (long long)t.best_epoch,
               t.test_at_best, log.last.test_acc);
    free(log.loss), free(log.ms), free(log.eval_ms), free(log.flops);
    trainer_close(&t);
    if (profiling) prof_shutdown(&prof);
    if (comm) dist_comm_close(comm);
    if (rc) return rc == GS_EINPUT ? 2 : 1;
    return stop_signal_exit_code();
}
