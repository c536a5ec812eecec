/* json_flat.c - see json_flat.h: a recursive-descent reader that stores
 * what it meets under dotted paths. */
#include "json_flat.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s;
    size_t len, at;
    json_flat_t *out;
    char *why;
    size_t whylen;
    int failed, depth;
} reader_t;

static int fail(reader_t *r, const char *fmt, ...)
{
    if (r->failed) return -1;
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->why, r->whylen, "byte %zu: %s", r->at + 1, what);
    r->failed = 1;
    return -1;
}

static void skip_ws(reader_t *r)
{
    while (r->at < r->len && strchr(" \t\r\n", r->s[r->at]) && r->s[r->at])
        r->at++;
}

static int peek(reader_t *r)
{
    skip_ws(r);
    return r->at < r->len ? (unsigned char)r->s[r->at] : -1;
}

static int expect(reader_t *r, char c)
{
    if (peek(r) != c) return fail(r, "expected '%c'", c);
    r->at++;
    return 0;
}

/* A string into buf (cap bytes with its NUL); the escapes \" \\ \/ are
 * unescaped, others kept as written; control characters refused. */
static int read_string(reader_t *r, char *buf, size_t cap)
{
    if (expect(r, '"')) return -1;
    size_t n = 0;
    while (r->at < r->len && r->s[r->at] != '"') {
        char c = r->s[r->at++];
        if ((unsigned char)c < 0x20) return fail(r, "a control character in a string");
        if (c == '\\') {
            if (r->at >= r->len) break;
            char e = r->s[r->at++];
            if (e == '"' || e == '\\' || e == '/')
                c = e;
            else if (n + 1 < cap)
                buf[n++] = '\\', c = e;
        }
        if (n + 1 >= cap) return fail(r, "a string longer than %zu bytes", cap - 1);
        buf[n++] = c;
    }
    if (r->at >= r->len) return fail(r, "an unterminated string");
    r->at++;
    buf[n] = '\0';
    return 0;
}

static int read_number(reader_t *r, double *v)
{
    char tmp[64];
    size_t n = 0;
    skip_ws(r);
    while (r->at + n < r->len && n < sizeof tmp - 1 && strchr("+-0123456789.eE", r->s[r->at + n]) && r->s[r->at + n])
        n++;
    memcpy(tmp, r->s + r->at, n);
    tmp[n] = '\0';
    char *end;
    *v = strtod(tmp, &end);
    if (n == 0 || end != tmp + n) return fail(r, "expected a value");
    r->at += n;
    return 0;
}

static json_pair_t *add(reader_t *r, const char *path)
{
    if (!path) return NULL;
    if (r->out->n >= JSON_FLAT_MAX) {
        fail(r, "more than %d values", JSON_FLAT_MAX);
        return NULL;
    }
    json_pair_t *p = &r->out->pair[r->out->n++];
    memset(p, 0, sizeof *p);
    snprintf(p->path, sizeof p->path, "%s", path);
    return p;
}

static int read_value(reader_t *r, const char *path);

/* An object's members under path (NULL: checked, not stored). */
static int read_object(reader_t *r, const char *path)
{
    if (expect(r, '{')) return -1;
    if (peek(r) == '}') return r->at++, 0;
    for (;;) {
        char key[JSON_FLAT_PATH], child[JSON_FLAT_PATH];
        if (read_string(r, key, sizeof key) || expect(r, ':')) return -1;
        if (path && snprintf(child, sizeof child, "%s%s%s", path, *path ? "." : "", key) >= (int)sizeof child)
            return fail(r, "a path longer than %d bytes", JSON_FLAT_PATH - 1);
        if (read_value(r, path ? child : NULL)) return -1;
        int c = peek(r);
        if (c == '}') return r->at++, 0;
        if (c != ',') return fail(r, "expected ',' or '}'");
        r->at++;
    }
}

/* An array: its last element kept under path[-1] when it is a number. */
static int read_array(reader_t *r, const char *path)
{
    if (expect(r, '[')) return -1;
    double last = 0;
    int numbers = 1, count = 0;
    if (peek(r) != ']')
        for (;;) {
            int c = peek(r);
            if (c == '-' || (c >= '0' && c <= '9')) {
                if (read_number(r, &last)) return -1;
            } else {
                numbers = 0;
                if (read_value(r, NULL)) return -1;
            }
            count++;
            c = peek(r);
            if (c == ']') break;
            if (c != ',') return fail(r, "expected ',' or ']'");
            r->at++;
        }
    r->at++;
    char child[JSON_FLAT_PATH];
    if (path && numbers && count > 0) {
        if (snprintf(child, sizeof child, "%s[-1]", path) >= (int)sizeof child) return fail(r, "a path too long");
        json_pair_t *p = add(r, child);
        if (!p) return -1;
        p->num = last;
    }
    return 0;
}

static int read_value(reader_t *r, const char *path)
{
    if (++r->depth > 16) return fail(r, "nested deeper than 16");
    int c = peek(r), rc = 0;
    if (c == '{')
        rc = read_object(r, path);
    else if (c == '[')
        rc = read_array(r, path);
    else if (c == '"') {
        char text[JSON_FLAT_TEXT];
        rc = read_string(r, text, sizeof text);
        json_pair_t *p = rc || !path ? NULL : add(r, path);
        if (p)
            p->is_text = 1, snprintf(p->text, sizeof p->text, "%s", text);
        else if (!rc && path)
            rc = -1;
    } else if (c == 't' || c == 'f' || c == 'n') {
        const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
        size_t n = strlen(word);
        if (r->at + n > r->len || strncmp(r->s + r->at, word, n) != 0) return fail(r, "expected a value");
        r->at += n;
        json_pair_t *p = c == 'n' || !path ? NULL : add(r, path);
        if (p)
            p->num = c == 't';
        else if (c != 'n' && path)
            rc = -1;
    } else {
        double v;
        rc = read_number(r, &v);
        json_pair_t *p = rc || !path ? NULL : add(r, path);
        if (p)
            p->num = v;
        else if (!rc && path)
            rc = -1;
    }
    r->depth--;
    return rc;
}

int json_flat_parse(const char *text, size_t len, json_flat_t *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    out->pair = malloc(sizeof(json_pair_t) * JSON_FLAT_MAX);
    if (!out->pair) return snprintf(why, whylen, "out of memory"), -1;
    reader_t r = {text, len, 0, out, why, whylen, 0, 0};
    if (peek(&r) != '{')
        fail(&r, "expected a JSON object");
    else if (!read_value(&r, "") && peek(&r) != -1)
        fail(&r, "text after the object");
    if (!r.failed) return 0;
    json_flat_free(out);
    return -1;
}

void json_flat_free(json_flat_t *j)
{
    free(j->pair);
    j->pair = NULL, j->n = 0;
}

const json_pair_t *json_flat_get(const json_flat_t *j, const char *path)
{
    for (int i = 0; i < j->n; i++)
        if (strcmp(j->pair[i].path, path) == 0) return &j->pair[i];
    return NULL;
}
