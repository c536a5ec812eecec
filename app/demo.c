/* demo.c - `gnnscope demo` lists the shipped classroom scripts and
 * `gnnscope demo NAME [flags]` runs one in the workbench (headless when
 * stdout is not a terminal), with the flags of the script's "#flags"
 * lines before the user's. Scripts are found next to the binary
 * (demos/), in ../share/gnnscope/demos, or in the source tree. */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/resource.h"
#include "commands.h"
#include "script.h"
#include "tui.h"

#ifndef GS_DEMODIR
#define GS_DEMODIR "demos"
#endif

/* A demo's one-line description: its first comment's first line, up to
 * the first full stop (the paper and what the demo shows). */
static void demo_about(const char *dir, const char *file, char *out, size_t n)
{
    char path[PATH_MAX + 128], line[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fgets(line, sizeof line, f) && line[0] == '#' && line[1] == ' ') {
        char *end = line + strcspn(line, "\n");
        for (char *p = line + 2; (p = strstr(p, ". ")) != NULL; p++)
            if (isupper((unsigned char)p[2]) && !(p - line >= 3 && strncmp(p - 3, "Fig", 3) == 0)) { /* a sentence ends */
                end = p;
                break;
            }
        if (end > line + 2 && end[-1] == '.') end--;
        snprintf(out, n, "%.*s", (int)(end - line - 2), line + 2);
    }
    fclose(f);
}

int cmd_demo(int argc, char **argv)
{
    char dir[PATH_MAX + 64];
    if (!gs_find_resource("demos", "", NULL, GS_DEMODIR, dir, sizeof dir)) {
        fprintf(stderr, "gnnscope: error: the demos directory is not installed\n");
        return 1;
    }
    if (argc >= 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
        printf("usage: gnnscope demo [NAME [flags]]\n  Without NAME, lists the demos; with it, runs one in the workbench (in a terminal) or headless,\n"
               "  printing what it says and its effect line. Extra flags are passed on as to gnnscope tui.\n"
               "  In a terminal each say pauses training until space (--pace auto=S: for S seconds).\n");
        return 0;
    }
    if (argc == 0) {
        DIR *d = opendir(dir);
        struct dirent *e;
        printf("demos (gnnscope demo NAME [flags]):\n");
        while (d && (e = readdir(d))) {
            size_t n = strlen(e->d_name);
            if (n <= 3 || strcmp(e->d_name + n - 3, ".gs") != 0) continue;
            char about[256];
            demo_about(dir, e->d_name, about, sizeof about);
            printf("  %-12.*s %s\n", (int)n - 3, e->d_name, about);
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
    enum { MAX_FLAGS = 64 };
    char *own[MAX_FLAGS];
    int nown = script_flags(path, own, MAX_FLAGS); /* the demo's "#flags", then the user's (which win) */
    char **args = calloc((size_t)(argc + nown + 2), sizeof *args);
    if (!args) return 1;
    args[0] = "--script";
    args[1] = path;
    for (int i = 0; i < nown; i++) args[i + 2] = own[i];
    for (int i = 1; i < argc; i++) args[nown + i + 1] = argv[i];
    int rc = tui_run(OPTS_DEMO, argc + nown + 1, args);
    for (int i = 0; i < nown; i++) free(own[i]);
    free(args);
    return rc;
}
