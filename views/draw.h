/* draw.h - the ncurses views: title bar, timeline (lanes per device, spans
 * coloured by phase), utilisation, knobs, training and console panels, and
 * the help overlay. Colour when the terminal has it, distinct glyphs always
 * (monochrome fallback). */
#ifndef GS_VIEWS_DRAW_H
#define GS_VIEWS_DRAW_H

#include "layout.h"
#include "view_state.h"

void draw_init_colors(int *has_color);
void draw_screen(const layout_t *l, const view_state_t *v);

#endif
