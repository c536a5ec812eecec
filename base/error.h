/* error.h - error values, the error buffer and the warning list used across
 * gnnscope. Library code never exits and never prints: it returns GS_EINPUT
 * (bad input or usage, exit 2) or GS_EFAIL (anything else, exit 1) and
 * fills a gs_err_t with one line; what went wrong without stopping it (a
 * damaged cache rebuilt, say) goes into the caller's gs_warnings_t, which
 * the CLI prints on stderr and the workbench shows on its message line. */
#ifndef GS_ERROR_H
#define GS_ERROR_H

#ifdef __cplusplus
extern "C" { /* also used by the CUDA plugin */
#endif

enum { GS_OK = 0, GS_EFAIL = 1, GS_EINPUT = 2 };

typedef struct {
    int code;       /* GS_OK, GS_EINPUT or GS_EFAIL */
    char msg[512];  /* one line, no trailing newline */
} gs_err_t;

/* Fills err (if not NULL) with a printf-style message and returns code. */
int gs_fail(gs_err_t *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes err->msg with "prefix: " (used to add file names). */
void gs_err_prefix(gs_err_t *err, const char *prefix);

/* Warnings, oldest first; past GS_MAX_WARNINGS the latest ones are counted
 * in `dropped` only. */
#define GS_MAX_WARNINGS 8
typedef struct {
    int n, dropped;
    char msg[GS_MAX_WARNINGS][256]; /* one line each, no "warning:" prefix */
} gs_warnings_t;

/* Adds a printf-style warning to w (NULL: the warning is not wanted). */
void gs_warn(gs_warnings_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif
