/* parse.c - see parse.h. */
#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gs_parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0) return -1;
    double mul = 1;
    switch (*end) {
    case 'K': case 'k': mul = 1024.0; end++; break;
    case 'M': case 'm': mul = 1048576.0; end++; break;
    case 'G': case 'g': mul = 1073741824.0; end++; break;
    case 'T': case 't': mul = 1099511627776.0; end++; break;
    default: break;
    }
    if (mul > 1 && *end == 'i') end++; /* KiB, MiB, ... */
    if (*end == 'B' || *end == 'b') end++;
    if (*end || v * mul > 1.8e19) return -1;
    if (v * mul != floor(v * mul)) return -2; /* a fraction of a byte */
    *out = (uint64_t)(v * mul);
    return 0;
}

void gs_format_bytes(double bytes, char *out, int outsz)
{
    double a = fabs(bytes);
    if (a >= 1073741824.0) snprintf(out, (size_t)outsz, "%.2f GiB", bytes / 1073741824.0);
    else if (a >= 1048576.0) snprintf(out, (size_t)outsz, "%.1f MiB", bytes / 1048576.0);
    else if (a >= 1024.0) snprintf(out, (size_t)outsz, "%.1f KiB", bytes / 1024.0);
    else snprintf(out, (size_t)outsz, "%.0f B", bytes);
}

int gs_choice_index(const char *choices, const char *v)
{
    int idx = 0;
    size_t vl = strlen(v);
    for (const char *p = choices;; idx++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == vl && strncmp(p, v, len) == 0) return idx;
        if (!bar) return -1;
        p = bar + 1;
    }
}

int gs_choice_count(const char *choices)
{
    int count = 1;
    for (const char *p = strchr(choices, '|'); p; p = strchr(p + 1, '|')) count++;
    return count;
}

void gs_choice_name(const char *choices, int k, char *out, int outsz)
{
    const char *p = choices;
    for (int i = 0; i < k && p; i++) p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
    if (!p || k < 0) {
        snprintf(out, (size_t)outsz, "%s", "");
        return;
    }
    int n = strchr(p, '|') ? (int)(strchr(p, '|') - p) : (int)strlen(p);
    snprintf(out, (size_t)outsz, "%.*s", n, p);
}

int gs_text_valid(const char *s, size_t cap)
{
    const char *end = memchr(s, '\0', cap);
    if (!end) return 0;
    for (const char *c = s; c < end; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) return 0;
    return 1;
}
