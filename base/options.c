/* options.c - see options.h. */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static void *field(const opt_t *o, void *base) { return (char *)base + o->off; }
static const void *cfield(const opt_t *o, const void *base) { return (const char *)base + o->off; }

/* Numbers with %g but without an exponent for whole values below 1e15. */
static void num(double v, char *out, size_t n)
{
    if (v == floor(v) && fabs(v) < 1e15) snprintf(out, n, "%.0f", v);
    else snprintf(out, n, "%g", v);
}

void opt_accepts(const opt_t *o, char *out, size_t n)
{
    char lo[32], hi[32], pre[32] = "";
    num(o->lo, lo, sizeof lo), num(o->hi, hi, sizeof hi);
    if (o->zero_word) snprintf(pre, sizeof pre, "%s or ", o->zero_word);
    switch (o->kind) {
    case OPT_BOOL: snprintf(out, n, "no value"); break;
    case OPT_CHOICE: snprintf(out, n, "%s", o->choices); break;
    case OPT_STR:
        snprintf(out, n, "%s%s", o->names ? o->names() : o->metavar, o->flags & OPTF_PATH ? ", or a file's path (with a '/')" : "");
        break;
    case OPT_SIZE: snprintf(out, n, "%sa size in [%s, %s] bytes, e.g. 512K, 64M, 2G", pre, lo, hi); break;
    case OPT_FLOAT:
    case OPT_DOUBLE: snprintf(out, n, "%sa number in [%s, %s]", pre, lo, hi); break;
    case OPT_LIST: snprintf(out, n, "1 to %d comma-separated integers in [%s, %s]", OPT_LIST_MAX, lo, hi); break;
    default: snprintf(out, n, "%san integer in [%s, %s]", pre, lo, hi); break;
    }
}

static int refuse(const opt_t *o, const char *value, const char *what, char *why, size_t n)
{
    char acc[320];
    opt_accepts(o, acc, sizeof acc);
    snprintf(why, n, "'%.64s' %s (expected %s)", value, what, acc);
    return -1;
}

/* A number of the option's kind, checked against its range. */
static int parse_number(const opt_t *o, const char *value, double *out, char *why, size_t n)
{
    char *end;
    errno = 0;
    double v;
    if (o->kind == OPT_SIZE) {
        uint64_t b;
        int rc = gs_parse_bytes(value, &b);
        if (rc == -2) return refuse(o, value, "is not a whole number of bytes", why, n);
        if (rc) return refuse(o, value, "is not a size", why, n);
        v = (double)b;
    } else if (o->kind == OPT_FLOAT || o->kind == OPT_DOUBLE) {
        v = strtod(value, &end);
        if (!*value || *end) return refuse(o, value, "is not a number", why, n);
        if (!isfinite(v)) return refuse(o, value, "is not a finite number", why, n);
    } else {
        long long x = strtoll(value, &end, 10);
        if (!*value || *end) return refuse(o, value, "is not an integer", why, n);
        v = errno == ERANGE ? (x < 0 ? -INFINITY : INFINITY) : (double)x;
    }
    if (v < o->lo || v > o->hi) return refuse(o, value, "is out of range", why, n);
    *out = v;
    return 0;
}

int opt_parse(const opt_t *o, void *base, const char *value, char *why, size_t n)
{
    void *f = field(o, base);
    if (o->kind == OPT_BOOL) {
        *(int *)f = 1;
        return 0;
    }
    if (o->kind == OPT_STR) {
        if (!*value) return refuse(o, value, "is empty", why, n);
        if (strlen(value) >= o->size) return refuse(o, value, "is too long", why, n);
        int path = (o->flags & OPTF_PATH) && strchr(value, '/');
        if (o->names && !path && gs_choice_index(o->names(), value) < 0) return refuse(o, value, "is unknown", why, n);
        snprintf(f, o->size, "%s", value);
        return 0;
    }
    if (o->kind == OPT_LIST) {
        opt_list_t l = {0, {0}};
        const char *p = value;
        for (;;) {
            char item[32];
            size_t len = strcspn(p, ",");
            if (!len || len >= sizeof item) return refuse(o, value, "is not a list of integers", why, n);
            if (l.n == OPT_LIST_MAX) return refuse(o, value, "has too many values", why, n);
            memcpy(item, p, len), item[len] = 0;
            double v;
            if (parse_number(o, item, &v, why, n)) {
                char inner[200];
                snprintf(inner, sizeof inner, "%s", why);
                snprintf(why, n, "in '%.64s': %s", value, inner);
                return -1;
            }
            l.v[l.n++] = (int)v;
            if (!p[len]) break;
            p += len + 1;
        }
        *(opt_list_t *)f = l;
        return 0;
    }
    if (o->kind == OPT_CHOICE) {
        int k = gs_choice_index(o->choices, value);
        if (k < 0) return refuse(o, value, "is not valid", why, n);
        *(int *)f = k;
        return 0;
    }
    double v = o->word_value;
    if (!(o->zero_word && strcmp(value, o->zero_word) == 0) && parse_number(o, value, &v, why, n)) return -1;
    switch (o->kind) {
    case OPT_INT: *(int *)f = (int)v; break;
    case OPT_I64: *(int64_t *)f = (int64_t)v; break;
    case OPT_U64:
    case OPT_SIZE: *(uint64_t *)f = (uint64_t)v; break;
    case OPT_FLOAT: *(float *)f = (float)v; break;
    case OPT_DOUBLE: *(double *)f = v; break;
    default: break;
    }
    return 0;
}

static double stored_number(const opt_t *o, const void *f)
{
    switch (o->kind) {
    case OPT_I64: return (double)*(const int64_t *)f;
    case OPT_U64:
    case OPT_SIZE: return (double)*(const uint64_t *)f;
    case OPT_FLOAT: return *(const float *)f;
    case OPT_DOUBLE: return *(const double *)f;
    default: return *(const int *)f;
    }
}

int opt_valid(const opt_t *o, const void *base, char *why, size_t n)
{
    const void *f = cfield(o, base);
    int ok = 1;
    if (o->kind == OPT_BOOL) ok = *(const int *)f == 0 || *(const int *)f == 1;
    else if (o->kind == OPT_STR) ok = gs_text_valid(f, o->size);
    else if (o->kind == OPT_CHOICE) ok = *(const int *)f >= 0 && *(const int *)f < gs_choice_count(o->choices);
    else if (o->kind == OPT_LIST) {
        const opt_list_t *l = f;
        ok = l->n >= 0 && l->n <= OPT_LIST_MAX;
        for (int i = 0; ok && i < l->n; i++) ok = l->v[i] >= o->lo && l->v[i] <= o->hi;
    } else {
        double v = stored_number(o, f);
        ok = (o->zero_word && v == o->word_value) || (isfinite(v) && v >= o->lo && v <= o->hi);
    }
    if (!ok) snprintf(why, n, "%s holds a value it cannot take", o->name);
    return ok ? 0 : -1;
}

/* Bytes with the largest suffix that keeps them whole. */
static void size_text(uint64_t b, char *out, size_t n)
{
    static const char *suffix = "KMGT";
    int k = -1;
    while (k < 3 && b >= 1024 && b % 1024 == 0) b /= 1024, k++;
    if (k < 0) snprintf(out, n, "%llu", (unsigned long long)b);
    else snprintf(out, n, "%llu%c", (unsigned long long)b, suffix[k]);
}

void opt_format(const opt_t *o, const void *base, char *out, size_t n)
{
    const void *f = cfield(o, base);
    double v = 0;
    switch (o->kind) {
    case OPT_BOOL: snprintf(out, n, "%s", *(const int *)f ? "on" : "off"); return;
    case OPT_STR: snprintf(out, n, "%s", *(const char *)f ? (const char *)f : "none"); return;
    case OPT_CHOICE: gs_choice_name(o->choices, *(const int *)f, out, (int)n); return;
    case OPT_LIST: {
        const opt_list_t *l = f;
        size_t at = 0;
        out[0] = 0;
        for (int i = 0; i < l->n && at < n; i++) at += (size_t)snprintf(out + at, n - at, "%s%d", i ? "," : "", l->v[i]);
        return;
    }
    case OPT_INT: v = *(const int *)f; break;
    case OPT_I64: v = (double)*(const int64_t *)f; break;
    case OPT_U64: v = (double)*(const uint64_t *)f; break;
    case OPT_SIZE: v = (double)*(const uint64_t *)f; break;
    case OPT_FLOAT: v = *(const float *)f; break;
    case OPT_DOUBLE: v = *(const double *)f; break;
    }
    if (v == o->word_value && o->zero_word) snprintf(out, n, "%s", o->zero_word);
    else if (o->kind == OPT_SIZE) size_text(*(const uint64_t *)f, out, n);
    else if (o->kind == OPT_U64) snprintf(out, n, "%llu", (unsigned long long)*(const uint64_t *)f);
    else if (o->kind == OPT_FLOAT) snprintf(out, n, "%g", (double)*(const float *)f);
    else if (o->kind == OPT_DOUBLE) snprintf(out, n, "%g", v);
    else snprintf(out, n, "%lld", (long long)v);
}

const opt_t *opt_find(const opt_t *table, int count, const char *name, size_t len)
{
    for (int i = 0; i < count; i++)
        if (strlen(table[i].name) == len && strncmp(table[i].name, name, len) == 0) return &table[i];
    return NULL;
}
