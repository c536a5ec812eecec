/* cli.c - see cli.h. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const opt_t *find(const opt_group_t *groups, int ngroups, const char *name, size_t len, void **base)
{
    for (int g = 0; g < ngroups; g++) {
        const opt_t *o = opt_find(groups[g].opts, groups[g].n, name, len);
        if (o) {
            *base = groups[g].base;
            return o;
        }
    }
    return NULL;
}

int cli_given(int argc, char **argv, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "--", 2) == 0 && strncmp(argv[i] + 2, name, n) == 0 && (argv[i][n + 2] == '\0' || argv[i][n + 2] == '='))
            return 1;
    return 0;
}

int cli_parse(const char *cmd, const opt_group_t *groups, int ngroups, int argc, char **argv, int *help, gs_err_t *err)
{
    *help = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = 1;
            return GS_OK;
        }
        if (strncmp(a, "--", 2) != 0)
            return gs_fail(err, GS_EINPUT, "%s: unexpected argument '%.64s' (see %s --help)", cmd, a, cmd);
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        void *base;
        const opt_t *o = find(groups, ngroups, name, len, &base);
        if (!o) return gs_fail(err, GS_EINPUT, "%s: unknown flag '--%.*s' (see %s --help)", cmd, (int)(len > 64 ? 64 : len), name, cmd);
        const char *v = NULL;
        if (o->kind == OPT_BOOL) {
            if (eq) return gs_fail(err, GS_EINPUT, "%s: --%s takes no value", cmd, o->name);
        } else if (eq) {
            v = eq + 1;
        } else {
            if (i + 1 >= argc) return gs_fail(err, GS_EINPUT, "%s: --%s needs a value (%s)", cmd, o->name, o->metavar);
            v = argv[++i];
        }
        char why[448];
        if (opt_parse(o, base, v, why, sizeof why)) return gs_fail(err, GS_EINPUT, "%s: --%s: %s", cmd, o->name, why);
    }
    return GS_OK;
}

void cli_print_help(const char *usage, const opt_group_t *groups, int ngroups)
{
    printf("%s\n\nFlags:\n", usage);
    for (int g = 0; g < ngroups; g++)
        for (int i = 0; i < groups[g].n; i++) {
            const opt_t *o = &groups[g].opts[i];
            char left[64], accepts[256], def[128];
            snprintf(left, sizeof left, "--%s %s", o->name, o->kind == OPT_BOOL ? "" : o->metavar);
            opt_format(o, groups[g].base, def, sizeof def);
            printf("  %-26s %s", left, o->help);
            if (o->kind != OPT_BOOL && (o->kind != OPT_STR || o->names)) {
                opt_accepts(o, accepts, sizeof accepts);
                printf(" (default: %s; accepts %s)\n", def, accepts);
            } else {
                printf(" (default: %s)\n", def);
            }
        }
    printf("  %-26s show this help\n", "--help");
}

void cli_print_warnings(gs_warnings_t *w)
{
    for (int i = 0; i < w->n; i++) fprintf(stderr, "gnnscope: warning: %s\n", w->msg[i]);
    if (w->dropped) fprintf(stderr, "gnnscope: warning: %d more warnings\n", w->dropped);
    memset(w, 0, sizeof *w);
}
