/* stream_cli.h - streaming flags and JSON for `gnnscope train`. */
#ifndef GS_STREAM_CLI_H
#define GS_STREAM_CLI_H

#include "../engine/train.h"

/* The --backend choices, in the flag table's order (-1: not given). */
enum { BACKEND_UNSET = -1, BACKEND_MEMORY, BACKEND_CPU, BACKEND_CUDA, BACKEND_AUTO };

/* Fills cfg->stream, device, device_mem, chunks and link_scale; GS_EINPUT
 * with err on a bad value. auto picks cuda when a GPU answers, and says
 * on stderr why not otherwise. */
int apply_stream_flags(train_cfg_t *cfg, int argc, char **argv, int backend, const char *device_mem, const char *chunks,
                       const char *link_scale, gs_err_t *err);
/* Appends the streaming fields to the JSON object being printed. */
void print_stream_json(const trainer_t *t, const epoch_stats_t *last, double epoch_s);

#endif
