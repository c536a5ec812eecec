/* resource.h - finds files gnnscope ships (datasets, demo scripts) from any
 * working directory: in $ENV (if named and set), next to the executable,
 * in ../share/gnnscope relative to it (after make install), and in the
 * source tree's directory compiled into the binary. */
#ifndef GS_RESOURCE_H
#define GS_RESOURCE_H

#include <stddef.h>

/* Looks for the directory KIND/NAME (NAME may be "" for KIND itself):
 * $env/NAME, <exe dir>/KIND/NAME, <exe dir>/../share/gnnscope/KIND/NAME,
 * builtin/NAME. Returns 1 with the first existing directory in out. */
int gs_find_resource(const char *kind, const char *name, const char *env, const char *builtin, char *out, size_t outsz);

#endif
