/* cli.h - a small table-driven flag parser shared by the subcommands.
 * Accepts "--flag value" and "--flag=value"; every flag has a help line
 * and a printed default. Errors name the flag and the bad value and map
 * to exit code 2. */
#ifndef GS_CLI_H
#define GS_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "../engine/error.h"

typedef enum { FLAG_BOOL, FLAG_INT, FLAG_I64, FLAG_U64, FLAG_FLOAT, FLAG_DOUBLE, FLAG_STR, FLAG_CHOICE } flag_kind_t;

typedef struct {
    const char *name;    /* without the leading "--" */
    flag_kind_t kind;
    void *target;        /* int*, int64_t*, uint64_t*, float*, double*, char[] or int* (choice index) */
    size_t target_size;  /* for FLAG_STR */
    const char *choices; /* "a|b|c" for FLAG_CHOICE */
    const char *metavar;
    const char *help;
    double min, max;     /* numeric range, inclusive (ignored when min > max) */
} flag_t;

/* Parses argv[0..argc) against flags[nflags]. Sets *help when --help is
 * seen. Returns GS_OK or GS_EINPUT with err filled. */
int cli_parse(const char *cmd, const flag_t *flags, int nflags, int argc, char **argv, int *help, gs_err_t *err);
/* Prints "  --name METAVAR   help (default: current value)" for each flag. */
void cli_print_help(const char *usage, const flag_t *flags, int nflags);

#endif
