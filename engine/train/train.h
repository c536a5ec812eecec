/* train.h - the trainer as the app uses it: open a run (its data, place,
 * model, and the driver of its mode), step it epoch by epoch, close it;
 * checkpoints (checkpoint.h) and knob changes (knobs.h) go through here
 * too. The epoch loop of every front end (the CLI's `train`, the
 * session's engine thread, a rank following rank 0) is trainer_next:
 * at each boundary a distributed run first agrees rank 0's stop decision
 * and knob changes, then the knob changes apply, the driver re-cuts and
 * the epoch runs. Training is softmax cross-entropy on the train split,
 * Adam with L2 weight decay as torch.optim.Adam, counter-based dropout,
 * evaluation on train/valid/test and best-validation tracking. */
#ifndef GS_TRAIN_H
#define GS_TRAIN_H

#include "checkpoint.h"
#include "knobs.h"
#include "trainer.h"

/* Opens a run of cfg in env (a copy of each is kept). On failure the
 * trainer is left for trainer_close. */
int trainer_open(trainer_t *t, const train_cfg_t *cfg, const train_env_t *env, gs_err_t *err);
void trainer_close(trainer_t *t);
/* One epoch plus evaluation: pending knob changes applied (a change of
 * mode switches the driver), the driver's boundary work, its epoch. */
int trainer_epoch(trainer_t *t, epoch_stats_t *st, gs_err_t *err);
/* The epoch loop's step: at the boundary the ranks of a distributed run
 * agree rank 0's stop (stop is this process's wish; rank 0's wins); then,
 * unless stopping (*stopped = 1), one epoch. */
int trainer_next(trainer_t *t, int stop, int *stopped, epoch_stats_t *st, gs_err_t *err);

#endif
