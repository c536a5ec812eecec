/* knob_words.c - see knob_words.h. */
#include "knob_words.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "engine/train/knob_table.h"

typedef struct {
    char *out;
    size_t n, len;
} text_t;

static void put(text_t *t, const char *s, size_t k)
{
    for (size_t i = 0; i < k && t->len + 1 < t->n; i++) t->out[t->len++] = s[i];
    t->out[t->len] = '\0';
}

static int name_char(char c) { return isalnum((unsigned char)c) || c == '-'; }

/* The length of the flag name at s ("--NAME", s past the dashes) when NAME is a console knob, else 0. */
static size_t knob_name_len(const char *s)
{
    size_t k = 0;
    while (name_char(s[k])) k++;
    while (k && s[k - 1] == '-') k--; /* "--chunks-" is not a name */
    char name[64];
    if (k == 0 || k >= sizeof name) return 0;
    memcpy(name, s, k);
    name[k] = '\0';
    return knob_find(name) ? k : 0;
}

/* The value after a flag's name at s: a space, then a run up to a space or ;,) */
static size_t value_len(const char *s)
{
    if (s[0] != ' ') return 0;
    size_t k = 1;
    while (s[k] && !strchr(" ;,)", s[k])) k++;
    return k > 1 ? k : 0;
}

void knob_words(const char *msg, char *out, size_t n)
{
    text_t t = {out, n, 0};
    if (n) out[0] = '\0';
    for (const char *p = msg; *p;) {
        size_t name = p[0] == '-' && p[1] == '-' && (p == msg || !name_char(p[-1])) ? knob_name_len(p + 2) : 0;
        if (!name) {
            put(&t, p++, 1);
            continue;
        }
        int advice = p - msg >= 4 && !strncmp(p - 4, "use ", 4); /* "use --chunks auto": a command to type */
        size_t value = advice ? value_len(p + 2 + name) : 0;
        if (value) put(&t, "'set ", 5);
        put(&t, p + 2, name + value);
        if (value) put(&t, "'", 1);
        p += 2 + name + value;
    }
}
