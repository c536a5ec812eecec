/* script.h - classroom scripts: console commands, one per line, plus
 *   say "text"          shown prominently in the console panel
 *   wait epochs N       let N more epochs run before the next line
 *   mark                remember the last epoch's counters (the "before")
 *   effect NAME [NAME]  show "effect: NAME before X after Y (Zx)" for each
 *                       counter of engine/exec/stats.h, before = the mark, after
 *                       = the last epoch, Z = before / after
 * '#' starts a comment; "#flags ..." lines give the demo's own flags
 * (gnnscope demo puts them before the user's). The whole file is checked
 * when loaded, so a typo is reported with its file and line before
 * anything runs; a file that is not a regular text file of at most
 * SCRIPT_MAX_LINES lines is refused. */
#ifndef GS_SCRIPT_H
#define GS_SCRIPT_H

#define SCRIPT_MAX_SAID 64

#include "session.h"

#define SCRIPT_MAX_LINES 10000
#define SCRIPT_MAX_WAIT 1000000000L

typedef struct {
    char path[4096];
    char **lines;
    int *lineno;
    int n, next;
    long wait_until;   /* epoch count to reach before continuing, -1 = none */
    char banner[512];
    char effect[512];  /* the last effect line, or "" */
    char said[SCRIPT_MAX_SAID][512]; /* says and command replies since the last script_take_said, oldest first */
    int nsaid;
    epoch_stats_t mark;
    int marked;
} script_t;

int script_load(script_t *sc, const char *path, gs_err_t *err);
/* Runs lines until a wait or the end, with the session's snapshot. Returns
 * 1 when a line quits. */
int script_step(script_t *sc, const session_snapshot_t *snap);
int script_done(const script_t *sc);
const char *script_banner(const script_t *sc);
/* Copies the says since the last call (at most max) into out; returns how many. */
int script_take_said(script_t *sc, char (*out)[512], int max);
void script_free(script_t *sc);
/* The "#flags" words of the script at path (at most max, each strdup'ed), for gnnscope demo. */
int script_flags(const char *path, char **out, int max);

#endif
