/* cuda_plugin.c - finds and loads libgnnscope_cuda.so (cuda_plugin.h).
 * Looked for, in order: $GNNSCOPE_CUDA_PLUGIN, next to the executable
 * (and in its build/ or parent folder, for the source tree and the test
 * binaries), ../lib/gnnscope, then the build folder named at compile time.
 * The first file that exists is the one loaded. Loading happens once. */
#include "cuda_plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef GS_PLUGINDIR
#define GS_PLUGINDIR "build"
#endif
#define PLUGIN_FILE "libgnnscope_cuda.so"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const gs_cuda_t *plugin;
static gs_err_t load_err;

static int find_plugin(char *out, size_t n)
{
    char exe[PATH_MAX] = "", cand[6][PATH_MAX + 64];
    int k = 0;
    const char *env = getenv("GNNSCOPE_CUDA_PLUGIN");
    if (env && *env) snprintf(cand[k++], sizeof cand[0], "%s", env);
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        snprintf(cand[k++], sizeof cand[0], "%s/%s", exe, PLUGIN_FILE);
        snprintf(cand[k++], sizeof cand[0], "%s/build/%s", exe, PLUGIN_FILE);
        snprintf(cand[k++], sizeof cand[0], "%s/../%s", exe, PLUGIN_FILE);
        snprintf(cand[k++], sizeof cand[0], "%s/../lib/gnnscope/%s", exe, PLUGIN_FILE);
    }
    snprintf(cand[k++], sizeof cand[0], "%s/%s", GS_PLUGINDIR, PLUGIN_FILE);
    for (int i = 0; i < k; i++)
        if (access(cand[i], R_OK) == 0) {
            snprintf(out, n, "%s", cand[i]);
            return 1;
        }
    return 0;
}

static void load_once(void)
{
    char path[PATH_MAX + 64], why[256] = "";
    if (!find_plugin(path, sizeof path)) {
        gs_fail(&load_err, GS_EINPUT, "no usable GPU: the CUDA backend (%s) was not built (nvcc was missing, or NO_CUDA=1)", PLUGIN_FILE);
        return;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        gs_fail(&load_err, GS_EINPUT, "no CUDA backend: cannot load %s: %s", path, dlerror());
        return;
    }
    const gs_cuda_t *(*entry)(void) = (const gs_cuda_t *(*)(void))dlsym(h, GS_CUDA_ENTRY);
    const gs_cuda_t *p = entry ? entry() : NULL;
    if (!p || p->abi != gs_cuda_abi()) {
        gs_fail(&load_err, GS_EINPUT, "no CUDA backend: %s was built from other sources (interface %016llx, this binary "
                                      "%016llx); rebuild it with make",
                path, p ? (unsigned long long)p->abi : 0ull, (unsigned long long)gs_cuda_abi());
        dlclose(h);
        return;
    }
    if (p->probe(why, sizeof why) != 0) {
        gs_fail(&load_err, GS_EINPUT, "no usable GPU: %s", why);
        return; /* keep the library loaded: CUDA's runtime dislikes being unloaded */
    }
    plugin = p;
}

const gs_cuda_t *gs_cuda_get(gs_err_t *err)
{
    pthread_once(&once, load_once);
    if (!plugin && err) *err = load_err;
    return plugin;
}

const gs_cuda_t *gs_cuda_loaded(void) { return plugin; }
