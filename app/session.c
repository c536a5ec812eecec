/* session.c - see session.h. Commands come from a table of {name, fn,
 * help}; scripts run the same table. */
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_sink.h"

static void publish(session_t *s, const epoch_stats_t *st, int failed, const char *error)
{
    prof_totals_t pt;
    prof_take_totals(&s->prof, &pt);
    gs_err_t err, merr;
    if (st && s->checkpoint[0] && trainer_save(&s->t, s->checkpoint, &err)) failed = 1, error = err.msg;
    pthread_mutex_lock(&s->snap_lock);
    if (st && metrics_add(&s->metrics, st, &pt, &merr)) failed = 1, error = merr.msg;
    session_snapshot_t *p = &s->snap;
    if (st) {
        if (p->nepochs == SESSION_HISTORY) {
            memmove(p->epochs, p->epochs + 1, sizeof p->epochs[0] * (SESSION_HISTORY - 1));
            p->nepochs--;
        }
        p->epochs[p->nepochs++] = *st;
        p->last_totals = pt;
        p->failed = 0; /* training goes on: an earlier error is history */
    }
    if (failed) {
        p->failed = 1;
        snprintf(p->error, sizeof p->error, "%s", error);
    }
    p->devices = s->t.cfg.devices, p->chunks = s->t.backend ? s->t.chunks : 1, p->streaming = s->t.backend != NULL;
    p->link_scale = s->t.link_scale;
    p->gpu = s->t.cfg.device == DEVICE_CUDA;
    snprintf(p->backend, sizeof p->backend, "%s", s->t.backend ? s->t.bops->name : p->gpu ? "cuda" : "memory");
    snprintf(p->gpu_note, sizeof p->gpu_note, "%s", s->gpu_note);
    p->nlinks = s->t.backend && !s->t.cfg.links_native ? s->t.topo.nlinks : 0;
    double secs = st ? (st->epoch_ms + st->eval_ms) / 1e3 : 0;
    for (int l = 0; l < p->nlinks && st; l++) {
        snprintf(p->link_name[l], sizeof p->link_name[l], "%s", s->t.topo.links[l].name);
        p->link_rate[l] = secs > 0 ? s->t.last_stats.link_bytes[l] / secs : 0;
    }
    snprintf(p->topology, sizeof p->topology, "%s", s->t.cfg.topology);
    pthread_mutex_unlock(&s->snap_lock);
}

/* load / model: reopens the trainer with s->reload (weights start fresh);
 * on failure the previous configuration is reopened. Lock held. */
static int reload(session_t *s, gs_err_t *err)
{
    train_cfg_t old = s->t.cfg;
    s->reload_pending = 0;
    trainer_close(&s->t);
    int rc = trainer_open(&s->t, &s->reload, err);
    if (rc) {
        gs_err_t ignored;
        trainer_close(&s->t);
        if (trainer_open(&s->t, &old, &ignored)) return rc; /* the old run no longer opens either */
    } else {
        pthread_mutex_lock(&s->snap_lock);
        s->snap.nepochs = 0;
        snprintf(s->snap.dataset, sizeof s->snap.dataset, "%s", s->t.ds.name);
        snprintf(s->snap.model, sizeof s->snap.model, "%s", s->t.cfg.model);
        pthread_mutex_unlock(&s->snap_lock);
    }
    return rc;
}

static void *engine_main(void *arg)
{
    session_t *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->quit && s->paused && s->steps == 0) pthread_cond_wait(&s->wake, &s->lock);
        if (s->quit) break;
        if (s->max_epochs && s->t.epoch >= s->max_epochs) break;
        if (s->steps > 0) s->steps--;
        gs_err_t err = {0};
        int rc = s->reload_pending ? reload(s, &err) : GS_OK;
        if (!rc) rc = knob_apply(&s->t, &err); /* under the lock: knob_set cannot race it */
        pthread_mutex_unlock(&s->lock);
        epoch_stats_t st;
        if (!rc) rc = trainer_epoch(&s->t, &st, &err);
        if (rc && s->quit) { /* stopped mid-epoch on purpose: the last finished epoch stands */
            pthread_mutex_lock(&s->lock);
            break;
        }
        publish(s, rc ? NULL : &st, rc != 0, err.msg);
        pthread_mutex_lock(&s->lock);
        if (rc) s->paused = 1, s->steps = 0; /* a failed apply was rolled back: wait for the user */
    }
    pthread_mutex_unlock(&s->lock);
    pthread_mutex_lock(&s->snap_lock);
    s->snap.finished = 1;
    pthread_mutex_unlock(&s->snap_lock);
    return NULL;
}

int session_open(session_t *s, train_cfg_t *cfg, long max_epochs, const char *checkpoint, const char *metrics,
                 gs_err_t *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->checkpoint, sizeof s->checkpoint, "%s", checkpoint ? checkpoint : "");
    metrics_init(&s->metrics, metrics ? metrics : "");
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->snap_lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    int rc = prof_init(&s->prof, err);
    if (rc) return rc;
    cfg->on_task = sink_task, cfg->on_op = sink_op, cfg->observer = &s->prof;
    if ((rc = trainer_open(&s->t, cfg, err))) {
        trainer_close(&s->t);
        prof_shutdown(&s->prof);
        return rc;
    }
    char why[256];
    if (sink_attach_gpu(&s->prof, &s->t.cfg, why, sizeof why))
        snprintf(s->gpu_note, sizeof s->gpu_note, "no GPU timeline: CUPTI: %s", why);
    s->max_epochs = max_epochs;
    snprintf(s->snap.dataset, sizeof s->snap.dataset, "%s", s->t.ds.name);
    snprintf(s->snap.model, sizeof s->snap.model, "%s", s->t.cfg.model);
    publish(s, NULL, 0, "");
    if (pthread_create(&s->engine, NULL, engine_main, s) != 0) {
        trainer_close(&s->t);
        prof_shutdown(&s->prof);
        return gs_fail(err, GS_EFAIL, "cannot start the engine thread");
    }
    s->started = 1;
    return GS_OK;
}

void session_close(session_t *s)
{
    if (!s->started) return;
    pthread_mutex_lock(&s->lock);
    s->quit = 1;
    s->t.abort_epoch = 1; /* a streamed epoch stops after the chunk in flight */
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->engine, NULL);
    gs_err_t ignored;
    prof_trace_stop(&s->prof, &ignored);
    trainer_close(&s->t);
    prof_shutdown(&s->prof);
    metrics_free(&s->metrics);
    s->started = 0;
}

void session_snapshot(session_t *s, session_snapshot_t *out)
{
    pthread_mutex_lock(&s->snap_lock);
    *out = s->snap;
    pthread_mutex_unlock(&s->snap_lock);
    pthread_mutex_lock(&s->lock);
    out->paused = s->paused;
    pthread_mutex_unlock(&s->lock);
}

/* ---------------- commands ---------------- */

typedef int (*cmd_fn)(session_t *s, int argc, char **argv, char *reply, int n);

static int set_state(session_t *s, int paused, long steps)
{
    pthread_mutex_lock(&s->lock);
    s->paused = paused;
    s->steps = steps;
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    return 0;
}

static int c_pause(session_t *s, int argc, char **argv, char *r, int n)
{
    (void)argc, (void)argv;
    set_state(s, 1, 0);
    snprintf(r, (size_t)n, "paused (the current epoch finishes)");
    return 0;
}

static int c_resume(session_t *s, int argc, char **argv, char *r, int n)
{
    (void)argc, (void)argv;
    set_state(s, 0, 0);
    snprintf(r, (size_t)n, "running");
    return 0;
}

static int c_step(session_t *s, int argc, char **argv, char *r, int n)
{
    (void)argc, (void)argv;
    set_state(s, 1, 1);
    snprintf(r, (size_t)n, "one epoch");
    return 0;
}

static int c_run(session_t *s, int argc, char **argv, char *r, int n)
{
    char *end;
    long k = argc == 2 ? strtol(argv[1], &end, 10) : -1;
    if (argc != 2 || *end || k < 1 || k > 100000000) {
        snprintf(r, (size_t)n, "run: usage: run N (N >= 1 epochs)");
        return GS_EINPUT;
    }
    set_state(s, 1, k);
    snprintf(r, (size_t)n, "running %ld epochs", k);
    return 0;
}

static int c_set(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc != 3) {
        snprintf(r, (size_t)n, "set: usage: set KNOB VALUE (see 'knobs')");
        return GS_EINPUT;
    }
    gs_err_t err;
    pthread_mutex_lock(&s->lock);
    int rc = knob_set(&s->t, argv[1], argv[2], &err);
    pthread_mutex_unlock(&s->lock);
    if (rc) snprintf(r, (size_t)n, "%s", err.msg);
    else snprintf(r, (size_t)n, "%s = %s at the next epoch", argv[1], argv[2]);
    return rc;
}

static int c_get(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc != 2) {
        snprintf(r, (size_t)n, "get: usage: get KNOB");
        return GS_EINPUT;
    }
    gs_err_t err;
    char now[96], then[96];
    pthread_mutex_lock(&s->lock);
    int rc = knob_get(&s->t, argv[1], 0, now, sizeof now, &err) < 0 ? GS_EINPUT : 0;
    int pend = rc ? 0 : knob_get(&s->t, argv[1], 1, then, sizeof then, &err);
    pthread_mutex_unlock(&s->lock);
    if (rc) snprintf(r, (size_t)n, "%s", err.msg);
    else if (pend) snprintf(r, (size_t)n, "%s = %s (-> %s at the next epoch)", argv[1], now, then);
    else snprintf(r, (size_t)n, "%s = %s", argv[1], now);
    return rc;
}

static int c_knobs(session_t *s, int argc, char **argv, char *r, int n)
{
    (void)s, (void)argc, (void)argv;
    int w = snprintf(r, (size_t)n, "knobs:");
    for (const knob_desc_t *k = knob_list(); k->name && w < n; k++) w += snprintf(r + w, (size_t)(n - w), " %s", k->name);
    return 0;
}

static int c_trace(session_t *s, int argc, char **argv, char *r, int n)
{
    gs_err_t err;
    if (argc == 3 && strcmp(argv[1], "start") == 0) {
        if (prof_trace_start(&s->prof, argv[2], &err)) {
            snprintf(r, (size_t)n, "%s", err.msg);
            return GS_EINPUT;
        }
        snprintf(r, (size_t)n, "tracing to %s", argv[2]);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "stop") == 0) {
        if (prof_trace_stop(&s->prof, &err)) {
            snprintf(r, (size_t)n, "%s", err.msg);
            return GS_EFAIL;
        }
        snprintf(r, (size_t)n, "trace written");
        return 0;
    }
    snprintf(r, (size_t)n, "trace: usage: trace start FILE | trace stop");
    return GS_EINPUT;
}

static int c_checkpoint(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc != 3 || strcmp(argv[1], "save") != 0) {
        snprintf(r, (size_t)n, "checkpoint: usage: checkpoint save FILE");
        return GS_EINPUT;
    }
    gs_err_t err;
    pthread_mutex_lock(&s->lock); /* the engine applies knobs under it, but trains outside it */
    int rc = trainer_save(&s->t, argv[2], &err);
    pthread_mutex_unlock(&s->lock);
    snprintf(r, (size_t)n, rc ? "%s" : "checkpoint saved to %s", rc ? err.msg : argv[2]);
    return rc;
}

static int c_export(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc != 3 || strcmp(argv[1], "metrics") != 0) {
        snprintf(r, (size_t)n, "export: usage: export metrics FILE");
        return GS_EINPUT;
    }
    gs_err_t err;
    pthread_mutex_lock(&s->snap_lock); /* the engine appends rows under the snapshot lock */
    int rc = metrics_write(&s->metrics, argv[2], &err);
    pthread_mutex_unlock(&s->snap_lock);
    snprintf(r, (size_t)n, rc ? "%s" : "metrics written to %s", rc ? err.msg : argv[2]);
    return rc;
}

/* Queues a reopen with cfg; it happens at the next epoch boundary. */
static int queue_reload(session_t *s, const train_cfg_t *cfg, char *r, int n, const char *what)
{
    pthread_mutex_lock(&s->lock);
    s->reload = *cfg;
    s->reload_pending = 1;
    if (s->paused && s->steps == 0) s->steps = 1; /* apply it now even when paused */
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    snprintf(r, (size_t)n, "%s at the next epoch boundary (weights start afresh)", what);
    return 0;
}

static int c_load(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc != 2) {
        snprintf(r, (size_t)n, "load: usage: load cora|DIR|FILE");
        return GS_EINPUT;
    }
    pthread_mutex_lock(&s->lock);
    train_cfg_t c = s->reload_pending ? s->reload : s->t.cfg;
    pthread_mutex_unlock(&s->lock);
    snprintf(c.dataset, sizeof c.dataset, "%s", argv[1]);
    char what[128];
    snprintf(what, sizeof what, "loading %.100s", argv[1]);
    return queue_reload(s, &c, r, n, what);
}

static int c_model(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc < 2 || argc % 2) {
        snprintf(r, (size_t)n, "model: usage: model NAME [layers L] [hidden H] [heads K] [dropout X]");
        return GS_EINPUT;
    }
    if (!model_find(argv[1])) {
        snprintf(r, (size_t)n, "model: unknown model '%s' (%s)", argv[1], model_names());
        return GS_EINPUT;
    }
    pthread_mutex_lock(&s->lock);
    train_cfg_t c = s->reload_pending ? s->reload : s->t.cfg;
    pthread_mutex_unlock(&s->lock);
    snprintf(c.model, sizeof c.model, "%s", argv[1]);
    for (int i = 2; i < argc; i += 2) {
        char *end;
        double v = strtod(argv[i + 1], &end);
        int ok = *argv[i + 1] && !*end;
        if (!strcmp(argv[i], "layers") && ok && v >= 1 && v <= 64 && v == (int)v) c.layers = (int)v;
        else if (!strcmp(argv[i], "hidden") && ok && v >= 1 && v <= 65536 && v == (int)v) c.hidden = (int64_t)v;
        else if (!strcmp(argv[i], "heads") && ok && v >= 1 && v <= 64 && v == (int)v) c.heads = (int)v;
        else if (!strcmp(argv[i], "dropout") && ok && v >= 0 && v < 1) c.dropout = (float)v;
        else {
            snprintf(r, (size_t)n, "model: '%s %s' is not valid (layers 1-64, hidden 1-65536, heads 1-64, dropout [0,1))",
                     argv[i], argv[i + 1]);
            return GS_EINPUT;
        }
    }
    char what[64];
    snprintf(what, sizeof what, "switching to %s", argv[1]);
    return queue_reload(s, &c, r, n, what);
}

static int c_quit(session_t *s, int argc, char **argv, char *r, int n)
{
    (void)s, (void)argc, (void)argv;
    snprintf(r, (size_t)n, "quitting");
    return 1;
}

static int c_help(session_t *s, int argc, char **argv, char *r, int n);

static const struct {
    const char *name;
    cmd_fn fn;
    const char *help;
} commands[] = {
    {"pause", c_pause, "pause after the current epoch"},
    {"resume", c_resume, "keep training"},
    {"step", c_step, "train one epoch, then pause"},
    {"run", c_run, "run N: train N epochs, then pause"},
    {"set", c_set, "set KNOB VALUE: change a knob at the next epoch"},
    {"get", c_get, "get KNOB: current (and pending) value"},
    {"knobs", c_knobs, "list the knobs"},
    {"load", c_load, "load DATASET: restart on another dataset"},
    {"model", c_model, "model NAME [layers L] [hidden H] [heads K] [dropout X]: restart with another model"},
    {"trace", c_trace, "trace start FILE | trace stop"},
    {"checkpoint", c_checkpoint, "checkpoint save FILE"},
    {"export", c_export, "export metrics FILE: one CSV row per epoch so far"},
    {"help", c_help, "list the commands"},
    {"quit", c_quit, "leave (the current epoch finishes)"},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

static int c_help(session_t *s, int argc, char **argv, char *r, int n)
{
    (void)s, (void)argc, (void)argv;
    int w = snprintf(r, (size_t)n, "commands:");
    for (int i = 0; i < NCOMMANDS && w < n; i++) w += snprintf(r + w, (size_t)(n - w), " %s", commands[i].name);
    return 0;
}

const char *const *session_command_names(void)
{
    static const char *names[NCOMMANDS + 1];
    for (int i = 0; i < NCOMMANDS; i++) names[i] = commands[i].name;
    return names;
}

const char *session_command_help(void)
{
    static char buf[2048];
    int w = 0;
    for (int i = 0; i < NCOMMANDS; i++) w += snprintf(buf + w, sizeof buf - (size_t)w, "%-11s %s\n", commands[i].name, commands[i].help);
    return buf;
}

int session_command(session_t *s, const char *line, char *reply, int n)
{
    char buf[1024], *argv[8];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *tok = strtok(buf, " \t"); tok && argc < 8; tok = strtok(NULL, " \t")) argv[argc++] = tok;
    reply[0] = '\0';
    if (argc == 0) return 0;
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(argv[0], commands[i].name) == 0) return commands[i].fn(s, argc, argv, reply, n);
    snprintf(reply, (size_t)n, "unknown command '%s' (try 'help')", argv[0]);
    return GS_EINPUT;
}
