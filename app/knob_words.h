/* knob_words.h - an engine message in the console's words. The engine
 * names its settings as command-line flags ("--device-mem 4194304 is too
 * small for 24 chunks ...; use --chunks auto"); a user who changed them
 * with `set` or `load` in the workbench reads the same message with each
 * settable knob's name as `set` takes it, and the advice to use a flag as
 * the command to type ("...; use 'set chunks auto'"). A name that is not
 * a console knob (--ranks, --max-epochs) stays a flag. */
#ifndef GS_KNOB_WORDS_H
#define GS_KNOB_WORDS_H

#include <stddef.h>

/* msg rewritten into out (n bytes, truncated, always terminated). */
void knob_words(const char *msg, char *out, size_t n);

#endif
