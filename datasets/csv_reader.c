/* csv_reader.c - buffered gz/plain line reader and strict field parsers.
 * Lines may be up to 256 MiB; longer lines are rejected. */
#include "csv_reader.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define MAX_LINE (256u << 20)

struct csv_reader {
    gzFile gz;
    char path[4096];
    char *buf;
    size_t cap, len, pos; /* valid bytes [pos, len) */
    int eof;
    int64_t lineno;
};

/* A field as it may appear in a message: at most 40 bytes, control and
 * non-ASCII bytes as '?', so a binary file never reaches the terminal. */
static const char *shown(const char *s, char out[48])
{
    int i = 0;
    for (; s[i] && i < 40; i++) out[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
    out[i] = '\0';
    return out;
}

int csv_error(csv_reader_t *r, gs_err_t *err, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gs_fail(err, GS_EINPUT, "%s:%lld: %s", r->path, (long long)(r->lineno ? r->lineno : 1), what);
}

int csv_open(csv_reader_t **out, const char *path, gs_err_t *err)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) return gs_fail(err, GS_EINPUT, "%s: missing file (%s)", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return gs_fail(err, GS_EINPUT, "%s: is a directory, expected a file", path);
    if (!S_ISREG(st.st_mode)) return gs_fail(err, GS_EINPUT, "%s: not a regular file (a FIFO or a device)", path);
    size_t plen = strlen(path);
    if (plen > 3 && strcmp(path + plen - 3, ".gz") == 0) { /* zlib would read anything else as plain text */
        unsigned char magic[2] = {0, 0};
        FILE *f = fopen(path, "rb");
        size_t got = f ? fread(magic, 1, 2, f) : 0;
        if (f) fclose(f);
        if (got == 2 && (magic[0] != 0x1f || magic[1] != 0x8b))
            return gs_fail(err, GS_EINPUT, "%s: not gzip-compressed (its name ends in .gz; it starts with bytes %02x %02x)",
                           path, magic[0], magic[1]);
    }
    csv_reader_t *r = calloc(1, sizeof *r);
    if (!r) return gs_fail(err, GS_EFAIL, "out of memory");
    snprintf(r->path, sizeof r->path, "%s", path);
    r->gz = gzopen(path, "rb");
    if (!r->gz) {
        free(r);
        return gs_fail(err, GS_EINPUT, "%s: cannot open (%s)", path, strerror(errno));
    }
    gzbuffer(r->gz, 1u << 18);
    r->cap = 1u << 20;
    r->buf = malloc(r->cap + 1);
    if (!r->buf) {
        gzclose(r->gz);
        free(r);
        return gs_fail(err, GS_EFAIL, "out of memory");
    }
    *out = r;
    return GS_OK;
}

void csv_close(csv_reader_t *r)
{
    if (!r) return;
    gzclose(r->gz);
    free(r->buf);
    free(r);
}

int64_t csv_lineno(const csv_reader_t *r) { return r->lineno; }
const char *csv_path(const csv_reader_t *r) { return r->path; }

/* Moves unread bytes to the front and appends more input. */
static int refill(csv_reader_t *r, gs_err_t *err)
{
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
    }
    if (r->len == r->cap) {
        if (r->cap >= MAX_LINE) return csv_error(r, err, "line longer than %u MiB", MAX_LINE >> 20);
        char *nb = realloc(r->buf, r->cap * 2 + 1);
        if (!nb) return gs_fail(err, GS_EFAIL, "out of memory reading %s", r->path);
        r->buf = nb;
        r->cap *= 2;
    }
    int got = gzread(r->gz, r->buf + r->len, (unsigned)(r->cap - r->len));
    int zerr = Z_OK;
    const char *zmsg = gzerror(r->gz, &zerr);
    if (got < 0 || (zerr != Z_OK && zerr != Z_BUF_ERROR))
        return csv_error(r, err, "corrupt gzip data (%s)", zmsg ? zmsg : "read error");
    if (got == 0) {
        if (zerr == Z_BUF_ERROR) return csv_error(r, err, "truncated gzip file (unexpected end of stream)");
        r->eof = 1;
    }
    r->len += (size_t)got;
    return GS_OK;
}

/* A NUL byte would end the line early when read as a C string: refused (-1). */
static int nul_in_line(csv_reader_t *r, gs_err_t *err)
{
    csv_error(r, err, "a NUL byte in the line");
    return -1;
}

int csv_next_line(csv_reader_t *r, char **line, gs_err_t *err)
{
    for (;;) {
        char *start = r->buf + r->pos;
        char *nl = memchr(start, '\n', r->len - r->pos);
        if (nl) {
            r->lineno++;
            if (memchr(start, '\0', (size_t)(nl - start))) return nul_in_line(r, err);
            *nl = '\0';
            if (nl > start && nl[-1] == '\r') nl[-1] = '\0';
            r->pos = (size_t)(nl - r->buf) + 1;
            *line = start;
            return 1;
        }
        if (r->eof) {
            if (r->pos == r->len) return 0;
            r->lineno++;
            if (memchr(start, '\0', r->len - r->pos)) return nul_in_line(r, err);
            r->buf[r->len] = '\0'; /* last line without newline */
            *line = r->buf + r->pos;
            r->pos = r->len;
            return 1;
        }
        if (refill(r, err) != GS_OK) return -1;
    }
}

static int is_sep(char c, csv_sep_t sep) { return sep == CSV_SEP_COMMA ? c == ',' : (c == ' ' || c == '\t'); }

int csv_count_fields(const char *line, csv_sep_t sep)
{
    if (sep == CSV_SEP_COMMA) {
        int n = 1;
        for (const char *p = line; *p; p++) n += *p == ',';
        return n;
    }
    int n = 0, in = 0;
    for (const char *p = line; *p; p++) {
        if (is_sep(*p, sep)) in = 0;
        else if (!in) {
            in = 1;
            n++;
        }
    }
    return n;
}

/* Splits off the field at *p: returns its start, NUL-terminates it. */
static char *take_field(char **p, csv_sep_t sep)
{
    char *s = *p;
    if (sep == CSV_SEP_SPACE)
        while (is_sep(*s, sep)) s++;
    char *e = s;
    while (*e && !is_sep(*e, sep)) e++;
    if (*e) {
        *e = '\0';
        *p = e + 1;
    } else {
        *p = e;
    }
    return s;
}

static void trim(char **s)
{
    while (isspace((unsigned char)**s)) (*s)++;
    char *e = *s + strlen(*s);
    while (e > *s && isspace((unsigned char)e[-1])) *--e = '\0';
}

int csv_field_i64(csv_reader_t *r, char **p, csv_sep_t sep, int col, const char *name, int64_t *out,
                  gs_err_t *err)
{
    char *s = take_field(p, sep);
    trim(&s);
    if (!*s) return csv_error(r, err, "column %d (%s): empty field", col, name);
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end == '.' ) { /* accept "12.0" style integers written by float writers */
        char *q = end + 1;
        while (*q == '0') q++;
        if (*q == '\0') end = q;
    }
    char buf[48];
    if (*end != '\0') return csv_error(r, err, "column %d (%s): '%s' is not an integer", col, name, shown(s, buf));
    if (errno == ERANGE) return csv_error(r, err, "column %d (%s): '%s' is out of range", col, name, shown(s, buf));
    *out = v;
    return GS_OK;
}

/* Fast decimal parser for the common "[-]digits[.digits][e[-]digits]"
 * form; anything else falls back to strtof. Returns end pointer or NULL. */
static const char *parse_float_fast(const char *s, float *out)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
                                 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
    const char *q = s;
    int neg = 0;
    if (*q == '-' || *q == '+') neg = *q++ == '-';
    uint64_t mant = 0;
    int digits = 0, frac = 0;
    while (*q >= '0' && *q <= '9') {
        if (digits < 18) mant = mant * 10 + (uint64_t)(*q - '0'), digits++;
        else frac--; /* drop excess digits, keep magnitude */
        q++;
    }
    int any = digits > 0 || frac < 0;
    if (*q == '.') {
        q++;
        while (*q >= '0' && *q <= '9') {
            if (digits < 18) mant = mant * 10 + (uint64_t)(*q - '0'), digits++, frac++;
            q++;
            any = 1;
        }
    }
    if (!any) return NULL;
    int ex = 0;
    if (*q == 'e' || *q == 'E') {
        q++;
        int eneg = 0;
        if (*q == '-' || *q == '+') eneg = *q++ == '-';
        if (!(*q >= '0' && *q <= '9')) return NULL;
        while (*q >= '0' && *q <= '9') {
            if (ex < 10000) ex = ex * 10 + (*q - '0');
            q++;
        }
        if (eneg) ex = -ex;
    }
    int e10 = ex - frac;
    double v = (double)mant;
    if (e10 >= -18 && e10 <= 18) v = e10 >= 0 ? v * p10[e10] : v / p10[-e10];
    else return NULL;
    *out = (float)(neg ? -v : v);
    return q;
}

int csv_field_f32(csv_reader_t *r, char **p, csv_sep_t sep, int col, const char *name, float *out,
                  gs_err_t *err)
{
    char *s = take_field(p, sep);
    trim(&s);
    if (!*s) return csv_error(r, err, "column %d (%s): empty field", col, name);
    char buf[48];
    const char *end = parse_float_fast(s, out);
    if (!end || *end) {
        char *e2;
        errno = 0;
        if (strpbrk(s, "xX")) return csv_error(r, err, "column %d (%s): '%s' is not a decimal number", col, name, shown(s, buf));
        *out = strtof(s, &e2);
        if (*e2 != '\0') return csv_error(r, err, "column %d (%s): '%s' is not a number", col, name, shown(s, buf));
        end = e2;
    }
    if (!isfinite(*out)) return csv_error(r, err, "column %d (%s): '%s' is not finite", col, name, shown(s, buf));
    return GS_OK;
}
