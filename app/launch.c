/* launch.c - `--ranks N`: starts the job under mpirun and stands between
 * it and the user. The ranks run this binary with --dist and the user's
 * flags (--threads defaults to the cores shared out among the ranks).
 * mpirun gets the options a single machine needs (--oversubscribe,
 * --bind-to none; as root, Open MPI's permission variables) and its own
 * process group, so Ctrl-C, SIGTERM and SIGHUP reach this process only:
 * it asks the job to stop after the current epoch (SIGUSR1, which mpirun
 * forwards to the ranks; rank 0 decides for all) and exits 128 + the
 * signal. Rank 0's stdout passes through. From stderr, gnnscope's own
 * lines are shown (the first error only, since every rank may report the
 * same one) and Open MPI's banners are kept back; a job that failed
 * without saying why gets one line from them (which rank died, of which
 * signal). Limits: one job at a time; the hostfile is passed as is. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../engine/dist/dist_comm.h"
#include "launch.h"

static volatile sig_atomic_t forwarded;
static pid_t job;

static void on_signal(int sig)
{
    if (!forwarded) forwarded = sig;
    if (job > 0) kill(job, SIGUSR1); /* mpirun forwards it: rank 0 stops the run after this epoch */
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

/* Copies the job's stderr: gnnscope's lines (one error), and a one-line
 * account of a failure nobody explained. Returns when the pipe closes. */
static void relay(FILE *in, char *mpi_note, size_t n)
{
    char line[4096], shown[16][256];
    int nshown = 0, said_error = 0;
    while (fgets(line, sizeof line, in)) {
        if (strncmp(line, "gnnscope:", 9) != 0) {
            if (!mpi_note[0] || strstr(line, "process rank ")) explain(line, mpi_note, n);
            continue;
        }
        int is_error = strstr(line, "error:") != NULL, dup = 0;
        for (int i = 0; i < nshown; i++) dup |= strncmp(shown[i], line, sizeof shown[i] - 1) == 0;
        if ((is_error && said_error) || dup) continue;
        said_error |= is_error;
        if (nshown < 16) snprintf(shown[nshown++], sizeof shown[0], "%s", line);
        fputs(line, stderr);
        fflush(stderr);
    }
    if (said_error) mpi_note[0] = '\0';
}

int launch_ranks(const char *cmd, int argc, char **argv, const train_opts_t *o)
{
    char mpirun[PATH_MAX + 16], self[PATH_MAX];
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
    char np[16], threads[16];
    snprintf(np, sizeof np, "%d", o->ranks);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(threads, sizeof threads, "%ld", cores / o->ranks > 1 ? cores / o->ranks : 1);
    char **args = calloc((size_t)argc + 24, sizeof *args);
    if (!args) return 1;
    int k = 0, threads_given = 0;
    args[k++] = mpirun, args[k++] = "-np", args[k++] = np, args[k++] = "--oversubscribe", args[k++] = "--bind-to", args[k++] = "none";
    if (o->hostfile[0]) args[k++] = "--hostfile", args[k++] = (char *)o->hostfile;
    args[k++] = self, args[k++] = (char *)cmd, args[k++] = "--dist";
    for (int i = 0; i < argc; i++) { /* the user's flags, without the launcher's own */
        const char *a = argv[i];
        int takes_value = !strcmp(a, "--ranks") || !strcmp(a, "--hostfile");
        if (takes_value || !strncmp(a, "--ranks=", 8) || !strncmp(a, "--hostfile=", 11)) {
            i += takes_value;
            continue;
        }
        threads_given |= !strcmp(a, "--threads") || !strncmp(a, "--threads=", 10);
        args[k++] = argv[i];
    }
    if (!threads_given) args[k++] = "--threads", args[k++] = threads;
    args[k] = NULL;
    if (geteuid() == 0) setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1), setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    int err_pipe[2];
    if (pipe(err_pipe) != 0) {
        free(args);
        return 1;
    }
    fflush(stdout), fflush(stderr);
    job = fork();
    if (job == 0) {
        setpgid(0, 0); /* the terminal's signals reach the launcher, which forwards a stop request */
        dup2(err_pipe[1], STDERR_FILENO);
        close(err_pipe[0]), close(err_pipe[1]);
        execv(mpirun, args);
        fprintf(stderr, "gnnscope: error: --ranks: cannot run %s (%s)\n", mpirun, strerror(errno));
        _exit(2);
    }
    free(args);
    close(err_pipe[1]);
    if (job < 0) {
        close(err_pipe[0]);
        fprintf(stderr, "gnnscope: error: --ranks: cannot start mpirun (%s)\n", strerror(errno));
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL), sigaction(SIGTERM, &sa, NULL), sigaction(SIGHUP, &sa, NULL);
    FILE *in = fdopen(err_pipe[0], "r");
    char note[512] = "";
    if (in) relay(in, note, sizeof note), fclose(in);
    int status = 0;
    while (waitpid(job, &status, 0) < 0 && errno == EINTR) {}
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (rc && note[0]) fprintf(stderr, "%s\n", note);
    else if (rc && !forwarded && rc != 2) fprintf(stderr, "gnnscope: error: the MPI job failed (mpirun exit %d)\n", rc);
    return forwarded ? 128 + forwarded : rc;
}
