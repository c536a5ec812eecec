/* cli.h - the flag parser shared by the subcommands. Flags are the options
 * of one or more option tables (base/options.h), each over its own
 * struct. Accepts "--flag value" and "--flag=value"; --help prints every
 * flag with what it accepts and its default, read from the structs the
 * command really starts from. Errors name the flag and the bad value and
 * map to exit code 2. */
#ifndef GS_CLI_H
#define GS_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/options.h"

typedef struct {
    const opt_t *opts;
    int n;
    void *base;
} opt_group_t;

/* Parses argv[0..argc) into the groups' structs. Sets *help when --help
 * is seen. Returns GS_OK or GS_EINPUT with err filled. */
int cli_parse(const char *cmd, const opt_group_t *groups, int ngroups, int argc, char **argv, int *help, gs_err_t *err);
/* Prints usage, then "  --name METAVAR   help (accepts; default: value)" per flag. */
void cli_print_help(const char *usage, const opt_group_t *groups, int ngroups);
/* Whether --name appears in argv (as "--name" or "--name=..."). */
int cli_given(int argc, char **argv, const char *name);
/* Prints each of w's warnings on stderr as "gnnscope: warning: ..." and clears w. */
void cli_print_warnings(gs_warnings_t *w);

#endif
