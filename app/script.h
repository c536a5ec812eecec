/* script.h - classroom scripts: console commands, one per line, plus
 *   say "text"          shown prominently in the console panel
 *   wait epochs N       let N more epochs run before the next line
 *   wait seconds S      in a terminal, pause S seconds (headless: skipped)
 *   mark                remember the last epoch's counters (the "before")
 *   effect NAME [NAME]  show "effect: NAME before X after Y (Zx)" for each
 *                       counter of engine/exec/stats.h, before = the mark, after
 *                       = the last epoch, Z = before / after
 * '#' starts a comment; "#flags ..." lines give the demo's own flags
 * (gnnscope demo puts them before the user's). The whole file is checked
 * when loaded, so a typo is reported with its file and line before
 * anything runs; a file that is not a regular text file of at most
 * SCRIPT_MAX_LINES lines is refused.
 * Pacing (a terminal only; script_set_pace): each `say` holds the script
 * and pauses training, so its panels stay on screen, until script_release
 * (space) or, paced automatically, for a number of seconds; its banner
 * shows "step I of N" and how to go on. Headless runs never hold. */
#ifndef GS_SCRIPT_H
#define GS_SCRIPT_H

#define SCRIPT_MAX_SAID 64

#include "session.h"

#define SCRIPT_MAX_LINES 10000
#define SCRIPT_MAX_WAIT 1000000000L
#define SCRIPT_MAX_WAIT_S 3600.0
#define SCRIPT_PACE_NONE -1.0 /* never hold (headless) */
#define SCRIPT_PACE_KEY 0.0   /* hold until script_release */

typedef struct {
    char path[4096];
    char **lines;
    int *lineno;
    int n, next;
    long wait_until;   /* epoch count to reach before continuing, -1 = none */
    char banner[512];
    char effect[512];  /* the last effect line, or "" */
    char effect_names[256]; /* the counters the file's effect line names (the demo's metric), or "" */
    char said[SCRIPT_MAX_SAID][512]; /* says and command replies since the last script_take_said, oldest first */
    int nsaid;
    epoch_stats_t mark;
    int marked;
    double pace;       /* SCRIPT_PACE_NONE, SCRIPT_PACE_KEY, or seconds a say holds */
    int steps, step;   /* says in the file; says shown so far */
    int holding, released, held_pause; /* at a say; released by a key; the hold paused training */
    double hold_until, sleep_until;    /* monotonic seconds: an automatic hold's end; a `wait seconds` end */
} script_t;

int script_load(script_t *sc, const char *path, gs_err_t *err);
/* Runs lines until a wait or the end, with the session's snapshot. Returns
 * 1 when a line quits. */
int script_step(script_t *sc, const session_snapshot_t *snap);
int script_done(const script_t *sc);
void script_set_pace(script_t *sc, double pace);
/* 1 while the script holds at a say, waiting for script_release or its time. */
int script_holding(const script_t *sc);
void script_release(script_t *sc);
/* "key", "auto" (4 s) or "auto=S" (S in [0.5, 600]) as a pace; -1 when malformed. */
double script_parse_pace(const char *s);
const char *script_banner(const script_t *sc);
/* Once the script has marked: its effect counters at the mark ("gather
 * h2d 107.5 MB") into before, and at the last epoch with the change
 * ("gather h2d 24.0 MB (4.47x)") into now, n bytes each; 0 when there is
 * nothing to say (no mark, no effect line, no epoch). */
int script_effect_now(const script_t *sc, const session_snapshot_t *snap, char *before, char *now, size_t n);
/* Copies the says since the last call (at most max) into out; returns how many. */
int script_take_said(script_t *sc, char (*out)[512], int max);
void script_free(script_t *sc);
/* The "#flags" words of the script at path (at most max, each strdup'ed), for gnnscope demo. */
int script_flags(const char *path, char **out, int max);

#endif
