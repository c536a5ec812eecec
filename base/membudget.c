/* membudget.c - see membudget.h. The process's own use comes from
 * /proc/self/status (VmRSS, VmSize, VmData); where /proc is missing the
 * use counts as zero. */
#include "membudget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "parse.h"

uint64_t gs_phys_mem(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psz <= 0) return 1ull << 34;
    return (uint64_t)pages * (uint64_t)psz;
}

/* A "Name:   N kB" line of /proc/self/status, in bytes (0 if absent). */
static double status_bytes(const char *name)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    double kb = 0;
    size_t len = strlen(name);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, name, len) == 0 && line[len] == ':') {
            sscanf(line + len + 1, "%lf", &kb);
            break;
        }
    fclose(f);
    return kb * 1024.0;
}

/* Headroom under a resource limit, given the use it counts. */
static double under_limit(int resource, double used)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 1e300;
    return (double)rl.rlim_cur - used;
}

double gs_mem_headroom(const char **which)
{
    double best = 0.9 * (double)gs_phys_mem() - status_bytes("VmRSS");
    const char *why = "90% of physical memory";
    const char *env = getenv("GNNSCOPE_MEM_LIMIT");
    uint64_t cap;
    if (env && *env && gs_parse_bytes(env, &cap) == 0 && (double)cap - status_bytes("VmRSS") < best)
        best = (double)cap - status_bytes("VmRSS"), why = "GNNSCOPE_MEM_LIMIT";
    double as = under_limit(RLIMIT_AS, status_bytes("VmSize")), data = under_limit(RLIMIT_DATA, status_bytes("VmData"));
    if (as < best) best = as, why = "the address-space limit, ulimit -v";
    if (data < best) best = data, why = "the data-segment limit, ulimit -d";
    if (which) *which = why;
    return best > 0 ? best : 0;
}

int gs_mem_check(double bytes, const char *what, gs_err_t *err)
{
    const char *which;
    double room = gs_mem_headroom(&which);
    if (!(bytes <= room))
        return gs_fail(err, GS_EINPUT, "%s would need %.2f GiB, more than the %.2f GiB gnnscope may still use (%s)", what,
                       bytes / 1073741824.0, room / 1073741824.0, which);
    return GS_OK;
}
