/* remote_check.c - see remote_check.h. */
#include "remote_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/parse.h"
#include "remote_wire.h"

#define MAX_RANKS (1 << 20)

static int refuse(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

static int flag(int v) { return v == 0 || v == 1; }
static int amount(double v) { return isfinite(v) && v >= 0; }
#define TEXT(field) gs_text_valid(field, sizeof(field))

int remote_check_request(uint32_t kind, const char *p, uint64_t len, char *why, size_t n)
{
    if (kind >= K__COUNT) return refuse(why, n, "an unknown request %u", kind);
    if (len > wire_max_payload(WIRE_REQUEST, kind)) return refuse(why, n, "a request of %llu bytes", (unsigned long long)len);
    switch (kind) {
    case K_HELLO:
    case K_EVENTS:
        if (len != sizeof(uint64_t)) return refuse(why, n, "request %u holds %llu bytes, not 8", kind, (unsigned long long)len);
        return 0;
    case K_COMMAND:
    case K_PENDING:
        if (memchr(p, '\0', len)) return refuse(why, n, "a NUL byte inside a command");
        return 0;
    default:
        if (len) return refuse(why, n, "request %u takes no payload", kind);
        return 0;
    }
}

int remote_decode_u64(const char *p, uint64_t len, uint64_t *out, char *why, size_t n)
{
    if (len != sizeof *out) return refuse(why, n, "a reply of %llu bytes where 8 belong", (unsigned long long)len);
    memcpy(out, p, sizeof *out);
    return 0;
}

static int kind_check(const run_kind_t *k, const char *what, char *why, size_t n)
{
    if ((unsigned)k->driver > DRIVER_DIST || (unsigned)k->engine > ENGINE_DIST || (unsigned)k->place > PLACE_CUDA)
        return refuse(why, n, "%s: an unknown driver, engine or place", what);
    if (k->devices < 0 || k->devices >= PROF_MAX_DEV) return refuse(why, n, "%s: %d devices (at most %d)", what, k->devices, PROF_MAX_DEV - 1);
    if (k->ranks < 0 || k->ranks > MAX_RANKS) return refuse(why, n, "%s: %d ranks", what, k->ranks);
    return 0;
}

/* Every option's value one its row accepts, and the fields no row sets. */
static int cfg_check(const train_cfg_t *c, char *why, size_t n)
{
    int count;
    const opt_t *table = knob_table(&count);
    char what[96];
    for (int i = 0; i < count; i++)
        if (opt_valid(&table[i], c, what, sizeof what)) return refuse(why, n, "the configuration: %s", what);
    if (!flag(c->stream) || !flag(c->dist) || (unsigned)c->device > DEVICE_CUDA)
        return refuse(why, n, "the configuration: an unknown engine or device");
    return 0;
}

static int epochs_check(const session_snapshot_t *s, char *why, size_t n)
{
    if (s->nepochs < 0 || s->nepochs > SESSION_HISTORY) return refuse(why, n, "%d epochs (at most %d)", s->nepochs, SESSION_HISTORY);
    for (int i = 0; i < s->nepochs; i++) {
        const epoch_stats_t *e = &s->epochs[i];
        if (e->epoch < 0 || !amount(e->epoch_ms) || !amount(e->eval_ms)) return refuse(why, n, "epoch record %d: a negative or non-finite time", i);
    }
    return s->epoch < 0 ? refuse(why, n, "a negative epoch count") : 0;
}

static int parts_check(const part_report_t *r, char *why, size_t n)
{
    if ((unsigned)r->kind > PART_ROC || r->p < 0 || r->shown < 0 || r->shown > r->p || r->shown > PART_REPORT_MAX)
        return refuse(why, n, "the parts: %d of %d shown (at most %d)", r->shown, r->p, PART_REPORT_MAX);
    if (!flag(r->have_pred) || !flag(r->have_meas) || r->samples < 0) return refuse(why, n, "the parts: a malformed flag or count");
    for (int j = 0; j < r->shown; j++)
        if (!isfinite(r->pred_ms[j]) || !isfinite(r->meas_ms[j])) return refuse(why, n, "the parts: a non-finite time");
    return 0;
}

static int links_check(const session_snapshot_t *s, char *why, size_t n)
{
    if (s->nlinks < 0 || s->nlinks > TOPO_MAX_LINKS) return refuse(why, n, "%d links (at most %d)", s->nlinks, TOPO_MAX_LINKS);
    for (int l = 0; l < s->nlinks; l++)
        if (!TEXT(s->link_name[l]) || !amount(s->link_rate[l])) return refuse(why, n, "link %d: a malformed name or rate", l);
    return 0;
}

static int knobs_check(const session_snapshot_t *s, char *why, size_t n)
{
    if (s->nknobs < 0 || s->nknobs > SESSION_MAX_KNOBS) return refuse(why, n, "%d knobs (at most %d)", s->nknobs, SESSION_MAX_KNOBS);
    for (int i = 0; i < s->nknobs; i++)
        if (!TEXT(s->knobs[i].name) || !TEXT(s->knobs[i].value)) return refuse(why, n, "knob %d: a malformed name or value", i);
    return 0;
}

int snapshot_check(const session_snapshot_t *s, char *why, size_t n)
{
    if (!flag(s->paused) || !flag(s->finished) || !flag(s->failed) || !flag(s->idle) || !flag(s->gpu))
        return refuse(why, n, "a state flag that is neither 0 nor 1");
    if (!TEXT(s->error) || !TEXT(s->notice) || !TEXT(s->dataset) || !TEXT(s->model) || !TEXT(s->topology) || !TEXT(s->backend) ||
        !TEXT(s->gpu_note))
        return refuse(why, n, "a name or message not ended within its field, or with control bytes");
    if (s->chunks < 0 || !amount(s->link_scale)) return refuse(why, n, "negative chunks or link scale");
    if (kind_check(&s->kind, "the run's kind", why, n) || kind_check(&s->facts.kind, "the facts' kind", why, n)) return -1;
    if (s->facts.vertices < 0 || s->facts.edges < 0 || s->facts.hops < 0 || s->facts.chunks < 0 || !amount(s->facts.link_scale))
        return refuse(why, n, "the facts: a negative or non-finite count");
    if (epochs_check(s, why, n) || links_check(s, why, n) || knobs_check(s, why, n) || parts_check(&s->parts, why, n)) return -1;
    return cfg_check(&s->cfg, why, n);
}

int remote_decode_snapshot(const char *p, uint64_t len, session_snapshot_t *out, char *why, size_t n)
{
    if (len != sizeof *out) return refuse(why, n, "a snapshot of %llu bytes (this build's are %zu)", (unsigned long long)len, sizeof *out);
    memcpy(out, p, sizeof *out);
    char what[200];
    if (snapshot_check(out, what, sizeof what)) return refuse(why, n, "a malformed snapshot (%s)", what);
    return 0;
}

int prof_event_check(const prof_event_t *e, char *why, size_t n)
{
    if (e->device < -1 || e->device >= PROF_MAX_DEV - 1) return refuse(why, n, "an event on device %d", e->device);
    if (e->lane >= PL__COUNT || e->phase >= PH__COUNT) return refuse(why, n, "an event on lane %u, phase %u", e->lane, e->phase);
    if (e->t1 < e->t0 || !amount(e->bytes) || !amount(e->flops)) return refuse(why, n, "an event that ends before it starts, or a bad amount");
    if (e->col < -1 || e->row < -1 || !TEXT(e->op)) return refuse(why, n, "an event with a bad chunk or op name");
    return 0;
}

int remote_decode_events(const char *p, uint64_t len, uint64_t *seq, prof_event_t *out, uint32_t *k, char *why, size_t n)
{
    uint32_t count;
    if (len < 12) return refuse(why, n, "an event reply of %llu bytes", (unsigned long long)len);
    memcpy(&count, p + 8, 4);
    if (count > PROF_HISTORY || len != 12 + (uint64_t)count * sizeof(prof_event_t))
        return refuse(why, n, "an event reply claiming %u events in %llu bytes", count, (unsigned long long)len);
    for (uint32_t i = 0; i < count; i++) {
        memcpy(&out[i], p + 12 + (size_t)i * sizeof(prof_event_t), sizeof(prof_event_t));
        if (prof_event_check(&out[i], why, n)) return -1;
    }
    memcpy(seq, p, 8);
    *k = count;
    return 0;
}

int remote_decode_window(const char *p, uint64_t len, prof_window_t *out, char *why, size_t n)
{
    if (len != sizeof *out) return refuse(why, n, "a window of %llu bytes", (unsigned long long)len);
    memcpy(out, p, sizeof *out);
    for (int d = 0; d < PROF_MAX_DEV; d++)
        for (int l = 0; l < PL__COUNT; l++)
            if (!(out->busy[d][l] >= 0 && out->busy[d][l] <= 1) || !amount(out->bytes_per_s[d][l]))
                return refuse(why, n, "a window with a busy share outside [0, 1] or a bad rate");
    return amount(out->window_s) ? 0 : refuse(why, n, "a window of a bad length");
}

/* Text from a reply: no control bytes but tabs, which become spaces. */
static int take_text(const char *p, uint64_t len, char *text, size_t ntext, char *why, size_t n)
{
    size_t k = len < ntext - 1 ? (size_t)len : ntext - 1;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)p[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) return refuse(why, n, "a reply with a control byte (%02x)", c);
        text[i] = c == '\t' ? ' ' : (char)c;
    }
    text[k] = '\0';
    return 0;
}

int remote_decode_command(const char *p, uint64_t len, int32_t *rc, char *text, size_t ntext, char *why, size_t n)
{
    if (len < 4) return refuse(why, n, "a command reply of %llu bytes", (unsigned long long)len);
    memcpy(rc, p, 4);
    return take_text(p + 4, len - 4, text, ntext, why, n);
}

int remote_decode_text(const char *p, uint64_t len, char *text, size_t ntext, char *why, size_t n)
{
    return take_text(p, len, text, ntext, why, n);
}
