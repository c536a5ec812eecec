/* membudget.h - the rule for what gnnscope may allocate, checked before
 * every allocation whose size comes from outside input (a dataset, a
 * cache file, a model's shape, a chunk count):
 *
 *   the process may hold at most 90% of the machine's physical memory in
 *   resident pages (or GNNSCOPE_MEM_LIMIT bytes, e.g. 2G, if that is less),
 *   and no more than its address-space and data limits (ulimit -v,
 *   ulimit -d) allow, counting what it holds already.
 *
 * A request past the rule is refused with GS_EINPUT (exit 2) and a
 * message giving the estimate and the limit, instead of letting the
 * kernel's OOM killer end gnnscope or its neighbours. Device memory is
 * bounded separately, by --device-mem. Estimates are of the large arrays
 * only; the rule keeps 10% of physical memory for the rest. */
#ifndef GS_MEMBUDGET_H
#define GS_MEMBUDGET_H

#include <stdint.h>

#include "error.h"

/* The machine's physical memory in bytes. */
uint64_t gs_phys_mem(void);
/* GNNSCOPE_MEM_LIMIT in bytes (0 when unset or empty), or GS_EINPUT
 * naming the variable and its value when it is not a size. */
int gs_mem_limit_env(uint64_t *limit, gs_err_t *err);
/* Resident bytes the process holds now (VmRSS) and has held at most so far
 * (VmHWM); 0 where /proc is missing. */
double gs_mem_in_use(void);
double gs_mem_high_water(void);
/* Bytes the process may still allocate under the rule, and the limit
 * that binds (a short phrase such as "ulimit -v"). */
double gs_mem_headroom(const char **which);
/* GS_OK when `bytes` more fit the rule; otherwise GS_EINPUT with
 * "WHAT would need X, more than the Y gnnscope may still use (LIMIT,
 * Z in use)", sizes in the units that show them. */
int gs_mem_check(double bytes, const char *what, gs_err_t *err);

#endif
