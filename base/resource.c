/* resource.c - see resource.h. */
#include "resource.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int gs_find_resource(const char *kind, const char *name, const char *env, const char *builtin, char *out, size_t outsz)
{
    char exe[PATH_MAX] = "";
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
    }
    const char *sep = name[0] ? "/" : "", *envdir = env ? getenv(env) : NULL;
    char cand[4][PATH_MAX + 128];
    int n = 0;
    if (envdir && *envdir) snprintf(cand[n++], sizeof cand[0], "%s%s%s", envdir, sep, name);
    if (exe[0]) {
        snprintf(cand[n++], sizeof cand[0], "%s/%s%s%s", exe, kind, sep, name);
        snprintf(cand[n++], sizeof cand[0], "%s/../share/gnnscope/%s%s%s", exe, kind, sep, name);
    }
    snprintf(cand[n++], sizeof cand[0], "%s%s%s", builtin, sep, name);
    for (int i = 0; i < n; i++)
        if (is_dir(cand[i])) {
            snprintf(out, outsz, "%s", cand[i]);
            return 1;
        }
    return 0;
}
