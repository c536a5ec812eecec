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

double gs_mem_in_use(void) { return status_bytes("VmRSS"); }
double gs_mem_high_water(void) { return status_bytes("VmHWM"); }

/* Headroom under a resource limit, given the use it counts. */
static double under_limit(int resource, double used)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 1e300;
    return (double)rl.rlim_cur - used;
}

int gs_mem_limit_env(uint64_t *limit, gs_err_t *err)
{
    const char *env = getenv("GNNSCOPE_MEM_LIMIT");
    *limit = 0;
    if (!env || !*env) return GS_OK;
    if (gs_parse_bytes(env, limit) != 0 || *limit == 0)
        return gs_fail(err, GS_EINPUT, "GNNSCOPE_MEM_LIMIT: '%.64s' is not a size (bytes, or a number with K, M, G or T, e.g. 2G)", env);
    return GS_OK;
}

double gs_mem_headroom(const char **which)
{
    double best = 0.9 * (double)gs_phys_mem() - status_bytes("VmRSS");
    const char *why = "90% of physical memory";
    uint64_t cap;
    if (gs_mem_limit_env(&cap, NULL) == GS_OK && cap && (double)cap - status_bytes("VmRSS") < best)
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
    if (!(bytes <= room)) {
        char need[32], left[32], used[32];
        gs_format_bytes(bytes, need, sizeof need), gs_format_bytes(room, left, sizeof left);
        gs_format_bytes(status_bytes("VmRSS"), used, sizeof used);
        return gs_fail(err, GS_EINPUT, "%s would need %s, more than the %s gnnscope may still use (%s; %s in use)", what, need,
                       left, which, used);
    }
    return GS_OK;
}
