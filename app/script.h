/* script.h - classroom scripts: console commands, one per line, plus
 *   say "text"        shown prominently in the console panel
 *   wait epochs N     let N more epochs run before the next line
 * '#' starts a comment. The whole file is checked when loaded, so a typo
 * is reported with its file and line before anything runs. */
#ifndef GS_SCRIPT_H
#define GS_SCRIPT_H

#include "session.h"

typedef struct {
    char path[4096];
    char **lines;
    int *lineno;
    int n, next;
    long wait_until; /* epoch count to reach before continuing, -1 = none */
    char banner[512];
    session_t *s;
} script_t;

int script_load(script_t *sc, const char *path, gs_err_t *err);
void script_attach(script_t *sc, session_t *s);
/* Runs lines until a wait or the end. Returns 1 when a line quits. */
int script_step(script_t *sc, int epochs_done);
int script_done(const script_t *sc);
const char *script_banner(const script_t *sc);
void script_free(script_t *sc);

#endif
