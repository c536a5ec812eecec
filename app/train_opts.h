/* train_opts.h - the flags of `gnnscope train`, shared with `gnnscope tui`
 * (which accepts every train flag, plus --max-epochs and --script). */
#ifndef GS_TRAIN_OPTS_H
#define GS_TRAIN_OPTS_H

#include "../engine/train.h"

typedef struct {
    train_cfg_t cfg;
    char checkpoint[4096], resume[4096], trace[4096], metrics[4096], script[4096];
    int json, quiet, profile;
    long max_epochs; /* tui: quit after this many epochs (0 = never) */
} train_opts_t;

/* Parses argv into o (defaults first). GS_EINPUT with err on bad usage. */
int train_opts_parse(const char *cmd, int argc, char **argv, train_opts_t *o, int *help, gs_err_t *err);
/* Prints usage, then every flag with its default. */
void train_opts_help(const char *usage);

#endif
