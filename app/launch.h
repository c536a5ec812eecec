/* launch.h - starting a distributed job under mpirun (--ranks N). */
#ifndef GS_LAUNCH_H
#define GS_LAUNCH_H

#include "train_opts.h"

/* Runs `gnnscope CMD --dist ARGV...` as o->ranks MPI ranks and waits;
 * returns the exit code to use (128 + a signal that stopped it). */
int launch_ranks(const char *cmd, int argc, char **argv, const train_opts_t *o);

#endif
