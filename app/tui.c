/* tui.c - `gnnscope [tui]` and `gnnscope attach`: opens the workbench's
 * run and puts the workbench (workbench.h) on it. The run is a session in
 * this process, or, with --ranks N on a terminal, a job of N ranks that
 * this process starts (launch.h) and attaches to: rank 0 serves its
 * session on a Unix socket (remote.h) and the others follow it. With
 * --serve PATH a run serves its session instead of drawing it, so that
 * `gnnscope attach PATH` can drive it from another terminal; attach's q
 * leaves the run going (`:quit` ends it), the launcher's ends it. */
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/dist/dist_comm.h"
#include "cli.h"
#include "launch.h"
#include "remote.h"
#include "session.h"
#include "stop_signal.h"
#include "workbench.h"

/* A rank other than 0 in a distributed workbench: trains in step with rank
 * 0's session, which decides each epoch's knobs and when to stop. */
static int follow(const train_cfg_t *cfg, dist_comm_t *comm)
{
    static trainer_t t;
    gs_err_t err;
    stop_signal_install(); /* a stop request is rank 0's to decide: here it only ends a failed run */
    train_env_t env = {.comm = comm};
    int rc = trainer_open(&t, cfg, &env, &err);
    cli_print_warnings(&t.warnings);
    for (int stopped = 0; !rc && !stopped;) {
        epoch_stats_t st;
        rc = trainer_next(&t, 0, &stopped, &st, &err);
    }
    if (rc) {
        fprintf(stderr, "gnnscope: error: rank %d: %s\n", dist_comm_rank(comm), err.msg);
        dist_comm_abort(comm, rc == GS_EINPUT ? 2 : 1);
    }
    trainer_close(&t);
    dist_comm_close(comm);
    return rc ? 1 : 0;
}

/* Rank 0 (or any run) with --serve: serves the session until a client
 * quits it, a stop signal, or the run's end once its client has left (or
 * none came within a minute). */
static int serve_session(session_t *s, const char *path)
{
    remote_server_t *srv;
    gs_err_t err;
    if (remote_serve(&srv, s, path, &err)) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    if (isatty(STDERR_FILENO)) fprintf(stderr, "gnnscope: serving the run on %s (gnnscope attach %s)\n", path, path);
    session_snapshot_t *snap = malloc(sizeof *snap);
    double ended_for = 0;
    while (snap && !stop_signal() && !remote_quit_requested(srv)) {
        session_snapshot(s, snap);
        int served, connected;
        remote_clients(srv, &served, &connected);
        if (snap->finished || snap->failed) {
            if (!connected && (served || ended_for > 60)) break;
            ended_for += 0.05;
        }
        struct timespec nap = {0, 50000000};
        nanosleep(&nap, NULL);
    }
    int failed = snap && snap->failed;
    if (failed) fprintf(stderr, "gnnscope: error: %s\n", snap->error);
    free(snap);
    remote_stop(srv);
    return failed ? 1 : stop_signal_exit_code();
}

static int job_running(void *job) { return launch_running(job); }

/* Whether argv names flag (as "--flag VALUE" or "--flag=VALUE"). */
static int flag_given(int argc, char **argv, const char *flag)
{
    size_t n = strlen(flag);
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], flag, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '=')) return 1;
    return 0;
}

/* Puts the workbench on a run at path: q detaches from it (or, with
 * quit_on_leave, ends it). */
static int attach(const char *path, double wait_s, launch_t *job, int quit_on_leave)
{
    remote_client_t *c;
    gs_err_t err;
    if (remote_connect(&c, path, wait_s, job ? job_running : NULL, job, &err)) {
        if (!job) fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        fprintf(stderr, "gnnscope: error: attach: the workbench needs a terminal\n");
        remote_close(c);
        return 2;
    }
    session_if_t ifc = remote_if(c);
    int rc = workbench_screen(&ifc);
    if (quit_on_leave) {
        char reply[256];
        ifc.command(ifc.self, "quit", reply, sizeof reply);
    }
    if (remote_broken(c)) rc = 2; /* its reason is the one line printed */
    remote_close(c);
    return rc;
}

int cmd_attach(int argc, char **argv)
{
    if (argc == 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
        printf("usage: gnnscope attach PATH\n\n"
               "Opens the workbench on a run started with --serve PATH (or on rank 0 of a\n"
               "distributed job). q leaves the run going; :quit ends it.\n");
        return 0;
    }
    if (argc != 1 || argv[0][0] == '-') {
        fprintf(stderr, "gnnscope: error: attach: usage: gnnscope attach PATH (the socket of a run started with --serve PATH)\n");
        return 2;
    }
    stop_signal_install();
    return attach(argv[0], 0, NULL, 0);
}

/* --ranks N on a terminal: starts the job with rank 0 serving, and puts
 * the workbench (and the script, if any) on it; q ends the job. */
static int launch_workbench(int argc, char **argv, const train_opts_t *o)
{
    char path[108];
    snprintf(path, sizeof path, "%s/gnnscope-%d-%d.sock", getenv("TMPDIR") && strlen(getenv("TMPDIR")) < 64 ? getenv("TMPDIR") : "/tmp",
             (int)getuid(), (int)getpid());
    static launch_t job;
    gs_err_t err;
    if (o->script[0] && workbench_load_script(o->script, &err)) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    int rc = launch_start_held(&job, "tui", argc, argv, o, path);
    if (rc) return rc;
    stop_signal_install();
    fprintf(stderr, "gnnscope: starting %d ranks...\n", o->ranks);
    int shown = attach(path, 600, &job, 1);
    workbench_free_script();
    rc = launch_wait(&job, 30);
    return rc ? rc : shown == 2 ? 1 : shown;
}

/* The workbench's own flags: --json refused, --pace applied. */
static int workbench_flags(const train_opts_t *o, gs_err_t *err)
{
    if (o->json) /* accepted by the shared flag table, but the workbench has no summary to print */
        return gs_fail(err, GS_EINPUT, "--json: only gnnscope train prints a JSON summary; the workbench writes one CSV row "
                                       "per epoch with --metrics FILE.csv");
    return o->pace[0] ? workbench_set_pace(o->pace, err) : GS_OK;
}

int cmd_tui(int argc, char **argv) { return tui_run(OPTS_TUI, argc, argv); }

int tui_run(opts_cmd_t kind, int argc, char **argv)
{
    train_opts_t o;
    gs_err_t err = {0};
    int help = 0;
    if (train_opts_parse(kind, argc, argv, &o, &help, &err) || (!help && workbench_flags(&o, &err))) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    if (help) {
        train_opts_help(kind, kind == OPTS_DEMO ? "usage: gnnscope demo NAME [train flags] [--max-epochs N] [--pace key|auto[=S]]\n\n"
                                                  "Runs a classroom script in the workbench (headless without a "
                                                  "terminal), one step per space. A demo's own flags come first; yours win."
                                                : "usage: gnnscope [tui] [train flags] [--max-epochs N] [--script FILE]\n\n"
                                                  "Opens the workbench. Without flags: Cora, GCN, streamed through 2 "
                                                  "emulated devices in a setting where each knob key shows its effect (the "
                                                  "defaults below); with another --dataset or a --topology, --device-mem, "
                                                  "--chunks, --dkp, --order and --selective start at train's defaults.");
        return 0;
    }
    int tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
    if (o.ranks && !o.dist) /* a demo's flags, --script included, are in argv */
        return tty && !o.serve[0] ? launch_workbench(argc, argv, &o) : launch_ranks("tui", argc, argv, &o);
    int rank = 0;
    dist_comm_t *comm = NULL;
    if (o.dist) { /* one rank of a job: rank 0 runs the workbench's session, the others follow it */
        int size;
        if (dist_comm_open(&comm, &rank, &size, &err)) {
            fprintf(stderr, "gnnscope: error: %s\n", err.msg);
            return err.code == GS_EINPUT ? 2 : 1;
        }
        o.cfg.dist = 1;
        if (rank != 0) return follow(&o.cfg, comm);
    }
    if (!tty && !o.script[0] && !o.serve[0]) {
        fprintf(stderr, "gnnscope: error: the workbench needs a terminal; for headless runs use 'gnnscope train' "
                        "(or --serve PATH, then gnnscope attach PATH)\n");
        if (comm) dist_comm_abort(comm, 2);
        return 2;
    }
    if (o.serve[0] && o.script[0]) {
        fprintf(stderr, "gnnscope: error: --serve: a served run takes its commands from the workbench that attaches; "
                        "give --script to that one\n");
        if (comm) dist_comm_abort(comm, 2);
        return 2;
    }
    if ((o.script[0] && workbench_load_script(o.script, &err)) || (o.serve[0] && remote_serve_check(o.serve, &err))) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        if (comm) dist_comm_abort(comm, 2);
        return 2;
    }
    static session_t s;
    int lockstep = !tty && !o.serve[0] && o.script[0]; /* a headless script drives the epochs (workbench_headless) */
    int epochs_given = flag_given(argc, argv, "--epochs");
    if (epochs_given && lockstep && !o.max_epochs) o.max_epochs = o.cfg.epochs; /* headless: --epochs ends the run */
    if (session_open(&s, &o.cfg, comm, o.max_epochs, o.checkpoint, o.metrics, lockstep, &err)) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        workbench_free_script();
        if (comm) dist_comm_abort(comm, err.code == GS_EINPUT ? 2 : 1); /* the other ranks wait for this one */
        return err.code == GS_EINPUT ? 2 : 1;
    }
    session_own_cora_setting(&s, o.cora_owned);
    if (epochs_given && !lockstep) session_pause_at(&s, o.cfg.epochs); /* in a terminal: it pauses there */
    prof_set_trace_max(&s.prof, o.trace_max); /* --trace, and the console's trace start */
    if (o.trace[0] && prof_trace_start(&s.prof, o.trace, &err)) {
        session_close(&s);
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    stop_signal_install();
    session_if_t ifc = session_local(&s);
    int rc = o.serve[0] ? serve_session(&s, o.serve) : tty ? workbench_screen(&ifc) : workbench_headless(&ifc);
    session_close(&s); /* finishes the current epoch, flushes the trace; on a rank, stops the others */
    workbench_free_script();
    if (comm) dist_comm_close(comm);
    return rc;
}
