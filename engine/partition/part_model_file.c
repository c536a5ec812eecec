/* part_model_file.c - see part_model_file.h. */
#include "part_model_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"

#define MAGIC "gnnscope-partition-model 1"

int part_model_write(const roc_model_t *m, const char *path, gs_err_t *err)
{
    char tmp[4200];
    FILE *f = atomic_fopen(path, tmp, sizeof tmp, err);
    if (!f) return GS_EINPUT;
    fprintf(f, "%s\nlayers %d\n", MAGIC, m->nlayers);
    for (int l = 0; l < m->nlayers; l++) {
        fprintf(f, "layer %d d_in %lld w", l, (long long)m->d_in[l]);
        for (int i = 0; i < ROC_NFEAT; i++) fprintf(f, " %.17g", m->w[l][i]);
        fputc('\n', f);
    }
    return atomic_fclose(f, tmp, path, err);
}

/* A bad line: the file, the line and the field. */
static int bad(gs_err_t *err, const char *path, int line, const char *field, const char *why)
{
    return gs_fail(err, GS_EINPUT, "%s:%d: %s: %s", path, line, field, why);
}

/* A finite number >= 0 (or, for ints, a whole number in [lo, hi]). */
static int number(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* "layer l d_in D w W1..W5" into m's layer l. */
static int read_layer(roc_model_t *m, char *line, const char *path, int at, int want, gs_err_t *err)
{
    char *tok[16];
    int n = 0;
    for (char *s = strtok(line, " \t\n"); s && n < 16; s = strtok(NULL, " \t\n")) tok[n++] = s;
    if (n != 5 + ROC_NFEAT || strcmp(tok[0], "layer") || strcmp(tok[2], "d_in") || strcmp(tok[4], "w"))
        return bad(err, path, at, "layer", "expected 'layer L d_in D w' and 5 weights");
    double l, d, w[ROC_NFEAT];
    if (number(tok[1], want, want, &l)) return bad(err, path, at, "layer", "layers must be listed 0, 1, ... in order");
    if (number(tok[3], 1, 1e9, &d) || d != floor(d)) return bad(err, path, at, "d_in", "not a whole number in [1, 1e9]");
    for (int i = 0; i < ROC_NFEAT; i++)
        if (number(tok[5 + i], 0, 1e6, &w[i])) return bad(err, path, at, "w", "a weight is not a number in [0, 1e6]");
    memcpy(m->w[want], w, sizeof w);
    return GS_OK;
}

int part_model_read(roc_model_t *m, const char *path, gs_err_t *err)
{
    FILE *f = fopen(path, "r");
    if (!f) return gs_fail(err, GS_EINPUT, "--partition-model %s: %s", path, strerror(errno));
    char line[1024];
    int at = 0, rc = GS_OK, layers = -1, got = 0;
    double v;
    while (!rc && fgets(line, sizeof line, f)) {
        at++;
        if (!strchr(line, '\n') && !feof(f)) rc = bad(err, path, at, "line", "longer than 1023 bytes");
        else if (at == 1) rc = strncmp(line, MAGIC, strlen(MAGIC)) ? bad(err, path, at, "header", "not '" MAGIC "'") : GS_OK;
        else if (at == 2) {
            char *count = strncmp(line, "layers ", 7) ? NULL : strtok(line + 7, " \t\n");
            if (!count || number(count, 1, PROG_MAX_LAYERS, &v) || v != floor(v))
                rc = bad(err, path, at, "layers", "expected 'layers L', L a whole number in [1, 64]");
            else if ((layers = (int)v) != m->nlayers)
                rc = gs_fail(err, GS_EINPUT, "%s:%d: layers: the model was learned for %d layers, this run's program has %d", path, at,
                             layers, m->nlayers);
        } else if (got >= layers) rc = bad(err, path, at, "layer", "more layers than 'layers' says");
        else rc = read_layer(m, line, path, at, got++, err);
    }
    if (!rc && ferror(f)) rc = gs_fail(err, GS_EINPUT, "--partition-model %s: read error", path);
    if (!rc && got < layers) rc = bad(err, path, at, "layer", "fewer layers than 'layers' says");
    if (!rc && layers < 0) rc = bad(err, path, at, "header", "the file ends before 'layers L'");
    fclose(f);
    if (!rc) m->fitted = 1;
    return rc;
}
