/* parse.h - value parsers shared by the command line and the run-time
 * knobs: sizes with K/M/G/T suffixes and "a|b|c" choices; and whether
 * text from outside may be shown. */
#ifndef GS_PARSE_H
#define GS_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* "512M", "2G", "2GiB", "1048576" -> bytes (K, M, G, T are powers of
 * 1024, with an optional "B" or "iB"). Returns 0, -1 if malformed (or not
 * finite, negative, past 2^64), or -2 if it is not a whole number of bytes. */
int gs_parse_bytes(const char *s, uint64_t *out);
/* bytes as "512 B", "12.0 KiB", "300.0 MiB" or "1.50 GiB". */
void gs_format_bytes(double bytes, char *out, int outsz);
/* Index of v in "a|b|c", or -1. */
int gs_choice_index(const char *choices, const char *v);
/* How many entries "a|b|c" has. */
int gs_choice_count(const char *choices);
/* The k-th entry of "a|b|c" copied into out (empty if out of range). */
void gs_choice_name(const char *choices, int k, char *out, int outsz);

/* Whether s, a field of cap bytes from outside, ends within it and holds
 * no control byte (C0 or DEL): text that may be drawn or printed. */
int gs_text_valid(const char *s, size_t cap);

#endif
