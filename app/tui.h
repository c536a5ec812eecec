/* tui.h - the full-screen workbench. */
#ifndef GS_TUI_H
#define GS_TUI_H

#include "train_opts.h"

/* `gnnscope [tui]`: the workbench on its defaults (OPTS_TUI). */
int cmd_tui(int argc, char **argv);
/* The workbench from the defaults of kind (OPTS_TUI or OPTS_DEMO). */
int tui_run(opts_cmd_t kind, int argc, char **argv);

/* `gnnscope attach PATH`: the workbench on a run served at PATH. */
int cmd_attach(int argc, char **argv);

#endif
