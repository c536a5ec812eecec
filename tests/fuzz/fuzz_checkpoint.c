/* fuzz_checkpoint.c - libFuzzer harness for the checkpoint reader: the
 * first byte picks the trainer it is read into (GCN, or GAT, whose heads
 * shape it), the rest is the checkpoint file. Both trainers are opened
 * once, on a tiny generated graph. A checkpoint resumes or is refused. */
#include "engine/train/train.h"
#include "fuzz_util.h"

static trainer_t trainers[2];

static void open_trainer(trainer_t *t, const char *model)
{
    train_cfg_t c;
    gs_err_t err;
    train_cfg_defaults(&c);
    snprintf(c.dataset, sizeof c.dataset, "gen:nodes=64,degree=4,feats=8,classes=3,seed=1");
    snprintf(c.model, sizeof c.model, "%s", model);
    c.threads = 1, c.hidden = 4, c.heads = 2;
    if (trainer_open(t, &c, NULL, &err)) {
        fprintf(stderr, "fuzz_checkpoint: %s\n", err.msg);
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_dir();
    open_trainer(&trainers[0], "gcn");
    open_trainer(&trainers[1], "gat");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    fuzz_write("x.ckpt", data + 1, size - 1);
    char path[512];
    snprintf(path, sizeof path, "%s/x.ckpt", fuzz_dir());
    gs_err_t err;
    int rc = trainer_resume(&trainers[data[0] & 1], path, &err);
    if (rc != GS_OK && rc != GS_EINPUT) abort();
    return 0;
}
