/* launch.h - starting a distributed job under mpirun (--ranks N). */
#ifndef GS_LAUNCH_H
#define GS_LAUNCH_H

#include <pthread.h>
#include <sys/types.h>

#include "train_opts.h"

#define LAUNCH_HELD_LINES 16

typedef struct {
    pid_t pid;           /* mpirun */
    int hold, reaped, status;
    pthread_t relay;
    int relaying;
    char note[512];      /* mpirun's account of a failure nobody explained */
    char held[LAUNCH_HELD_LINES][256]; /* hold: the job's gnnscope lines, shown by launch_wait */
    int nheld;
    int said_error;      /* a gnnscope error line came from the job */
} launch_t;

/* Runs `gnnscope CMD --dist ARGV... [--serve SERVE]` as o->ranks MPI ranks
 * and waits; returns the exit code to use (128 + a signal that stopped it). */
int launch_ranks(const char *cmd, int argc, char **argv, const train_opts_t *o);

/* Starts the job without waiting, for a workbench that attaches to rank 0
 * at serve (a socket path): the job's output is held until launch_wait,
 * --script stays with the caller (the workbench runs it), and the caller
 * handles signals. Prints the error and returns an exit code on failure. */
int launch_start_held(launch_t *job, const char *cmd, int argc, char **argv, const train_opts_t *o, const char *serve);
/* Whether the job is still running. */
int launch_running(launch_t *job);
/* Waits up to grace_s seconds (-1: for ever, unless a second signal or a
 * SIGTERM comes) for the job to end, then asks mpirun to stop it
 * (SIGTERM) and, 5 s later, kills every process left below this one;
 * prints the held lines and returns the exit code. */
int launch_wait(launch_t *job, double grace_s);

#endif
