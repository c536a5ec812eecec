/* cli.c - see cli.h. */
#include "cli.h"

#include "../engine/parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const flag_t *find(const flag_t *flags, int n, const char *name, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(flags[i].name) == len && strncmp(flags[i].name, name, len) == 0) return &flags[i];
    return NULL;
}

static int set_value(const char *cmd, const flag_t *f, const char *v, gs_err_t *err)
{
    char *end;
    errno = 0;
    double num = 0;
    switch (f->kind) {
    case FLAG_BOOL: *(int *)f->target = 1; return GS_OK;
    case FLAG_STR:
        if (strlen(v) >= f->target_size) return gs_fail(err, GS_EINPUT, "%s: --%s: value is too long", cmd, f->name);
        snprintf(f->target, f->target_size, "%s", v);
        return GS_OK;
    case FLAG_CHOICE: {
        int k = gs_choice_index(f->choices, v);
        if (k < 0) return gs_fail(err, GS_EINPUT, "%s: --%s: '%s' is not one of %s", cmd, f->name, v, f->choices);
        *(int *)f->target = k;
        return GS_OK;
    }
    case FLAG_INT: case FLAG_I64: case FLAG_U64: {
        long long x = strtoll(v, &end, 10);
        if (!*v || *end || errno) return gs_fail(err, GS_EINPUT, "%s: --%s: '%s' is not an integer", cmd, f->name, v);
        num = (double)x;
        if (f->min <= f->max && (num < f->min || num > f->max))
            return gs_fail(err, GS_EINPUT, "%s: --%s: %s is out of range [%g, %g]", cmd, f->name, v, f->min, f->max);
        if (f->kind == FLAG_INT) *(int *)f->target = (int)x;
        else if (f->kind == FLAG_I64) *(int64_t *)f->target = x;
        else *(uint64_t *)f->target = (uint64_t)x;
        return GS_OK;
    }
    case FLAG_FLOAT: case FLAG_DOUBLE:
        num = strtod(v, &end);
        if (!*v || *end || errno || !isfinite(num)) return gs_fail(err, GS_EINPUT, "%s: --%s: '%s' is not a number", cmd, f->name, v);
        if (f->min <= f->max && (num < f->min || num > f->max))
            return gs_fail(err, GS_EINPUT, "%s: --%s: %s is out of range [%g, %g]", cmd, f->name, v, f->min, f->max);
        if (f->kind == FLAG_FLOAT) *(float *)f->target = (float)num;
        else *(double *)f->target = num;
        return GS_OK;
    }
    return GS_EINPUT;
}

int cli_parse(const char *cmd, const flag_t *flags, int nflags, int argc, char **argv, int *help, gs_err_t *err)
{
    *help = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = 1;
            return GS_OK;
        }
        if (strncmp(a, "--", 2) != 0)
            return gs_fail(err, GS_EINPUT, "%s: unexpected argument '%s' (see %s --help)", cmd, a, cmd);
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const flag_t *f = find(flags, nflags, name, len);
        if (!f) return gs_fail(err, GS_EINPUT, "%s: unknown flag '--%.*s' (see %s --help)", cmd, (int)len, name, cmd);
        const char *v = NULL;
        if (f->kind == FLAG_BOOL) {
            if (eq) return gs_fail(err, GS_EINPUT, "%s: --%s takes no value", cmd, f->name);
        } else if (eq) {
            v = eq + 1;
        } else {
            if (i + 1 >= argc) return gs_fail(err, GS_EINPUT, "%s: --%s needs a value (%s)", cmd, f->name, f->metavar);
            v = argv[++i];
        }
        int rc = set_value(cmd, f, v, err);
        if (rc) return rc;
    }
    return GS_OK;
}

static void print_default(const flag_t *f)
{
    switch (f->kind) {
    case FLAG_BOOL: printf("off"); break;
    case FLAG_INT: printf("%d", *(int *)f->target); break;
    case FLAG_I64: printf("%lld", (long long)*(int64_t *)f->target); break;
    case FLAG_U64: printf("%llu", (unsigned long long)*(uint64_t *)f->target); break;
    case FLAG_FLOAT: printf("%g", *(float *)f->target); break;
    case FLAG_DOUBLE: printf("%g", *(double *)f->target); break;
    case FLAG_STR: printf("%s", *(char *)f->target ? (char *)f->target : "none"); break;
    case FLAG_CHOICE: {
        char name[64];
        gs_choice_name(f->choices, *(int *)f->target, name, sizeof name);
        printf("%s", name);
        break;
    }
    }
}

void cli_print_help(const char *usage, const flag_t *flags, int nflags)
{
    printf("%s\n\nFlags:\n", usage);
    for (int i = 0; i < nflags; i++) {
        const flag_t *f = &flags[i];
        char left[64];
        snprintf(left, sizeof left, "--%s %s", f->name, f->kind == FLAG_BOOL ? "" : f->metavar);
        printf("  %-26s %s (default: ", left, f->help);
        print_default(f);
        printf(")\n");
    }
    printf("  %-26s show this help\n", "--help");
}
