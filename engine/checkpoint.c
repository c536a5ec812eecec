/* checkpoint.c - trainer checkpoints. Layout: a fixed header (magic,
 * version, model and dataset shape, epoch, Adam step, best scores), then
 * for every parameter its name, shape, weights and Adam moments, then an
 * FNV-1a checksum of everything before it. Written atomically. Resuming
 * restores the exact state, so the loss sequence continues unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "train.h"

#define CKPT_MAGIC "GNSCKPT"
#define CKPT_VERSION 1u

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

typedef struct {
    FILE *f;
    uint64_t h;
    int bad;
} hashed_io_t;

static void hio_write(hashed_io_t *io, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) io->h = (io->h ^ b[i]) * 0x100000001b3ULL;
    if (n && fwrite(p, n, 1, io->f) != 1) io->bad = 1;
}

static int hio_read(hashed_io_t *io, void *p, size_t n)
{
    if (n && fread(p, n, 1, io->f) != 1) return -1;
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) io->h = (io->h ^ b[i]) * 0x100000001b3ULL;
    return 0;
}

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

int trainer_save(const trainer_t *t, const char *path, gs_err_t *err)
{
    char tmp[4200];
    FILE *f = atomic_fopen(path, tmp, sizeof tmp, err);
    if (!f) return err->code;
    hashed_io_t io = {f, 0xcbf29ce484222325ULL, 0};
    ckpt_header_t h;
    fill_header(t, &h);
    hio_write(&io, &h, sizeof h);
    const params_t *ps = &t->model.params;
    for (int i = 0; i < ps->n && !io.bad; i++) {
        int64_t shape[2] = {ps->w[i].rows, ps->w[i].cols};
        size_t bytes = tensor_bytes(&ps->w[i]);
        float *host = malloc(bytes ? bytes : 1); /* parameters may live on a GPU */
        if (!host) {
            io.bad = 1;
            break;
        }
        hio_write(&io, ps->names[i], sizeof ps->names[i]);
        hio_write(&io, shape, sizeof shape);
        const tensor_t *parts[3] = {&ps->w[i], &ps->m[i], &ps->v[i]};
        for (int k = 0; k < 3; k++) {
            ps->kp.K->download(ps->kp.cx, host, parts[k]->data, bytes);
            hio_write(&io, host, bytes);
        }
        free(host);
    }
    uint64_t sum = io.h;
    if (io.bad || fwrite(&sum, sizeof sum, 1, f) != 1) io.bad = 1;
    if (io.bad) {
        fclose(f);
        remove(tmp);
        return gs_fail(err, GS_EFAIL, "%s: write failed", path);
    }
    return atomic_fclose(f, tmp, path, err);
}

#define MISMATCH(field, fmt, a, b)                                                                          \
    gs_fail(err, GS_EINPUT, "%s: checkpoint was made with %s " fmt ", this run has " fmt, path, field, a, b)

int trainer_resume(trainer_t *t, const char *path, gs_err_t *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return gs_fail(err, GS_EINPUT, "%s: cannot open checkpoint", path);
    hashed_io_t io = {f, 0xcbf29ce484222325ULL, 0};
    float *staged = NULL;
    ckpt_header_t h, want;
    int rc = GS_EINPUT;
    fill_header(t, &want);
    if (hio_read(&io, &h, sizeof h) || memcmp(h.magic, CKPT_MAGIC, 8) != 0) {
        gs_fail(err, GS_EINPUT, "%s: not a gnnscope checkpoint", path);
        goto done;
    }
    if (h.version != CKPT_VERSION) {
        gs_fail(err, GS_EINPUT, "%s: checkpoint version %u, this build reads %u", path, h.version, CKPT_VERSION);
        goto done;
    }
    h.model[sizeof h.model - 1] = '\0';
    if (strcmp(h.model, want.model)) { MISMATCH("--model", "%s", h.model, want.model); goto done; }
    if (h.layers != want.layers) { MISMATCH("--layers", "%d", h.layers, want.layers); goto done; }
    if (h.hidden != want.hidden) { MISMATCH("--hidden", "%lld", (long long)h.hidden, (long long)want.hidden); goto done; }
    if (h.heads != want.heads) { MISMATCH("--heads", "%d", h.heads, want.heads); goto done; }
    if (h.n != want.n || h.m != want.m || h.f != want.f || h.c != want.c) {
        gs_fail(err, GS_EINPUT, "%s: checkpoint is for a different dataset (%lld nodes, %lld edges)", path,
                (long long)h.n, (long long)h.m);
        goto done;
    }
    if (h.nparams != want.nparams) { MISMATCH("parameter count", "%u", h.nparams, want.nparams); goto done; }
    params_t *ps = &t->model.params;
    int64_t total = params_count(ps);
    staged = malloc(sizeof(float) * (size_t)(3 * total + 1)); /* uploaded only once the checksum holds */
    if (!staged) {
        gs_fail(err, GS_EFAIL, "%s: out of memory", path);
        goto done;
    }
    int64_t off = 0;
    for (int i = 0; i < ps->n; i++) {
        char name[32];
        int64_t shape[2];
        if (hio_read(&io, name, sizeof name) || hio_read(&io, shape, sizeof shape)) goto truncated;
        if (shape[0] != ps->w[i].rows || shape[1] != ps->w[i].cols || memcmp(name, ps->names[i], sizeof name)) {
            gs_fail(err, GS_EINPUT, "%s: parameter %d (%.32s) does not match this model", path, i, name);
            goto done;
        }
        for (int k = 0; k < 3; k++, off += tensor_numel(&ps->w[i]))
            if (hio_read(&io, staged + off, tensor_bytes(&ps->w[i]))) goto truncated;
    }
    uint64_t sum, expect = io.h;
    if (fread(&sum, sizeof sum, 1, f) != 1) goto truncated;
    if (sum != expect) {
        gs_fail(err, GS_EINPUT, "%s: checkpoint is corrupt (checksum mismatch)", path);
        goto done;
    }
    off = 0;
    for (int i = 0; i < ps->n; i++) {
        tensor_t *parts[3] = {&ps->w[i], &ps->m[i], &ps->v[i]};
        for (int k = 0; k < 3; k++, off += tensor_numel(&ps->w[i]))
            ps->kp.K->upload(ps->kp.cx, parts[k]->data, staged + off, tensor_bytes(parts[k]));
    }
    t->epoch = h.epoch, t->model.adam_t = h.adam_t, t->best_epoch = h.best_epoch;
    t->best_val = h.best_val, t->test_at_best = h.test_at_best;
    t->cfg.seed = t->ex.seed = h.seed; /* dropout masks continue the saved run's */
    rc = GS_OK;
    goto done;
truncated:
    gs_fail(err, GS_EINPUT, "%s: checkpoint is truncated", path);
done:
    free(staged);
    fclose(f);
    return rc;
}
