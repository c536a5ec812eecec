/* workbench.h - the workbench on a run (session_if.h): full screen on a
 * terminal, or headless (a script's lines and each epoch printed). The
 * active script (--script, or `source FILE` from the console) belongs to
 * the workbench; one at a time. */
#ifndef GS_WORKBENCH_H
#define GS_WORKBENCH_H

#include "base/error.h"
#include "script.h"
#include "session_if.h"

/* Makes FILE the active script (replacing one); GS_EINPUT with err on a bad script. */
int workbench_load_script(const char *path, gs_err_t *err);
void workbench_free_script(void);
/* How a script's says wait on the full screen: "key" (the default: space
 * goes on), "auto" or "auto=S" (script_parse_pace); GS_EINPUT when malformed. */
int workbench_set_pace(const char *pace, gs_err_t *err);

/* Full screen until q, a stop signal, the script's quit or the run's end;
 * prints the run's outcome on the restored terminal. Returns the exit code. */
int workbench_screen(const session_if_t *s);
/* Runs the active script (required) without a terminal until it is done,
 * the run ends or a stop signal. Returns the exit code. */
int workbench_headless(const session_if_t *s);

#endif
