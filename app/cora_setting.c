/* cora_setting.c - see cora_setting.h. */
#include "cora_setting.h"

#include <string.h>

#include "cli.h"

enum { DEVICE_MEM, CHUNKS, DKP, ORDER, SELECTIVE, NKNOBS };

static const char *const names[NKNOBS] = {"device-mem", "chunks", "dkp", "order", "selective"};

unsigned cora_setting_owned(int argc, char **argv)
{
    if (cli_given(argc, argv, "topology")) return 0;
    unsigned owned = 0;
    for (int k = 0; k < NKNOBS; k++)
        if (!cli_given(argc, argv, names[k])) owned |= 1u << k;
    return owned;
}

unsigned cora_setting_bit(const char *knob)
{
    for (int k = 0; k < NKNOBS; k++)
        if (strcmp(knob, names[k]) == 0) return 1u << k;
    return 0;
}

void cora_setting_apply(train_cfg_t *cfg, unsigned owned)
{
    train_cfg_t v;
    train_cfg_defaults(&v);
    if (strcmp(cfg->dataset, "cora") == 0)
        v.device_mem = 4 << 20, v.chunks = 24, v.dkp = DKP_OFF, v.order = ORDER_METIS, v.knobs.selective = SEL_OFF;
    if (owned & 1u << DEVICE_MEM) cfg->device_mem = v.device_mem;
    if (owned & 1u << CHUNKS) cfg->chunks = v.chunks;
    if (owned & 1u << DKP) cfg->dkp = v.dkp;
    if (owned & 1u << ORDER) cfg->order = v.order;
    if (owned & 1u << SELECTIVE) cfg->knobs.selective = v.knobs.selective;
}
