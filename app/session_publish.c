/* session_publish.c - see session_publish.h. */
#include "session_publish.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/train/knob_notes.h"

void session_notice(session_t *s, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&s->snap_lock);
    va_start(ap, fmt);
    vsnprintf(s->snap.notice, sizeof s->snap.notice, fmt, ap);
    va_end(ap);
    s->snap.notice_seq++;
    pthread_mutex_unlock(&s->snap_lock);
}

void session_notice_warnings(session_t *s, trainer_t *t)
{
    gs_warnings_t *w = &t->warnings;
    for (int i = 0; i < w->n; i++) session_notice(s, "warning: %s%s", w->msg[i], w->dropped && i == w->n - 1 ? " (and more)" : "");
    memset(w, 0, sizeof *w);
}

/* The run's state in the snapshot (it reads the trainer). */
static void publish_run(session_t *s, session_snapshot_t *p)
{
    const trainer_t *t = s->t;
    int streaming = t->kind.engine == ENGINE_STREAM;
    p->kind = t->kind;
    p->chunks = streaming ? t->stream.chunks : 1;
    p->link_scale = t->stream.link_scale;
    p->gpu = t->cfg.device == DEVICE_CUDA;
    snprintf(p->backend, sizeof p->backend, "%s", streaming ? t->stream.bops->name : p->gpu ? "cuda" : "memory");
    snprintf(p->gpu_note, sizeof p->gpu_note, "%s", s->gpu_note);
    snprintf(p->dataset, sizeof p->dataset, "%s", t->data.ds.name);
    snprintf(p->model, sizeof p->model, "%s", t->cfg.model);
    snprintf(p->topology, sizeof p->topology, "%s", t->cfg.topology);
    p->cfg = t->cfg;
    p->facts = trainer_knob_facts(t);
    p->epoch = t->epoch;
    part_online_report(&t->part, t->cfg.partitioner, &p->parts);
    p->nknobs = 0;
    int n;
    const opt_t *k = knob_table(&n);
    for (int i = 0; i < n && p->nknobs < SESSION_MAX_KNOBS; i++) {
        if (k[i].when == WHEN_START || !knob_applies(&k[i], &p->kind)) continue;
        session_knob_t *r = &p->knobs[p->nknobs++];
        snprintf(r->name, sizeof r->name, "%s", k[i].name);
        knob_text(&k[i], &t->cfg, &p->facts, r->value, sizeof r->value);
        r->idle = knob_idle(&k[i], &t->cfg, &p->kind);
    }
}

void session_publish(session_t *s, const epoch_stats_t *st, int failed, const char *error)
{
    prof_totals_t pt;
    prof_take_totals(&s->prof, &pt);
    gs_err_t err, merr;
    if (st && s->checkpoint[0] && trainer_save(s->t, s->checkpoint, &err)) failed = 1, error = err.msg;
    pthread_mutex_lock(&s->snap_lock);
    if (st && metrics_add(&s->metrics, st, &s->t->kind, &merr)) failed = 1, error = merr.msg;
    session_snapshot_t *p = &s->snap;
    if (st) {
        if (p->nepochs == SESSION_HISTORY) {
            memmove(p->epochs, p->epochs + 1, sizeof p->epochs[0] * (SESSION_HISTORY - 1));
            p->nepochs--;
        }
        p->epochs[p->nepochs++] = *st;
        p->epochs_total++;
        prof_epoch_end(&s->prof, st->epoch, (st->epoch_ms + st->eval_ms) * 1e-3); /* windows of an epoch; trace marker */
        p->last_totals = pt;
        p->failed = 0; /* training goes on: an earlier error is history */
    }
    if (failed) {
        p->failed = 1;
        snprintf(p->error, sizeof p->error, "%s", error);
    }
    publish_run(s, p);
    p->nlinks = s->t->kind.engine == ENGINE_STREAM && !s->t->cfg.links_native && !s->t->stream.real ? s->t->stream.topo.nlinks : 0;
    double secs = st ? (st->epoch_ms + st->eval_ms) / 1e3 : 0;
    for (int l = 0; l < p->nlinks && st; l++) {
        snprintf(p->link_name[l], sizeof p->link_name[l], "%s", s->t->stream.topo.links[l].name);
        p->link_rate[l] = secs > 0 ? s->t->stream.last_stats.link_bytes[l] / secs : 0;
    }
    pthread_mutex_unlock(&s->snap_lock);
}
