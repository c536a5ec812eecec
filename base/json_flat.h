/* json_flat.h - reads one JSON object into flat (path, value) pairs: a
 * number or a string under its dotted path ("memplan.plan_ms",
 * "knobs.swap"); true and false as 1 and 0; null and arrays are skipped
 * (an array of numbers keeps its last element under "path[-1]", the
 * value a run ended with). For reading gnnscope's own summaries (the
 * --json line): it accepts RFC 8259 JSON, but string escapes other than
 * \" \\ \/ are kept as written. Limits: JSON_FLAT_MAX pairs, paths of
 * JSON_FLAT_PATH bytes, strings of JSON_FLAT_TEXT bytes, nesting 16 deep;
 * past them the text is refused (never cut). */
#ifndef GS_JSON_FLAT_H
#define GS_JSON_FLAT_H

#include <stddef.h>

#define JSON_FLAT_MAX 4096
#define JSON_FLAT_PATH 96
#define JSON_FLAT_TEXT 96

typedef struct {
    char path[JSON_FLAT_PATH];
    int is_text;
    double num;
    char text[JSON_FLAT_TEXT];
} json_pair_t;

typedef struct {
    json_pair_t *pair;
    int n;
} json_flat_t;

/* Parses text[0..len) (one object, whitespace around it allowed). Returns
 * 0, or -1 with why[] saying what was wrong and at which byte. */
int json_flat_parse(const char *text, size_t len, json_flat_t *out, char *why, size_t whylen);
void json_flat_free(json_flat_t *j);
/* The pair at path, or NULL. */
const json_pair_t *json_flat_get(const json_flat_t *j, const char *path);

#endif
