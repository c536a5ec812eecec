/* blas_idle.c - see blas_idle.h. */
#include "blas_idle.h"

#include <dlfcn.h>
#include <stdlib.h>

#define SPIN_LOG2_CYCLES "20" /* 2^20 cycles: ~0.35 ms at 3 GHz */

void gs_blas_idle_briefly(void)
{
    if (getenv("OPENBLAS_THREAD_TIMEOUT")) return; /* the user's choice */
    void (*read_env)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "openblas_read_env");
    int (*restart)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "blas_thread_shutdown_"); /* the next product starts them */
    if (!read_env || !restart) return;
    if (setenv("OPENBLAS_THREAD_TIMEOUT", SPIN_LOG2_CYCLES, 0) != 0) return;
    read_env();
    restart();
}
