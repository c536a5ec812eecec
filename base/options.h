/* options.h - one description per option, shared by the command-line
 * flags, the run-time knobs (knobs.h), --help, the console's set/get and
 * completion, the workbench's keys and knobs panel, and the JSON summary.
 * An option names a field of a struct (by offset) and says how its text
 * is parsed and printed, what it accepts, and, for a knob, when a change
 * applies and which key cycles it. Parsing is complete: a value outside
 * its range, not finite, or not a whole number of bytes is refused with a
 * reason, never clamped. */
#ifndef GS_OPTIONS_H
#define GS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef enum {
    OPT_BOOL,   /* a flag without a value: sets an int to 1 */
    OPT_INT,    /* int in [lo, hi] */
    OPT_I64,    /* int64_t in [lo, hi] */
    OPT_U64,    /* uint64_t in [lo, hi] */
    OPT_FLOAT,  /* float in [lo, hi], finite */
    OPT_DOUBLE, /* double in [lo, hi], finite */
    OPT_SIZE,   /* uint64_t bytes, with K/M/G/T suffixes, in [lo, hi] */
    OPT_STR,    /* char[size] */
    OPT_CHOICE, /* int index into choices "a|b|c" */
    OPT_LIST,   /* opt_list_t: comma-separated ints, each in [lo, hi] */
} opt_kind_t;

#define OPT_LIST_MAX 16
typedef struct {
    int n;
    int v[OPT_LIST_MAX];
} opt_list_t;

/* When a knob's change takes effect. */
typedef enum {
    WHEN_START,  /* a flag only: fixed for the run */
    WHEN_EPOCH,  /* at the next epoch boundary */
    WHEN_REOPEN, /* at the next epoch boundary, re-partitioning and reopening the devices */
    WHEN_PROGRAM /* at the next epoch boundary, rebuilding the op program */
} opt_when_t;

/* Which runs a knob applies to. */
typedef enum {
    SCOPE_ANY,    /* every run */
    SCOPE_STREAM, /* streamed runs; set on the command line, it implies the streaming engine */
    SCOPE_DIST,   /* distributed runs (--ranks N) */
    SCOPE_SPLIT   /* where work is split: streamed runs (as SCOPE_STREAM) and distributed ones */
} opt_scope_t;

typedef struct opt {
    const char *name;      /* --name on the command line, and the console's knob name */
    opt_kind_t kind;
    size_t off;            /* the field in the described struct */
    size_t size;           /* OPT_STR: the field's capacity */
    const char *choices;   /* OPT_CHOICE: "a|b|c" */
    const char *zero_word; /* a word that stores word_value ("auto", "none"), or NULL */
    double lo, hi;         /* numeric range, inclusive */
    const char *metavar;
    const char *help;
    /* OPT_STR naming one of a set (a model, a topology): the names "a|b|c", or NULL */
    const char *(*names)(void);
    opt_when_t when;
    opt_scope_t scope;     /* which runs it applies to */
    char key;              /* the workbench key that cycles it (0: none) */
    double word_value;     /* what zero_word stores (0 unless given: a value outside [lo, hi]) */
    unsigned flags;        /* OPTF_* */
    /* Beyond the range: the owner's rule for a new value in `next` (the
     * whole struct, which it may adjust: a field that follows this one),
     * given what the owner knows of the run (`facts`, NULL when nothing
     * is known). GS_EINPUT with err naming the option. May be NULL. */
    int (*check)(void *next, const void *facts, gs_err_t *err);
    /* The value as shown when it is resolved at run time (auto chunks as
     * "8 (auto)"): `live` describes the run whose value is in `base`, NULL
     * for a value not yet in force. Returns 0 when opt_format shows it as
     * well. May be NULL. */
    int (*text)(const void *base, const void *live, char *out, size_t n);
} opt_t;

/* opt_t.flags */
enum {
    OPTF_MODEL = 1, /* shapes the model: `model NAME [OPTION VALUE]...` takes it */
    OPTF_RANKS = 2, /* a streaming-engine flag a distributed run's ranks read too (their clock, the vertex order) */
    OPTF_PATH = 4,  /* OPT_STR with names: a value with a '/' is a file's path instead, which the check reads */
    OPTF_SAMPLED = 8, /* a streaming-engine flag a sampled run reads too (its steps' modeled GPU and kernel times) */
};

/* Parses value into base's field. 0, or -1 with why = the reason. */
int opt_parse(const opt_t *o, void *base, const char *value, char *why, size_t n);
/* Whether base's field holds a value opt_parse could have stored, for a
 * record that came from outside (a snapshot over the remote protocol): a
 * number in range (or the zero word's value), a choice among the choices,
 * a string NUL-terminated within its capacity and free of control bytes,
 * a list of at most OPT_LIST_MAX values in range. 0, or -1 with why. */
int opt_valid(const opt_t *o, const void *base, char *why, size_t n);
/* The field's value as text. */
void opt_format(const opt_t *o, const void *base, char *out, size_t n);
/* What the option accepts, for help and errors ("off|on|auto", "an integer in [1, 64]"). */
void opt_accepts(const opt_t *o, char *out, size_t n);
/* The option named name (len chars) in table[0..count), or NULL. */
const opt_t *opt_find(const opt_t *table, int count, const char *name, size_t len);

#endif
