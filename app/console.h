/* console.h - the readline command line inside the curses screen. Readline
 * runs in callback mode: the TUI hands it one key at a time and draws its
 * line buffer itself, so readline never writes to the terminal. History,
 * line editing and tab completion of command and knob names come from
 * readline. A finished line is run through the session's command table. */
#ifndef GS_CONSOLE_H
#define GS_CONSOLE_H

#include <stdint.h>

#include "session_if.h"

/* s must outlive the console. */
void console_init(const session_if_t *s);
/* Sets the session for console_run without touching readline (headless). */
void console_attach(const session_if_t *s);
/* Called for "source FILE" lines (the TUI loads the script). */
void console_set_source_handler(int (*fn)(const char *path, char *reply, int n));
void console_shutdown(void);
/* Feeds one key (a curses key code). Returns 1 if the line asked to quit. */
int console_key(int ch);
const char *console_line(int *cursor);
/* How many command lines the user has entered (not a script's). */
uint64_t console_typed(void);
/* The reply to the last command (also used for status messages). */
const char *console_reply(void);
void console_set_reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runs one command line as if typed (scripts). Returns session_command's code (SESSION_QUIT for quit). */
int console_run(const char *line);
/* 1 once after the user typed a `set KNOB VALUE` the session took, with
 * its knob and value (for the workbench's delta line). */
int console_take_set(char *knob, size_t kn, char *value, size_t vn);

#endif
