/* part_model_file.h - ROC's learned cost model on disk, so that a model
 * learned on one graph cuts another from its first epoch (ROC Fig. 9:
 * the model is reused on unseen graphs). Text, one layer a line:
 *   gnnscope-partition-model 1
 *   layers L
 *   layer l d_in D w W1 W2 W3 W4 W5
 * the weights of the five features (partitioner.h) in seconds per unit.
 * D, the width the model was learned at, is for the reader: the fifth
 * feature carries each run's own width, so the weights apply at another.
 * Reading refuses a malformed file naming its line and field; writing is
 * atomic (temporary file, fsync, rename). Limits: the weights carry over,
 * the samples do not (the new graph's own refit replaces them). */
#ifndef GS_PART_MODEL_FILE_H
#define GS_PART_MODEL_FILE_H

#include "base/error.h"
#include "partitioner.h"

int part_model_write(const roc_model_t *m, const char *path, gs_err_t *err);
/* Reads path's weights into m (set up for the run's program, whose layer
 * count the file must have); m counts as fitted. GS_EINPUT on a bad file. */
int part_model_read(roc_model_t *m, const char *path, gs_err_t *err);

#endif
