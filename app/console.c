/* console.c - see console.h. */
#include "console.h"
#include "session.h"

#include <curses.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "base/parse.h"

static const session_if_t *sess;
static int pending_key;
static int quit_requested;
static char reply[512];
static FILE *devnull;

static int getc_hook(FILE *f)
{
    (void)f;
    return pending_key;
}

static void redisplay_hook(void) {} /* the TUI draws rl_line_buffer itself */
static int input_available_hook(void) { return 0; } /* keys arrive one at a time from curses */
static void prep_hook(int meta) { (void)meta; }
static void deprep_hook(void) {}

void console_set_reply(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reply, sizeof reply, fmt, ap);
    va_end(ap);
}

const char *console_reply(void) { return reply; }

static int (*source_handler)(const char *path, char *reply, int n);

void console_set_source_handler(int (*fn)(const char *path, char *reply, int n)) { source_handler = fn; }

void console_attach(const session_if_t *s) { sess = s; }

int console_run(const char *line)
{
    while (*line == ' ') line++;
    if (strncmp(line, "source", 6) == 0 && (line[6] == ' ' || line[6] == '\0') && source_handler) {
        const char *path = line + 6;
        while (*path == ' ') path++;
        if (!*path) {
            snprintf(reply, sizeof reply, "usage: source FILE (a script of console commands, say and wait lines)");
            return GS_EINPUT;
        }
        return source_handler(path, reply, sizeof reply);
    }
    int rc = sess->command(sess->self, line, reply, sizeof reply);
    if (rc == SESSION_QUIT) quit_requested = 1;
    return rc;
}

static char typed_knob[32], typed_value[64]; /* the last `set` typed that the session took, until taken */
static int typed_set;
static uint64_t typed_lines; /* command lines the user has entered */

uint64_t console_typed(void) { return typed_lines; }

static void on_line(char *line)
{
    if (!line) return;
    if (*line) {
        typed_lines++;
        add_history(line);
        char extra;
        if (console_run(line) == 0 && sscanf(line, " set %31s %63s %c", typed_knob, typed_value, &extra) == 2) typed_set = 1;
    }
    free(line);
}

int console_take_set(char *knob, size_t kn, char *value, size_t vn)
{
    if (!typed_set) return 0;
    typed_set = 0;
    snprintf(knob, kn, "%s", typed_knob);
    snprintf(value, vn, "%s", typed_value);
    return 1;
}

/* What Tab completes: a command, a knob's name (after set/get), or one of
 * a knob's values (after set KNOB). */
typedef enum { COMPLETE_COMMAND, COMPLETE_KNOB, COMPLETE_VALUE } complete_kind_t;
static char value_knob[64]; /* COMPLETE_VALUE: whose values */

/* The i-th value word of value_knob: its choices (or the names it takes), then its zero word. */
static const char *value_candidate(int i)
{
    static char word[64];
    const opt_t *o = knob_find(value_knob);
    if (!o) return NULL;
    const char *set = o->choices ? o->choices : o->names ? o->names() : NULL;
    int n = set ? gs_choice_count(set) : 0;
    if (i < n) {
        gs_choice_name(set, i, word, sizeof word);
        return word;
    }
    return i == n ? o->zero_word : NULL;
}

static const char *candidate(int i, complete_kind_t kind)
{
    if (kind == COMPLETE_VALUE) return value_candidate(i);
    if (kind == COMPLETE_KNOB) { /* the live knobs */
        int n;
        const opt_t *k = knob_table(&n);
        for (int j = 0; j < n; j++)
            if (k[j].when != WHEN_START && i-- == 0) return k[j].name;
        return NULL;
    }
    const char *const *names = session_command_names();
    int n = 0;
    while (names[n]) n++;
    return i < n ? names[i] : i == n ? "source" : NULL;
}

static complete_kind_t complete_kind = COMPLETE_COMMAND;

static char *generator(const char *text, int state)
{
    static int idx;
    static size_t len;
    if (!state) idx = 0, len = strlen(text);
    for (const char *c; (c = candidate(idx, complete_kind)) != NULL;) {
        idx++;
        if (strncmp(c, text, len) == 0) return strdup(c);
    }
    return NULL;
}

static char **complete(const char *text, int start, int end)
{
    (void)end;
    rl_attempted_completion_over = 1;
    char first[16] = "", second[64] = "";
    int words = 0;
    for (int i = 0; i < start; i++) /* the words wholly before the one being completed */
        if (rl_line_buffer[i] != ' ' && (i == 0 || rl_line_buffer[i - 1] == ' ')) words++;
    sscanf(rl_line_buffer, "%15s %63s", first, second);
    int knob_cmd = !strcmp(first, "set") || !strcmp(first, "get");
    if (words == 0) complete_kind = COMPLETE_COMMAND;
    else if (words == 1 && knob_cmd) complete_kind = COMPLETE_KNOB;
    else if (words == 2 && !strcmp(first, "set")) complete_kind = COMPLETE_VALUE, snprintf(value_knob, sizeof value_knob, "%s", second);
    else return NULL;
    return rl_completion_matches(text, generator);
}

/* Shows the candidates of an ambiguous completion in the reply line. */
static void show_matches(char **matches, int n, int max)
{
    (void)max;
    int w = snprintf(reply, sizeof reply, "matches:");
    for (int i = 1; i <= n && w < (int)sizeof reply; i++) w += snprintf(reply + w, sizeof reply - (size_t)w, " %s", matches[i]);
}

void console_init(const session_if_t *s)
{
    console_attach(s);
    devnull = fopen("/dev/null", "w");
    rl_readline_name = "gnnscope";
    rl_catch_signals = 0;
    rl_catch_sigwinch = 0;
    rl_change_environment = 0;
    rl_getc_function = getc_hook;
    rl_redisplay_function = redisplay_hook;
    rl_input_available_hook = input_available_hook;
    rl_prep_term_function = prep_hook;
    rl_deprep_term_function = deprep_hook;
    rl_outstream = devnull ? devnull : stdout;
    rl_instream = NULL;
    rl_attempted_completion_function = complete;
    rl_completion_display_matches_hook = show_matches;
    rl_callback_handler_install("", on_line);
}

void console_shutdown(void)
{
    rl_callback_handler_remove();
    if (devnull) fclose(devnull);
    devnull = NULL;
}

int console_key(int ch)
{
    switch (ch) { /* curses keys to the control keys readline knows */
    case KEY_LEFT: ch = 2; break;   /* C-b */
    case KEY_RIGHT: ch = 6; break;  /* C-f */
    case KEY_UP: ch = 16; break;    /* C-p */
    case KEY_DOWN: ch = 14; break;  /* C-n */
    case KEY_HOME: ch = 1; break;   /* C-a */
    case KEY_END: ch = 5; break;    /* C-e */
    case KEY_BACKSPACE: case 8: ch = 127; break;
    case KEY_DC: ch = rl_end > 0 ? 4 : -1; break; /* C-d, but never EOF on an empty line */
    case KEY_ENTER: ch = '\n'; break;
    default: if (ch > 255) ch = -1;
    }
    if (ch < 0) return quit_requested;
    pending_key = ch;
    rl_callback_read_char();
    return quit_requested;
}

const char *console_line(int *cursor)
{
    *cursor = rl_point;
    return rl_line_buffer ? rl_line_buffer : "";
}
