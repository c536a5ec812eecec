/* cmd_train.c - `gnnscope train`: headless training with one progress
 * line per epoch, or a JSON summary as the last stdout line. Ctrl-C,
 * SIGTERM and SIGHUP stop after the current epoch (stop_signal.h); with
 * --checkpoint the last finished epoch is already on disk (saved
 * atomically each epoch). Under --dist each process is one rank: rank 0
 * reports and writes files, the others only train. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "engine/dist/dist_comm.h"
#include "engine/train/driver_dist.h"
#include "engine/train/knob_table.h"
#include "engine/train/train.h"
#include "launch.h"
#include "metrics_csv.h"
#include "profile_sink.h"
#include "run_json.h"
#include "stop_signal.h"
#include "train_opts.h"

/* One `train` run: its options, its rank, the profiler when anything
 * records, and the log the summary is made from. */
typedef struct {
    train_opts_t o;
    int rank, profiling;
    dist_comm_t *comm;
    prof_t *prof;
    metrics_csv_t mcsv;
    trainer_t t;
    run_log_t log;
} train_run_t;

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

/* The profiler (when --profile, --trace or --metrics asks for it) and the
 * trainer, resumed from --resume; GPU spans and the trace started. */
static int open_run(train_run_t *r, gs_err_t *err)
{
    train_opts_t *o = &r->o;
    static prof_t prof;
    train_env_t env = {.comm = r->comm};
    r->profiling = o->profile == 1 || o->trace[0] || o->metrics[0];
    metrics_init(&r->mcsv, o->metrics);
    if (r->profiling) {
        if (prof_init(&prof, err)) return err->code;
        r->prof = &prof;
        env = (train_env_t){sink_task, sink_op, sink_dist_event, sink_stage, &prof, r->comm, 0};
    }
    env.tally_ops = o->profile == 2; /* --profile ops */
    int rc = trainer_open(&r->t, &o->cfg, &env, err);
    cli_print_warnings(&r->t.warnings);
    if (!rc && o->resume[0]) rc = trainer_resume(&r->t, o->resume, err);
    if (!rc && o->resume[0] && r->t.epoch >= o->cfg.epochs)
        rc = gs_fail(err, GS_EINPUT, "%s is at epoch %lld: --epochs %d is already reached (raise it to train on)", o->resume,
                     (long long)r->t.epoch, o->cfg.epochs);
    if (!rc && o->resume[0] && r->rank == 0)
        fprintf(stderr, "gnnscope: resuming from epoch %lld of %s (epochs %lld-%d to go)\n", (long long)r->t.epoch, o->resume,
                (long long)r->t.epoch + 1, o->cfg.epochs);
    char why[256];
    if (!rc && r->profiling && sink_attach_gpu(&prof, &r->t.cfg, why, sizeof why))
        fprintf(stderr, "gnnscope: warning: no GPU timeline: CUPTI: %s\n", why);
    if (r->profiling) prof_set_trace_max(&prof, o->trace_max);
    if (!rc && o->trace[0]) rc = prof_trace_start(&prof, o->trace, err);
    return rc;
}

/* The epoch's line (a streamed run's transfers with it). */
static void print_epoch(const train_run_t *r, const epoch_stats_t *st)
{
    if (r->t.cfg.simulate) /* nothing computed: times only */
        printf("epoch %4lld  simulated  %.1f ms", (long long)st->epoch, st->epoch_ms);
    else
        printf("epoch %4lld  loss %.4f  train %.4f  val %.4f  test %.4f  %.1f ms", (long long)st->epoch, st->loss, st->train_acc,
               st->val_acc, st->test_acc, st->epoch_ms);
    if (r->t.kind.engine == ENGINE_STREAM)
        printf("  h2d %.1f MB  kept %.1f MB  d2d %.1f MB  overlap %.0f%% (emulated, %s)", st->h2d_bytes / 1e6, st->kept_bytes / 1e6,
               st->d2d_bytes / 1e6, 100 * st->overlap, r->t.cfg.topology);
    printf("\n");
}

/* What an epoch leaves behind: the log, its line, the checkpoint, the metrics row. */
static int after_epoch(train_run_t *r, const epoch_stats_t *st, gs_err_t *err)
{
    run_log_t *log = &r->log;
    log->loss[log->n] = st->loss, log->ms[log->n] = st->epoch_ms, log->eval_ms[log->n] = st->eval_ms;
    log->flops[log->n] = st->flops, log->test_acc[log->n] = st->test_acc;
    log->n++;
    log->last = *st;
    if (!r->o.quiet && !r->o.json) print_epoch(r, st);
    fflush(stdout);
    int rc = r->o.checkpoint[0] ? trainer_save(&r->t, r->o.checkpoint, err) : GS_OK;
    if (!rc && r->profiling) {
        prof_epoch_end(r->prof, st->epoch, (st->epoch_ms + st->eval_ms) * 1e-3); /* a trace's epoch marker */
        prof_totals_t pt;
        prof_take_totals(r->prof, &pt);
        log->events += pt.events, log->dropped = pt.dropped;
        if (r->o.metrics[0]) rc = metrics_add(&r->mcsv, st, &r->t.kind, err);
    }
    return rc;
}

/* A cuda run with CUPTI on: the real GPU's busy share and copy rates over
 * the epoch that began at t0 (seconds on prof_now_ns's clock). */
static void measure_gpu(train_run_t *r, double t0)
{
    const gs_cuda_t *cu = r->t.cfg.device == DEVICE_CUDA ? gs_cuda_loaded() : NULL;
    if (!r->profiling || !cu) return;
    cu->metrics_between(t0, (double)prof_now_ns() * 1e-9, &r->log.gpu);
    r->log.gpu_measured = 1;
}

/* Epochs until --epochs, a stop signal (rank 0's decides for every rank)
 * or a failure; *stopped says whether a signal ended it. */
static int train_loop(train_run_t *r, int *stopped, gs_err_t *err)
{
    int todo = r->o.cfg.epochs > r->t.epoch ? r->o.cfg.epochs - (int)r->t.epoch : 0, rc = GS_OK;
    r->log = (run_log_t){.loss = calloc((size_t)todo + 1, sizeof(double)), .ms = calloc((size_t)todo + 1, sizeof(double)),
                         .eval_ms = calloc((size_t)todo + 1, sizeof(double)), .flops = calloc((size_t)todo + 1, sizeof(double)),
                         .test_acc = calloc((size_t)todo + 1, sizeof(double))};
    if (!r->log.loss || !r->log.ms || !r->log.eval_ms || !r->log.flops || !r->log.test_acc) return gs_fail(err, GS_EFAIL, "out of memory");
    const trainer_t *t = &r->t;
    if (!r->o.quiet && !r->o.json)
        printf("gnnscope: %s on %s: %lld nodes, %lld edges, %lld features, %lld classes, %d threads\n", t->cfg.model,
               t->data.ds.name, (long long)t->data.g.n, (long long)t->data.g.m, (long long)t->data.ds.f, (long long)t->data.ds.c,
               t->cfg.threads);
    *stopped = 0;
    for (int i = 0; i < todo && !rc && !*stopped; i++) {
        epoch_stats_t st;
        double t0 = (double)prof_now_ns() * 1e-9;
        rc = trainer_next(&r->t, r->rank == 0 && stop_signal(), stopped, &st, err);
        if (!rc && !*stopped) measure_gpu(r, t0), rc = after_epoch(r, &st, err);
    }
    if (!rc && t->kind.driver == DRIVER_DIST) rc = trainer_dist_gather(&r->t, err); /* every rank: the job's account for rank 0's summary */
    return rc;
}

/* A distributed run's last epoch in one line: ranks, dependency mode,
 * traffic between the ranks, and the time spent exchanging and waiting. */
static void print_dist_summary(const train_run_t *r)
{
    char dep[64];
    const epoch_stats_t *st = &r->log.last;
    knob_text(knob_find("dep"), &r->t.cfg, NULL, dep, sizeof dep);
    const char *where = r->t.cfg.clock == CLOCK_WALL ? "this machine's CPU (wall clock)"
                        : r->t.cfg.rank_gpu             ? "its node's GPU, messages staged over PCIe"
                                                        : "its node's host CPU (--rank-compute host)";
    printf("distributed: %d ranks on %s, --dep %s, each rank computing on %s (%s); last epoch: %.2f MB "
           "between ranks in %.0f messages, exchanges %.3f ms, waiting %.3f ms, all-reduce %.3f ms (emulated, mean over the ranks)\n",
           dist_comm_size(r->comm), r->t.cfg.network, dep, where, r->t.cfg.topology, st->net_bytes / 1e6, st->net_msgs,
           st->comm_ms, st->stall_ms, st->allreduce_ms);
}

/* The trace complete on disk, then the result: the JSON summary or the best epoch's line. */
static int report(train_run_t *r, int rc, int stopped, gs_err_t *err)
{
    if (r->prof) {
        sink_detach_gpu();
        gs_err_t terr;
        char what[8600];
        int trc = prof_trace_stop_report(r->prof, what, sizeof what, &terr);
        if (trc > 0 && !rc) rc = terr.code, *err = terr;
        if (trc == 0 && strcmp(what, r->o.trace) != 0) fprintf(stderr, "gnnscope: trace: %s\n", what); /* rotated */
    }
    if (rc) fail(r->comm, r->rank, err);
    else if (stopped && r->rank == 0)
        fprintf(stderr, "gnnscope: interrupted after epoch %lld%s\n", (long long)r->t.epoch, r->o.checkpoint[0] ? " (checkpoint saved)" : "");
    if (!rc && r->o.json) run_json_print(stdout, &r->t, &r->log);
    else if (!rc && r->rank == 0 && r->log.n) { /* --quiet too: the result is what a quiet run is for */
        if (r->t.cfg.simulate)
            printf("simulated %d epochs: the last %.3f ms on %s's clock; no losses or accuracies (nothing was computed)\n",
                   r->log.n, r->log.last.epoch_ms, r->t.cfg.topology);
        else
            printf("best val %.4f at epoch %lld (test %.4f); final test %.4f\n", r->t.best_val, (long long)r->t.best_epoch,
                   r->t.test_at_best, r->log.last.test_acc);
        if (r->comm) print_dist_summary(r);
    }
    return rc;
}

/* --dist: this process is one rank of an MPI job. */
static int open_rank(train_run_t *r, gs_err_t *err)
{
    int size;
    if (dist_comm_open(&r->comm, &r->rank, &size, err)) return err->code;
    r->o.cfg.dist = 1;
    if (r->rank != 0) r->o.json = 0, r->o.quiet = 1, r->o.checkpoint[0] = r->o.trace[0] = r->o.metrics[0] = '\0', r->o.profile = 0;
    return GS_OK;
}

int cmd_train(int argc, char **argv)
{
    static train_run_t r;
    gs_err_t err = {0};
    int help = 0;
    memset(&r, 0, sizeof r);
    if (train_opts_parse(OPTS_TRAIN, argc, argv, &r.o, &help, &err)) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    if (help) {
        train_opts_help(OPTS_TRAIN, "usage: gnnscope train [flags]\n\nTrains a GNN full-batch and reports loss and accuracy.");
        return 0;
    }
    if (r.o.ranks && !r.o.dist) return launch_ranks("train", argc, argv, &r.o);
    if (r.o.dist && open_rank(&r, &err)) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return err.code == GS_EINPUT ? 2 : 1;
    }
    int stopped = 0, rc = open_run(&r, &err);
    if (!rc) {
        r.t.cfg.threads = r.o.cfg.threads > 0 ? r.o.cfg.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
        stop_signal_install();
        rc = train_loop(&r, &stopped, &err);
    }
    rc = report(&r, rc, stopped, &err);
    free(r.log.loss), free(r.log.ms), free(r.log.eval_ms), free(r.log.flops), free(r.log.test_acc);
    metrics_free(&r.mcsv);
    trainer_close(&r.t);
    if (r.prof) prof_shutdown(r.prof);
    if (r.comm) dist_comm_close(r.comm);
    if (rc) return rc == GS_EINPUT ? 2 : 1;
    return stop_signal_exit_code();
}
