/* stop_signal.h - how gnnscope stops on a signal: SIGINT (Ctrl-C),
 * SIGTERM and SIGHUP (the terminal or ssh session closed) all ask the run
 * to stop after the current epoch, flushing traces and checkpoints, and
 * the process then exits 128 + the signal's number (130, 143, 129), as a
 * shell reports a process killed by it. SIGUSR1 is a launcher's request
 * (launch.h: mpirun forwards it to the ranks): it stops the run the same
 * way and exits 0, the launcher reporting the signal it was sent. */
#ifndef GS_STOP_SIGNAL_H
#define GS_STOP_SIGNAL_H

/* Installs the handlers (without SA_RESTART, so blocking reads return). */
void stop_signal_install(void);
/* The signal received, or 0. */
int stop_signal(void);
/* 128 + the signal received, or 0. */
int stop_signal_exit_code(void);
/* Records sig as if it had arrived (a terminal found hung up without a
 * SIGHUP is one). */
void stop_signal_raise(int sig);

#endif
