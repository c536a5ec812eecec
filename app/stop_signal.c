/* stop_signal.c - see stop_signal.h. */
#include "stop_signal.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received;

static void on_signal(int sig)
{
    if (!received) received = sig;
}

void stop_signal_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
}

int stop_signal(void) { return received; }

void stop_signal_raise(int sig) { on_signal(sig); }

int stop_signal_exit_code(void) { return received && received != SIGUSR1 ? 128 + received : 0; }
