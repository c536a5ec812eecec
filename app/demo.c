/* demo.c - `gnnscope demo` lists the shipped classroom scripts and
 * `gnnscope demo NAME [flags]` runs one in the workbench (headless when
 * stdout is not a terminal). Scripts are found next to the binary
 * (demos/), in ../share/gnnscope/demos, or in the source tree. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "tui.h"

#ifndef GS_DEMODIR
#define GS_DEMODIR "demos"
#endif

static int find_dir(char *out, size_t n)
{
    char exe[PATH_MAX] = "";
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
    }
    const char *cands[3][2] = {{exe, "/demos"}, {exe, "/../share/gnnscope/demos"}, {GS_DEMODIR, ""}};
    for (int i = 0; i < 3; i++) {
        struct stat st;
        snprintf(out, n, "%s%s", cands[i][0], cands[i][1]);
        if (cands[i][0][0] && stat(out, &st) == 0 && S_ISDIR(st.st_mode)) return 1;
    }
    return 0;
}

int cmd_demo(int argc, char **argv)
{
    char dir[PATH_MAX + 64];
    if (!find_dir(dir, sizeof dir)) {
        fprintf(stderr, "gnnscope: error: the demos directory is not installed\n");
        return 1;
    }
    if (argc == 0) {
        DIR *d = opendir(dir);
        struct dirent *e;
        printf("demos (gnnscope demo NAME [flags]):\n");
        while (d && (e = readdir(d))) {
            size_t n = strlen(e->d_name);
            if (n > 3 && strcmp(e->d_name + n - 3, ".gs") == 0) printf("  %.*s\n", (int)n - 3, e->d_name);
        }
        if (d) closedir(d);
        return 0;
    }
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/%s.gs", dir, argv[0]);
    if (strchr(argv[0], '/') || access(path, R_OK) != 0) {
        fprintf(stderr, "gnnscope: error: demo '%s' not found (run 'gnnscope demo' for the list)\n", argv[0]);
        return 2;
    }
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) return 1;
    args[0] = "--script";
    args[1] = path;
    for (int i = 1; i < argc; i++) args[i + 1] = argv[i];
    int rc = cmd_tui(argc + 1, args);
    free(args);
    return rc;
}
