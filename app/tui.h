/* tui.h - the full-screen workbench. */
#ifndef GS_TUI_H
#define GS_TUI_H

int cmd_tui(int argc, char **argv);

#endif
