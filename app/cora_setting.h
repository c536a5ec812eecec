/* cora_setting.h - the workbench's Cora setting. On Cora, on the
 * workbench's own machine, five knobs start where each key's effect is
 * large: the 1433-wide gather streamed (DKP off, key 7), selective
 * scheduling off (key 1), METIS order (key 5: none, random), and 24
 * chunks in a 4 MB cap, which leaves the memory plan room to keep tensors
 * (key 6). It is tuned to Cora: on another dataset these knobs stand
 * where `gnnscope train` starts them (a 4 MB cap in 24 chunks refused
 * amazon's shape), and on a named machine (--topology) the setting never
 * applies, so a paper's machine keeps its GPUs' memory. The setting owns
 * a knob until the user gives it: on the command line, or with the
 * console's `set` (or a key); the console's `load` then moves the knobs
 * it still owns to the new dataset's starting values. */
#ifndef GS_CORA_SETTING_H
#define GS_CORA_SETTING_H

#include "engine/train/train.h"

/* The knobs the setting owns when the workbench starts with these
 * arguments: none with --topology, else those not given. A bit a knob. */
unsigned cora_setting_owned(int argc, char **argv);
/* The bit of the knob named knob (a console name), 0 for the others. */
unsigned cora_setting_bit(const char *knob);
/* Each knob in owned at the setting's value when cfg's dataset is Cora,
 * else at train's default. */
void cora_setting_apply(train_cfg_t *cfg, unsigned owned);

#endif
