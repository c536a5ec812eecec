/* script.c - see script.h. */
#include "script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r')) *--e = '\0';
    return s;
}

/* Checks one line; fills why on error. */
static int check_line(const char *l, char *why, size_t n)
{
    if (strncmp(l, "say ", 4) == 0) {
        const char *q = l + 4;
        while (*q == ' ') q++;
        if (*q != '"' || strlen(q) < 2 || q[strlen(q) - 1] != '"') return snprintf(why, n, "say needs \"quoted text\""), -1;
        return 0;
    }
    if (strncmp(l, "wait ", 5) == 0) {
        long k;
        char extra;
        if (sscanf(l, "wait epochs %ld %c", &k, &extra) != 1 || k < 1) return snprintf(why, n, "expected: wait epochs N"), -1;
        return 0;
    }
    char word[64] = "";
    sscanf(l, "%63s", word);
    for (const char *const *c = session_command_names(); *c; c++)
        if (strcmp(*c, word) == 0) return 0;
    snprintf(why, n, "unknown command '%s'", word);
    return -1;
}

int script_load(script_t *sc, const char *path, gs_err_t *err)
{
    memset(sc, 0, sizeof *sc);
    sc->wait_until = -1;
    snprintf(sc->path, sizeof sc->path, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f) return gs_fail(err, GS_EINPUT, "%s: cannot open script", path);
    char buf[1024];
    int lineno = 0, cap = 0;
    while (fgets(buf, sizeof buf, f)) {
        lineno++;
        char *l = trim(buf);
        if (!*l || *l == '#') continue;
        char why[256];
        if (check_line(l, why, sizeof why)) {
            fclose(f);
            script_free(sc);
            return gs_fail(err, GS_EINPUT, "%s:%d: %s", path, lineno, why);
        }
        if (sc->n == cap) {
            cap = cap ? cap * 2 : 32;
            sc->lines = realloc(sc->lines, sizeof *sc->lines * (size_t)cap);
            sc->lineno = realloc(sc->lineno, sizeof *sc->lineno * (size_t)cap);
        }
        sc->lines[sc->n] = strdup(l);
        sc->lineno[sc->n++] = lineno;
    }
    fclose(f);
    return GS_OK;
}

void script_attach(script_t *sc, session_t *s) { sc->s = s; }

int script_step(script_t *sc, int epochs_done)
{
    if (sc->wait_until >= 0) {
        if (epochs_done < sc->wait_until) return 0;
        sc->wait_until = -1;
    }
    while (sc->next < sc->n) {
        const char *l = sc->lines[sc->next++];
        long k;
        if (strncmp(l, "say ", 4) == 0) {
            const char *q = strchr(l, '"');
            snprintf(sc->banner, sizeof sc->banner, ">> %.*s", (int)strlen(q) - 2, q + 1);
        } else if (sscanf(l, "wait epochs %ld", &k) == 1) {
            sc->wait_until = epochs_done + k;
            return 0;
        } else if (console_run(l) == SESSION_QUIT) {
            return 1;
        }
    }
    return 0;
}

int script_done(const script_t *sc) { return sc->next >= sc->n && sc->wait_until < 0; }
const char *script_banner(const script_t *sc) { return sc->banner; }

void script_free(script_t *sc)
{
    for (int i = 0; i < sc->n; i++) free(sc->lines[i]);
    free(sc->lines), free(sc->lineno);
    sc->lines = NULL, sc->lineno = NULL, sc->n = 0;
}
