/* script.c - see script.h. */
#include "script.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine/train/knobs.h"
#include "console.h"
#include "knob_delta.h"

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
    if (strncmp(l, "wait", 4) == 0 && (l[4] == ' ' || !l[4])) {
        long k;
        char extra;
        double secs;
        if (sscanf(l, "wait seconds %lf %c", &secs, &extra) == 1)
            return secs > 0 && secs <= SCRIPT_MAX_WAIT_S ? 0 : (snprintf(why, n, "wait seconds S: S in (0, %g]", SCRIPT_MAX_WAIT_S), -1);
        if (sscanf(l, "wait epochs %ld %c", &k, &extra) != 1 || k < 1 || k > SCRIPT_MAX_WAIT)
            return snprintf(why, n, "expected: wait epochs N (N in [1, %ld]) or wait seconds S", SCRIPT_MAX_WAIT), -1;
        return 0;
    }
    if (strcmp(l, "mark") == 0) return 0;
    if (strncmp(l, "effect", 6) == 0 && (l[6] == ' ' || !l[6])) {
        char copy[1024], *save, *tok;
        int count = 0;
        snprintf(copy, sizeof copy, "%s", l + 6);
        for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save), count++)
            if (!stat_find(tok)) return snprintf(why, n, "effect: '%.64s' is not a counter (see engine/stats.h)", tok), -1;
        return count ? 0 : (snprintf(why, n, "expected: effect COUNTER [COUNTER]"), -1);
    }
    char word[64] = "";
    sscanf(l, "%63s", word);
    if (strcmp(word, "source") == 0) return snprintf(why, n, "source is a console command: scripts do not nest"), -1;
    if (strcmp(word, "set") == 0) { /* the knob and its value, checked as `set` will (the range a run's shape adds, at run time) */
        char name[64], value[1024], extra;
        if (sscanf(l, "set %63s %1023s %c", name, value, &extra) != 2) return snprintf(why, n, "expected: set KNOB VALUE"), -1;
        train_cfg_t c;
        train_cfg_defaults(&c);
        gs_err_t err;
        if (knob_parse(&c, name, value, NULL, &err)) return snprintf(why, n, "%s", err.msg), -1;
        return 0;
    }
    for (const char *const *c = session_command_names(); *c; c++)
        if (strcmp(*c, word) == 0) return 0;
    snprintf(why, n, "unknown command '%.64s'", word);
    return -1;
}

/* Opens path for reading when it is a regular file. */
static FILE *open_script(const char *path, gs_err_t *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        gs_fail(err, GS_EINPUT, "%s: cannot open script (%s)", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        gs_fail(err, GS_EINPUT, "%s: not a regular file (a script is a text file)", path);
        return NULL;
    }
    FILE *f = fopen(path, "r");
    if (!f) gs_fail(err, GS_EINPUT, "%s: cannot open script (%s)", path, strerror(errno));
    return f;
}

int script_load(script_t *sc, const char *path, gs_err_t *err)
{
    memset(sc, 0, sizeof *sc);
    sc->wait_until = -1, sc->pace = SCRIPT_PACE_NONE;
    snprintf(sc->path, sizeof sc->path, "%s", path);
    FILE *f = open_script(path, err);
    if (!f) return err->code;
    char buf[1024];
    int lineno = 0, cap = 0, rc = GS_OK;
    while (fgets(buf, sizeof buf, f)) {
        lineno++;
        size_t len = strlen(buf);
        if (lineno > SCRIPT_MAX_LINES) {
            rc = gs_fail(err, GS_EINPUT, "%s:%d: more than %d lines", path, lineno, SCRIPT_MAX_LINES);
            break;
        }
        if (len == 0 || (len + 1 < sizeof buf && !feof(f) && buf[len - 1] != '\n')) { /* a NUL byte ended the string early */
            rc = gs_fail(err, GS_EINPUT, "%s:%d: a NUL byte: not a text file", path, lineno);
            break;
        }
        if (len == sizeof buf - 1 && buf[len - 1] != '\n') {
            rc = gs_fail(err, GS_EINPUT, "%s:%d: line longer than %zu characters", path, lineno, sizeof buf - 2);
            break;
        }
        char *l = trim(buf), why[256];
        if (!*l || *l == '#') continue;
        if (check_line(l, why, sizeof why)) {
            rc = gs_fail(err, GS_EINPUT, "%s:%d: %s", path, lineno, why);
            break;
        }
        if (sc->n == cap) {
            cap = cap ? cap * 2 : 32;
            char **lines = realloc(sc->lines, sizeof *sc->lines * (size_t)cap);
            if (lines) sc->lines = lines;
            int *nums = realloc(sc->lineno, sizeof *sc->lineno * (size_t)cap);
            if (nums) sc->lineno = nums;
            if (!lines || !nums) {
                rc = gs_fail(err, GS_EFAIL, "out of memory reading %s", path);
                break;
            }
        }
        sc->steps += strncmp(l, "say ", 4) == 0;
        if (strncmp(l, "effect", 6) == 0) snprintf(sc->effect_names, sizeof sc->effect_names, "%s", l + 6); /* what the demo is about */
        sc->lines[sc->n] = strdup(l);
        sc->lineno[sc->n++] = lineno;
    }
    fclose(f);
    if (rc) script_free(sc);
    return rc;
}


/* Counter d at the mark and in last (0 without either), and the change, as text. */
static void effect_values(const script_t *sc, const stat_desc_t *d, const epoch_stats_t *last, char *b, char *a, char *change)
{
    double before = sc->marked ? stat_get(&sc->mark, d) : 0, after = last ? stat_get(last, d) : 0;
    stat_value_str(d, before, b, 32); /* a share: percentages and the points gained; else values and their ratio */
    stat_value_str(d, after, a, 32);
    stat_change_str(d, before, after, change, 32);
}

/* "effect: NAME before X after Y (Zx)" for each counter named on the line. */
static void effect_line(script_t *sc, const char *l, const session_snapshot_t *snap)
{
    const epoch_stats_t *last = snap->nepochs ? &snap->epochs[snap->nepochs - 1] : NULL;
    char copy[1024], *save, *tok, b[32], a[32], change[32];
    int w = snprintf(sc->effect, sizeof sc->effect, "effect:");
    snprintf(copy, sizeof copy, "%s", l + 6);
    for (tok = strtok_r(copy, " \t", &save); tok && w < (int)sizeof sc->effect; tok = strtok_r(NULL, " \t", &save)) {
        const stat_desc_t *d = stat_find(tok);
        effect_values(sc, d, last, b, a, change);
        w += snprintf(sc->effect + w, sizeof sc->effect - (size_t)w, "%s %s before %s after %s (%s)", w > 8 ? ";" : "", tok, b, a,
                      change);
    }
    snprintf(sc->banner, sizeof sc->banner, ">> %s", sc->effect);
}

int script_effect_now(const script_t *sc, const session_snapshot_t *snap, char *before, char *now, size_t n)
{
    before[0] = now[0] = '\0';
    if (!sc->marked || !sc->effect_names[0] || !snap->nepochs) return 0;
    char copy[256], *save, *tok, b[32], a[32], change[32];
    size_t wb = 0, wn = 0;
    snprintf(copy, sizeof copy, "%s", sc->effect_names);
    for (tok = strtok_r(copy, " \t", &save); tok && wb < n && wn < n; tok = strtok_r(NULL, " \t", &save)) {
        const stat_desc_t *d = stat_find(tok);
        if (!d) continue;
        effect_values(sc, d, &snap->epochs[snap->nepochs - 1], b, a, change);
        const char *name = d->label[0] ? d->label : d->name, *sep = wb ? "; " : "";
        wb += (size_t)snprintf(before + wb, n - wb, "%s%s %s", sep, name, b);
        wn += (size_t)snprintf(now + wn, n - wn, "%s%s %s (%s)", sep, name, a, change);
    }
    return before[0] != '\0';
}

/* Queues a line for script_take_said (the oldest are kept when full). */
static void said(script_t *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void said(script_t *sc, const char *fmt, ...)
{
    if (sc->nsaid == SCRIPT_MAX_SAID) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sc->said[sc->nsaid++], sizeof sc->said[0], fmt, ap);
    va_end(ap);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Holds at the say just shown: training paused (if it ran), the banner
 * saying first (so a narrow terminal shows it) which step this is and how
 * to go on. */
static void hold(script_t *sc, const session_snapshot_t *snap)
{
    sc->holding = 1, sc->released = 0;
    sc->hold_until = sc->pace > 0 ? mono_s() + sc->pace : 0;
    if (!snap->paused && !snap->finished && console_run("pause") != SESSION_QUIT) sc->held_pause = 1;
    char text[sizeof sc->banner];
    snprintf(text, sizeof text, "%s", sc->banner + 3); /* past ">> " */
    if (sc->pace > 0)
        snprintf(sc->banner, sizeof sc->banner, ">> [step %d of %d, next in %.0f s] %s", sc->step, sc->steps, sc->pace, text);
    else
        snprintf(sc->banner, sizeof sc->banner, ">> [step %d of %d, space: go on] %s", sc->step, sc->steps, text);
}

/* Whether a hold or a `wait seconds` still stops the script; ends a hold
 * whose key came or whose time is up, resuming the training it paused. */
static int still_held(script_t *sc)
{
    double now = mono_s();
    if (sc->holding) {
        if (!sc->released && !(sc->pace > 0 && now >= sc->hold_until)) return 1;
        sc->holding = 0;
        char *text = strstr(sc->banner, "] ");
        if (strncmp(sc->banner, ">> [step ", 9) == 0 && text) memmove(sc->banner + 3, text + 2, strlen(text + 2) + 1);
        if (sc->held_pause) console_run("resume"), sc->held_pause = 0;
    }
    if (sc->sleep_until > 0 && now < sc->sleep_until) return 1;
    sc->sleep_until = 0;
    return 0;
}

/* Runs one line; 1: stop here (a wait or a hold), 2: a line quits, else 0. */
static int run_line(script_t *sc, const char *l, const session_snapshot_t *snap)
{
    long k;
    double secs;
    if (strncmp(l, "say ", 4) == 0) {
        const char *q = strchr(l, '"');
        snprintf(sc->banner, sizeof sc->banner, ">> %.*s", (int)strlen(q) - 2, q + 1);
        said(sc, "%s", sc->banner);
        sc->step++;
        if (sc->pace == SCRIPT_PACE_NONE) return 0;
        hold(sc, snap);
        return 1;
    } else if (sscanf(l, "wait seconds %lf", &secs) == 1) {
        if (sc->pace == SCRIPT_PACE_NONE) return 0; /* headless: the epochs are the script's only clock */
        sc->sleep_until = mono_s() + secs;
        return 1;
    } else if (sscanf(l, "wait epochs %ld", &k) == 1) {
        sc->wait_until = (long)snap->epochs_total + k;
        return 1;
    } else if (strcmp(l, "mark") == 0) {
        sc->marked = snap->nepochs > 0;
        if (sc->marked) sc->mark = snap->epochs[snap->nepochs - 1];
    } else if (strncmp(l, "effect", 6) == 0) {
        effect_line(sc, l, snap);
    } else {
        int rc = console_run(l);
        said(sc, "   %s", console_reply()); /* every command's reply, in order */
        if (rc == SESSION_QUIT) return 2;
    }
    return 0;
}

int script_step(script_t *sc, const session_snapshot_t *snap)
{
    if (still_held(sc)) return 0;
    if (sc->wait_until >= 0) {
        if ((long)snap->epochs_total < sc->wait_until) return 0;
        sc->wait_until = -1;
    }
    while (sc->next < sc->n) {
        int rc = run_line(sc, sc->lines[sc->next++], snap);
        if (rc) return rc == 2;
    }
    return 0;
}

void script_set_pace(script_t *sc, double pace) { sc->pace = pace; }
int script_holding(const script_t *sc) { return sc->holding; }
void script_release(script_t *sc) { sc->released = 1; }

double script_parse_pace(const char *s)
{
    if (!strcmp(s, "key")) return SCRIPT_PACE_KEY;
    if (!strcmp(s, "auto")) return 4.0;
    char *end;
    if (strncmp(s, "auto=", 5) != 0 || !s[5]) return -1;
    double v = strtod(s + 5, &end);
    return *end || !(v >= 0.5 && v <= 600) ? -1 : v;
}

int script_done(const script_t *sc) { return sc->next >= sc->n && sc->wait_until < 0 && !sc->holding && sc->sleep_until == 0; }
const char *script_banner(const script_t *sc) { return sc->banner; }

int script_take_said(script_t *sc, char (*out)[512], int max)
{
    int n = sc->nsaid < max ? sc->nsaid : max;
    memcpy(out, sc->said, sizeof sc->said[0] * (size_t)n);
    sc->nsaid = 0;
    return n;
}

void script_free(script_t *sc)
{
    for (int i = 0; i < sc->n; i++) free(sc->lines[i]);
    free(sc->lines), free(sc->lineno);
    sc->lines = NULL, sc->lineno = NULL, sc->n = 0;
}

int script_flags(const char *path, char **out, int max)
{
    gs_err_t err;
    FILE *f = open_script(path, &err);
    if (!f) return 0;
    char buf[1024], *save;
    int n = 0;
    for (int line = 0; line < SCRIPT_MAX_LINES && fgets(buf, sizeof buf, f); line++) {
        if (strncmp(buf, "#flags ", 7) != 0) continue;
        for (char *tok = strtok_r(buf + 7, " \t\r\n", &save); tok && n < max; tok = strtok_r(NULL, " \t\r\n", &save))
            out[n++] = strdup(tok);
    }
    fclose(f);
    return n;
}
