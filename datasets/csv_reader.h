/* csv_reader.h - line-oriented reader for .csv and .csv.gz files.
 * zlib reads both gzip and plain files; a truncated or corrupt gzip stream
 * is reported as an error naming the file and the line reached. Field
 * parsers report "file:line: column k (name): what is wrong". */
#ifndef GS_CSV_READER_H
#define GS_CSV_READER_H

#include <stdint.h>

#include "base/error.h"

typedef struct csv_reader csv_reader_t;

/* Opens path. GS_EINPUT if missing or unreadable. */
int csv_open(csv_reader_t **r, const char *path, gs_err_t *err);
void csv_close(csv_reader_t *r);

/* Reads the next line (without the newline, NUL-terminated, writable).
 * Returns 1 with *line set, 0 at a clean end of file, -1 on error. */
int csv_next_line(csv_reader_t *r, char **line, gs_err_t *err);

int64_t csv_lineno(const csv_reader_t *r);
const char *csv_path(const csv_reader_t *r);

/* Field separators: ',' for OGB files, whitespace for SNAP files. */
typedef enum { CSV_SEP_COMMA, CSV_SEP_SPACE } csv_sep_t;

/* Parses one field at *p, advances *p past it and its separator.
 * col is 1-based, name describes the column for messages. */
int csv_field_i64(csv_reader_t *r, char **p, csv_sep_t sep, int col, const char *name, int64_t *out,
                  gs_err_t *err);
int csv_field_f32(csv_reader_t *r, char **p, csv_sep_t sep, int col, const char *name, float *out,
                  gs_err_t *err);
/* Counts the fields of a line without consuming it. */
int csv_count_fields(const char *line, csv_sep_t sep);
/* GS_EINPUT "file:line: ..." with the reader's position. */
int csv_error(csv_reader_t *r, gs_err_t *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
