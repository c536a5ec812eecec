/* error.c - filling gs_err_t buffers and warning lists (error.h). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int gs_fail(gs_err_t *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void gs_err_prefix(gs_err_t *err, const char *prefix)
{
    if (!err) return;
    char tmp[sizeof err->msg];
    snprintf(tmp, sizeof tmp, "%.200s: %.300s", prefix, err->msg);
    memcpy(err->msg, tmp, sizeof tmp);
}

void gs_warn(gs_warnings_t *w, const char *fmt, ...)
{
    if (!w) return;
    if (w->n == GS_MAX_WARNINGS) {
        w->dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg[w->n++], sizeof w->msg[0], fmt, ap);
    va_end(ap);
}
