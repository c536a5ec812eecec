/* launch.c - `--ranks N`: starts the job under mpirun and stands between
 * it and the user. The ranks run this binary with --dist and the user's
 * flags (--threads defaults to the cores shared out among the ranks);
 * stdin never reaches them. mpirun gets the options a single machine
 * needs (--oversubscribe, --bind-to none; as root, Open MPI's permission
 * variables) and its own process group, so Ctrl-C, SIGTERM and SIGHUP
 * reach this process only: it asks the job to stop after the current
 * epoch (SIGUSR1, which mpirun forwards to the ranks; rank 0 decides for
 * all) and exits 128 + the signal. A second signal, or a SIGTERM, ends
 * the job now: SIGTERM to mpirun, then, TERM_GRACE_S later, SIGKILL to
 * every process below this one (proc_tree.h: a stopped rank answers
 * nothing else), so a hung job never outlives its launcher by more than
 * that; ranks left when mpirun ends are killed too. Rank 0's stdout passes through (held,
 * when a workbench owns the terminal). From stderr, gnnscope's own lines
 * are shown (the first error only, since every rank may report the same
 * one) and Open MPI's banners are kept back; a job that failed without
 * saying why gets one line from them (which rank died, of which signal).
 * Limits: one job at a time; the hostfile is passed as is. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/mono_clock.h"
#include "engine/dist/dist_comm.h"
#include "launch.h"
#include "proc_tree.h"

#define TERM_GRACE_S 5.0 /* after SIGTERM, how long mpirun has before everything below us is killed */

static volatile sig_atomic_t forwarded, insisted;
static volatile pid_t forward_to;

static void on_signal(int sig)
{
    if (forwarded || sig == SIGTERM) insisted = 1; /* a second signal, or a SIGTERM: the job ends now */
    if (!forwarded) forwarded = sig;
    if (forward_to > 0) kill(forward_to, SIGUSR1); /* mpirun forwards it: rank 0 stops the run after this epoch */
}

/* mpirun on PATH (or $GNNSCOPE_MPIRUN). */
static int find_mpirun(char *out, size_t n)
{
    const char *env = getenv("GNNSCOPE_MPIRUN");
    if (env && *env) {
        snprintf(out, n, "%s", env);
        return access(out, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    char copy[8192];
    snprintf(copy, sizeof copy, "%s", path ? path : "/usr/bin:/bin");
    for (char *save, *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(out, n, "%s/mpirun", dir);
        if (access(out, X_OK) == 0) return 1;
    }
    return 0;
}

/* The line mpirun gives for a dead rank, reduced to one line of ours. */
static int explain(const char *line, char *out, size_t n)
{
    const char *p = strstr(line, "process rank ");
    if (!p) return 0;
    int rank = atoi(p + 13), sig = 0;
    const char *s = strstr(line, "signal ");
    if (s) sig = atoi(s + 7);
    if (sig) snprintf(out, n, "gnnscope: error: rank %d died (signal %d, %s); mpirun stopped the job", rank, sig, strsignal(sig));
    else snprintf(out, n, "gnnscope: error: rank %d ended with an error; mpirun stopped the job", rank);
    return 1;
}

/* Copies the job's stderr: gnnscope's lines (one error; held when a
 * workbench owns the terminal), and a one-line account of a failure nobody
 * explained. Ends when the pipe closes. */
typedef struct {
    launch_t *job;
    FILE *in;
} relay_arg_t;

static void *relay(void *arg)
{
    launch_t *job = ((relay_arg_t *)arg)->job;
    FILE *in = ((relay_arg_t *)arg)->in;
    free(arg);
    char line[4096], shown[16][256];
    int nshown = 0, said_error = 0;
    while (fgets(line, sizeof line, in)) {
        if (strncmp(line, "gnnscope:", 9) != 0) {
            if (!job->note[0] || strstr(line, "process rank ")) explain(line, job->note, sizeof job->note);
            continue;
        }
        int is_error = strstr(line, "error:") != NULL, dup = 0;
        for (int i = 0; i < nshown; i++) dup |= strncmp(shown[i], line, sizeof shown[i] - 1) == 0;
        if ((is_error && said_error) || dup) continue;
        said_error |= is_error;
        if (nshown < 16) snprintf(shown[nshown++], sizeof shown[0], "%s", line);
        if (job->hold) {
            if (job->nheld < LAUNCH_HELD_LINES) snprintf(job->held[job->nheld++], sizeof job->held[0], "%s", line);
        } else {
            fputs(line, stderr);
            fflush(stderr);
        }
    }
    if (said_error) job->note[0] = '\0';
    job->said_error = said_error;
    fclose(in);
    return NULL;
}

/* The ranks' command line: mpirun's options, this binary, cmd --dist, the
 * user's flags without the launcher's own (and without --script when the
 * caller runs it), then the given extras. NULL when out of memory. */
static char **rank_args(const char *mpirun, const char *self, const char *cmd, int argc, char **argv, const train_opts_t *o,
                        int keep_script, const char *serve)
{
    static char np[16], threads[16];
    snprintf(np, sizeof np, "%d", o->ranks);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(threads, sizeof threads, "%ld", cores / o->ranks > 1 ? cores / o->ranks : 1);
    char **args = calloc((size_t)argc + 24, sizeof *args);
    if (!args) return NULL;
    int k = 0, threads_given = 0;
    args[k++] = (char *)mpirun, args[k++] = "-np", args[k++] = np, args[k++] = "--oversubscribe", args[k++] = "--bind-to", args[k++] = "none";
    if (o->hostfile[0]) args[k++] = "--hostfile", args[k++] = (char *)o->hostfile;
    args[k++] = (char *)self, args[k++] = (char *)cmd, args[k++] = "--dist";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *own[] = {"--ranks", "--hostfile", keep_script ? NULL : "--script"};
        int drop = 0;
        for (int j = 0; j < 3 && !drop; j++) {
            size_t n = own[j] ? strlen(own[j]) : 0;
            if (!own[j] || strncmp(a, own[j], n) != 0) continue;
            if (a[n] == '\0') drop = 2;      /* --flag VALUE */
            else if (a[n] == '=') drop = 1; /* --flag=VALUE */
        }
        if (drop) {
            i += drop - 1;
            continue;
        }
        threads_given |= !strcmp(a, "--threads") || !strncmp(a, "--threads=", 10);
        args[k++] = argv[i];
    }
    if (!threads_given) args[k++] = "--threads", args[k++] = threads;
    if (serve) args[k++] = "--serve", args[k++] = (char *)serve;
    args[k] = NULL;
    return args;
}

static int start(launch_t *job, const char *cmd, int argc, char **argv, const train_opts_t *o, int hold, const char *serve)
{
    static char mpirun[PATH_MAX + 16], self[PATH_MAX];
    memset(job, 0, sizeof *job);
    job->hold = hold;
    if (!dist_comm_available()) {
        fprintf(stderr, "gnnscope: error: --ranks: this build has no MPI (install libopenmpi-dev and openmpi-bin, then rebuild)\n");
        return 2;
    }
    if (!find_mpirun(mpirun, sizeof mpirun)) {
        fprintf(stderr, "gnnscope: error: --ranks: mpirun not found on PATH (install openmpi-bin)\n");
        return 2;
    }
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        fprintf(stderr, "gnnscope: error: --ranks: cannot find this program's path\n");
        return 1;
    }
    self[len] = '\0';
    char **args = rank_args(mpirun, self, cmd, argc, argv, o, !hold, serve);
    if (!args) return 1;
    if (geteuid() == 0) setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1), setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    int err_pipe[2];
    if (pipe(err_pipe) != 0) {
        free(args);
        return 1;
    }
    fflush(stdout), fflush(stderr);
    proc_tree_adopt(); /* ranks that outlive mpirun stay ours to end */
    job->pid = fork();
    if (job->pid == 0) {
        setpgid(0, 0); /* the terminal's signals reach the launcher, which forwards a stop request */
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, STDIN_FILENO), close(null); /* the ranks never read the user's keys */
        dup2(err_pipe[1], STDERR_FILENO);
        if (hold) dup2(err_pipe[1], STDOUT_FILENO); /* the workbench owns the terminal */
        close(err_pipe[0]), close(err_pipe[1]);
        execv(mpirun, args);
        fprintf(stderr, "gnnscope: error: --ranks: cannot run %s (%s)\n", mpirun, strerror(errno));
        _exit(2);
    }
    free(args);
    close(err_pipe[1]);
    relay_arg_t *ra = malloc(sizeof *ra);
    FILE *in = fdopen(err_pipe[0], "r");
    if (ra) ra->job = job, ra->in = in; /* before the thread starts: it reads them at once */
    if (job->pid < 0 || !ra || !in || pthread_create(&job->relay, NULL, relay, ra) != 0) {
        int e = errno;
        free(ra);
        if (in) fclose(in);
        else close(err_pipe[0]);
        if (job->pid > 0) kill(job->pid, SIGTERM), waitpid(job->pid, NULL, 0);
        fprintf(stderr, "gnnscope: error: --ranks: cannot start mpirun (%s)\n", strerror(e));
        return 1;
    }
    job->relaying = 1;
    return 0;
}

int launch_running(launch_t *job)
{
    if (job->reaped) return 0;
    pid_t r = waitpid(job->pid, &job->status, WNOHANG);
    if (r == job->pid) job->reaped = 1;
    return !job->reaped;
}

/* Waits for mpirun, ending the job when told to (a second signal, a
 * SIGTERM) or when grace_s (>= 0) has passed: SIGTERM to mpirun, which
 * takes its ranks down, then, TERM_GRACE_S later, SIGKILL to every process
 * below this one (a stopped or hung rank answers nothing else). */
static void wait_ending(launch_t *job, double grace_s)
{
    double t0 = gs_mono_s(), term_at = -1;
    while (launch_running(job)) {
        double now = gs_mono_s() - t0;
        if (term_at < 0 && (insisted || (grace_s >= 0 && now >= grace_s))) {
            kill(job->pid, SIGTERM);
            term_at = now;
        }
        if (term_at >= 0 && now - term_at >= TERM_GRACE_S) proc_tree_signal(SIGKILL);
        struct timespec nap = {0, 50000000};
        nanosleep(&nap, NULL);
    }
    proc_tree_signal(SIGKILL); /* ranks that outlived mpirun (adopted: proc_tree_adopt) */
    proc_tree_reap();
}

int launch_wait(launch_t *job, double grace_s)
{
    wait_ending(job, grace_s);
    if (job->relaying) pthread_join(job->relay, NULL);
    job->relaying = 0;
    for (int i = 0; i < job->nheld; i++) fputs(job->held[i], stderr);
    int rc = WIFEXITED(job->status) ? WEXITSTATUS(job->status) : 128 + WTERMSIG(job->status);
    if (rc && job->note[0]) fprintf(stderr, "%s\n", job->note);
    else if (rc && !forwarded && rc != 2 && !job->said_error) fprintf(stderr, "gnnscope: error: the MPI job failed (mpirun exit %d)\n", rc);
    return forwarded ? 128 + forwarded : rc;
}

int launch_start_held(launch_t *job, const char *cmd, int argc, char **argv, const train_opts_t *o, const char *serve)
{
    return start(job, cmd, argc, argv, o, 1, serve);
}

int launch_ranks(const char *cmd, int argc, char **argv, const train_opts_t *o)
{
    static launch_t job;
    int rc = start(&job, cmd, argc, argv, o, 0, NULL);
    if (rc) return rc;
    forward_to = job.pid;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL), sigaction(SIGTERM, &sa, NULL), sigaction(SIGHUP, &sa, NULL);
    return launch_wait(&job, -1);
}
