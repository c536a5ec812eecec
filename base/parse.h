/* parse.h - value parsers shared by the command line and the run-time
 * knobs: sizes with K/M/G/T suffixes and "a|b|c" choices. */
#ifndef GS_PARSE_H
#define GS_PARSE_H

#include <stdint.h>

/* "512M", "2G", "2GiB", "1048576" -> bytes (K, M, G, T are powers of
 * 1024, with an optional "B" or "iB"). Returns 0, -1 if malformed (or not
 * finite, negative, past 2^64), or -2 if it is not a whole number of bytes. */
int gs_parse_bytes(const char *s, uint64_t *out);
/* bytes as "512 B", "12.0 KiB", "300.0 MiB" or "1.50 GiB". */
void gs_format_bytes(double bytes, char *out, int outsz);
/* Index of v in "a|b|c", or -1. */
int gs_choice_index(const char *choices, const char *v);
/* The k-th entry of "a|b|c" copied into out (empty if out of range). */
void gs_choice_name(const char *choices, int k, char *out, int outsz);

#endif
