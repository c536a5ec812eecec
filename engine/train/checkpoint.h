/* checkpoint.h - a trainer's checkpoints: the model part (parameters,
 * Adam state) and the progress (epoch, best scores), saved atomically;
 * resuming checks that the model and dataset match and restores the exact
 * state, so the loss sequence continues unchanged. */
#ifndef GS_CHECKPOINT_H
#define GS_CHECKPOINT_H

#include "trainer.h"

int trainer_save(const trainer_t *t, const char *path, gs_err_t *err);
int trainer_resume(trainer_t *t, const char *path, gs_err_t *err);

#endif
