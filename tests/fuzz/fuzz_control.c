/* fuzz_control.c - libFuzzer harness for the distributed engine's control
 * message (rank 0's stop decision and knob changes, parsed on every other
 * rank at each epoch boundary; engine/train/driver_dist.h): the input is the message.
 * It is applied to a trainer's configuration or refused; a refused one
 * changes nothing, and whatever is accepted passes the knob table's checks. */
#include "engine/train/train.h"
#include "engine/train/driver_dist.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static trainer_t t;
    char msg[2048];
    size_t n = size < sizeof msg - 1 ? size : sizeof msg - 1;
    memcpy(msg, data, n);
    msg[n] = '\0';
    memset(&t, 0, sizeof t);
    train_cfg_defaults(&t.cfg);
    train_cfg_t before = t.cfg;
    int stop = 7;
    gs_err_t err;
    int rc = dist_control_apply(&t, msg, &stop, &err);
    if (rc != GS_OK && rc != GS_EINPUT) abort();
    if (rc == GS_OK && stop != 0 && stop != 1) abort();
    if (rc != GS_OK && t.has_pending) abort(); /* refused: nothing pending */
    if (rc == GS_OK && t.has_pending) {
        const train_cfg_t *p = &t.pending;
        if (!(p->dep_ratio == -1 || (p->dep_ratio >= 0 && p->dep_ratio <= 1)) || (int)p->dep < 0 || p->dep > DEP_HYBRID) abort();
    }
    (void)before;
    return 0;
}
