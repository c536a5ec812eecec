/* checkpoint.c - trainer checkpoints. Layout: a fixed header (magic,
 * version, model and dataset shape, epoch, Adam step, best scores), then
 * for every parameter its name, shape, weights and Adam moments, then a
 * checksum (checksum.h) of everything before it; nothing may follow.
 * Written atomically. Reading verifies the checksum before believing any
 * field. Resuming restores the exact state, so the loss sequence
 * continues unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "base/atomic_file.h"
#include "base/checksum.h"
#include "base/membudget.h"
#include "checkpoint.h"

#define CKPT_MAGIC "GNSCKPT"
#define CKPT_VERSION 2u

typedef struct {
    char magic[8];
    uint32_t version, nparams;
    char model[32];
    int32_t layers, heads;
    int64_t hidden, n, f, c, m;
    uint64_t seed;
    int64_t epoch, adam_t, best_epoch;
    double best_val, test_at_best;
} ckpt_header_t;

static void fill_header(const trainer_t *t, ckpt_header_t *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, CKPT_MAGIC, 8);
    h->version = CKPT_VERSION;
    h->nparams = (uint32_t)t->model.params.n;
    snprintf(h->model, sizeof h->model, "%s", t->cfg.model);
    h->layers = t->cfg.layers, h->heads = t->cfg.heads, h->hidden = t->cfg.hidden;
    h->n = t->data.g.n, h->f = t->data.ds.f, h->c = t->data.ds.c, h->m = t->data.g.m, h->seed = t->cfg.seed;
    h->epoch = t->epoch, h->adam_t = t->model.adam_t, h->best_epoch = t->best_epoch;
    h->best_val = t->best_val, h->test_at_best = t->test_at_best;
}

/* Bytes of a checkpoint of ps: header, each parameter (name, shape,
 * weights and Adam's two moments), then the checksum. */
static size_t ckpt_bytes(const params_t *ps)
{
    size_t bytes = sizeof(ckpt_header_t) + sizeof(uint64_t);
    for (int i = 0; i < ps->n; i++) bytes += sizeof ps->names[i] + 2 * sizeof(int64_t) + 3 * tensor_bytes(&ps->w[i]);
    return bytes;
}

int trainer_save(const trainer_t *t, const char *path, gs_err_t *err)
{
    const params_t *ps = &t->model.params;
    size_t bytes = ckpt_bytes(ps), at = 0;
    char *buf = malloc(bytes);
    if (!buf) return gs_fail(err, GS_EFAIL, "%s: out of memory for the checkpoint", path);
    ckpt_header_t h;
    fill_header(t, &h);
    memcpy(buf, &h, sizeof h), at += sizeof h;
    for (int i = 0; i < ps->n; i++) {
        int64_t shape[2] = {ps->w[i].rows, ps->w[i].cols};
        memcpy(buf + at, ps->names[i], sizeof ps->names[i]), at += sizeof ps->names[i];
        memcpy(buf + at, shape, sizeof shape), at += sizeof shape;
        const tensor_t *parts[3] = {&ps->w[i], &ps->m[i], &ps->v[i]};
        for (int k = 0; k < 3; k++, at += tensor_bytes(&ps->w[i])) /* parameters may live on a GPU */
            ps->kp.K->download(ps->kp.cx, buf + at, parts[k]->data, tensor_bytes(parts[k]));
    }
    uint64_t sum = gs_checksum(GS_CHECKSUM_SEED, buf, at);
    memcpy(buf + at, &sum, sizeof sum);
    char tmp[4200];
    FILE *f = atomic_fopen(path, tmp, sizeof tmp, err);
    int rc = f ? GS_OK : err->code;
    if (f) {
        fwrite(buf, bytes, 1, f); /* a short write sets the stream's error, which atomic_fclose reports */
        rc = atomic_fclose(f, tmp, path, err);
    }
    free(buf);
    return rc;
}

#define MISMATCH(field, fmt, a, b)                                                                          \
    gs_fail(err, GS_EINPUT, "%s: checkpoint was made with %s " fmt ", this run has " fmt, path, field, a, b)

/* The whole file in memory, its checksum verified before any field is
 * believed (a flipped byte must not read as another model's setting). */
static char *read_verified(const char *path, size_t *size, gs_err_t *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        gs_fail(err, GS_EINPUT, "%s: cannot open checkpoint", path);
        return NULL;
    }
    struct stat st;
    char *buf = NULL;
    ckpt_header_t h;
    if (fstat(fileno(f), &st) != 0 || (size_t)st.st_size < sizeof h + sizeof(uint64_t) || fread(&h, sizeof h, 1, f) != 1 ||
        memcmp(h.magic, CKPT_MAGIC, 8) != 0)
        gs_fail(err, GS_EINPUT, "%s: not a gnnscope checkpoint", path);
    else if (h.version != CKPT_VERSION)
        gs_fail(err, GS_EINPUT, "%s: checkpoint version %u, this build reads %u", path, h.version, CKPT_VERSION);
    else if (!gs_mem_check((double)st.st_size, "reading the checkpoint", err)) {
        *size = (size_t)st.st_size;
        buf = malloc(*size);
        rewind(f);
        uint64_t sum;
        if (!buf) gs_fail(err, GS_EFAIL, "%s: out of memory", path);
        else if (fread(buf, *size, 1, f) != 1) gs_fail(err, GS_EINPUT, "%s: checkpoint is truncated", path);
        else if (memcpy(&sum, buf + *size - sizeof sum, sizeof sum), sum != gs_checksum(GS_CHECKSUM_SEED, buf, *size - sizeof sum))
            gs_fail(err, GS_EINPUT, "%s: checkpoint is corrupt or truncated (checksum mismatch)", path);
        else {
            fclose(f);
            return buf;
        }
    }
    free(buf);
    fclose(f);
    return NULL;
}

int trainer_resume(trainer_t *t, const char *path, gs_err_t *err)
{
    size_t size;
    char *buf = read_verified(path, &size, err);
    if (!buf) return err->code;
    ckpt_header_t h, want;
    int rc = GS_EINPUT;
    fill_header(t, &want);
    memcpy(&h, buf, sizeof h);
    h.model[sizeof h.model - 1] = '\0';
    params_t *ps = &t->model.params;
    if (strcmp(h.model, want.model)) { MISMATCH("--model", "%s", h.model, want.model); goto done; }
    if (h.layers != want.layers) { MISMATCH("--layers", "%d", h.layers, want.layers); goto done; }
    if (h.hidden != want.hidden) { MISMATCH("--hidden", "%lld", (long long)h.hidden, (long long)want.hidden); goto done; }
    if (prog_uses_heads(&t->model.prog) && h.heads != want.heads) { /* --heads shapes attention models only */
        MISMATCH("--heads", "%d", h.heads, want.heads);
        goto done;
    }
    if (h.n != want.n || h.m != want.m || h.f != want.f || h.c != want.c) {
        gs_fail(err, GS_EINPUT, "%s: checkpoint is for a different dataset (%lld nodes, %lld edges)", path,
                (long long)h.n, (long long)h.m);
        goto done;
    }
    if (h.nparams != want.nparams || size != ckpt_bytes(ps)) {
        gs_fail(err, GS_EINPUT, "%s: checkpoint holds %u parameters (%zu bytes), this model has %u (%zu bytes)", path,
                h.nparams, size, want.nparams, ckpt_bytes(ps));
        goto done;
    }
    size_t at = sizeof h;
    for (int i = 0; i < ps->n; at += sizeof ps->names[i] + 2 * sizeof(int64_t) + 3 * tensor_bytes(&ps->w[i]), i++) {
        int64_t shape[2];
        memcpy(shape, buf + at + sizeof ps->names[i], sizeof shape);
        if (shape[0] != ps->w[i].rows || shape[1] != ps->w[i].cols || memcmp(buf + at, ps->names[i], sizeof ps->names[i])) {
            gs_fail(err, GS_EINPUT, "%s: parameter %d (%.32s) does not match this model", path, i, buf + at);
            goto done;
        }
    }
    at = sizeof h;
    for (int i = 0; i < ps->n; i++) {
        at += sizeof ps->names[i] + 2 * sizeof(int64_t);
        tensor_t *parts[3] = {&ps->w[i], &ps->m[i], &ps->v[i]};
        for (int k = 0; k < 3; k++, at += tensor_bytes(&ps->w[i]))
            ps->kp.K->upload(ps->kp.cx, parts[k]->data, buf + at, tensor_bytes(parts[k]));
    }
    t->epoch = h.epoch, t->model.adam_t = h.adam_t, t->best_epoch = h.best_epoch;
    t->best_val = h.best_val, t->test_at_best = h.test_at_best;
    t->cfg.seed = t->ex.seed = h.seed; /* dropout masks continue the saved run's */
    rc = GS_OK;
done:
    free(buf);
    return rc;
}
