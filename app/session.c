/* session.c - see session.h. Commands come from a table of {name, fn,
 * help}; scripts run the same table. The engine thread's loop takes the
 * requests under the lock, serves them and trains outside it. */
#include "session.h"
#include "cora_setting.h"
#include "knob_words.h"
#include "session_counter.h"
#include "session_publish.h"
#include "engine/train/knob_notes.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "engine/dist/dist_comm.h"
#include "profile_sink.h"

/* ---------------- the engine thread ---------------- */

/* The engine's refusal of a console request, in the console's words (knob_words.h). */
static void notice_refusal(session_t *s, const char *head, const gs_err_t *err)
{
    char why[sizeof err->msg];
    knob_words(err->msg, why, sizeof why);
    session_notice(s, "%s: %s", head, why);
}

/* load / model: opens the new run beside the old one and swaps them only
 * when it opened; a failure leaves the running session as it was.
 * Returns whether it opened. */
static int serve_reload(session_t *s, const train_cfg_t *cfg)
{
    trainer_t *next = malloc(sizeof *next);
    gs_err_t err;
    int rc = next ? trainer_open(next, cfg, &s->env, &err) : gs_fail(&err, GS_EFAIL, "out of memory");
    if (rc) {
        if (next) trainer_close(next);
        free(next);
        char head[256];
        snprintf(head, sizeof head, "%.64s on %.120s not opened, the run goes on", cfg->model, cfg->dataset);
        notice_refusal(s, head, &err);
        return 0;
    }
    pthread_mutex_lock(&s->lock); /* session_close reads the pointer under it */
    trainer_t *old = s->t;
    s->t = next;
    pthread_mutex_unlock(&s->lock);
    trainer_close(old);
    free(old);
    pthread_mutex_lock(&s->snap_lock);
    s->snap.nepochs = 0;
    pthread_mutex_unlock(&s->snap_lock);
    session_notice(s, "now training %s on %s (weights start afresh)", cfg->model, s->t->data.ds.name);
    session_notice_warnings(s, s->t);
    return 1;
}

static void serve_saves(session_t *s, char (*saves)[4096], int n)
{
    for (int i = 0; i < n; i++) {
        gs_err_t err;
        if (trainer_save(s->t, saves[i], &err)) session_notice(s, "checkpoint not saved: %s", err.msg);
        else session_notice(s, "checkpoint of epoch %lld saved to %s", (long long)s->t->epoch, saves[i]);
    }
}

static void serve_knobs(session_t *s, const train_cfg_t *want)
{
    gs_err_t err;
    trainer_set_pending(s->t, want);
    if (s->t->kind.driver == DRIVER_DIST) return; /* a rank: the change goes to every rank at the next boundary, applied there */
    if (knob_apply(s->t, &err)) notice_refusal(s, "the change did not apply, the previous settings stay", &err);
}

/* The epoch loop's step (trainer_next): a distributed run first sends
 * rank 0's stop and knob changes to every rank (which waits there), and a
 * failure there or in the epoch ends the job (the other ranks cannot go
 * on without this one). */
static int next_epoch(session_t *s, int stop, epoch_stats_t *st, gs_err_t *err)
{
    int stopped, rc = trainer_next(s->t, stop, &stopped, st, err);
    if (rc && s->dist && !s->quit) {
        fprintf(stderr, "gnnscope: error: %s\n", err->msg);
        dist_comm_abort(s->env.comm, 1);
    }
    return rc;
}

static void *engine_main(void *arg)
{
    session_t *s = arg;
    static char saves[SESSION_MAX_SAVES][4096];
    pthread_mutex_lock(&s->lock);
    for (;;) {
        int done = s->max_epochs && s->t->epoch >= s->max_epochs;
        while (!s->quit && !done && !s->nsaves && !s->reload_pending && !s->has_want && s->paused && s->steps == 0) {
            s->idle = 1; /* every request so far is served */
            pthread_cond_wait(&s->wake, &s->lock);
        }
        s->idle = 0;
        if (s->quit || (done && !s->nsaves)) break; /* --max-epochs reached: the run is finished */
        int nsaves = s->nsaves, reloading = s->reload_pending, knobs = s->has_want;
        memcpy(saves, s->saves, sizeof saves);
        train_cfg_t reload = s->reload, want = s->want;
        s->nsaves = 0, s->reload_pending = 0, s->has_want = 0;
        if (knobs || reloading) s->applying = reloading ? reload : want, s->has_applying = 1;
        int run = !done && !(s->paused && s->steps == 0);
        if (run && s->steps > 0) s->steps--;
        pthread_mutex_unlock(&s->lock);
        serve_saves(s, saves, nsaves); /* the last finished epoch, before anything changes */
        if (reloading && serve_reload(s, &reload)) knobs = 0; /* the reload holds the changes set before it */
        if (knobs) serve_knobs(s, &want);
        if (!run) {
            session_publish(s, NULL, 0, "");
            pthread_mutex_lock(&s->lock);
            s->has_applying = 0; /* the snapshot shows the change now */
            continue;
        }
        gs_err_t err = {0};
        epoch_stats_t st;
        int rc = next_epoch(s, 0, &st, &err);
        if (rc && s->quit) { /* stopped mid-epoch on purpose: the last finished epoch stands */
            pthread_mutex_lock(&s->lock);
            break;
        }
        session_publish(s, rc ? NULL : &st, rc != 0, err.msg);
        pthread_mutex_lock(&s->lock);
        s->has_applying = 0;
        if (rc) s->paused = 1, s->steps = 0; /* a failed epoch: wait for the user */
        else if (s->pause_at && s->t->epoch >= s->pause_at) s->paused = 1, s->steps = 0, s->pause_at = 0; /* --epochs reached */
    }
    pthread_mutex_unlock(&s->lock);
    gs_err_t ignored;
    epoch_stats_t none;
    next_epoch(s, 1, &none, &ignored); /* the other ranks stop too */
    pthread_mutex_lock(&s->snap_lock);
    s->snap.finished = 1;
    pthread_mutex_unlock(&s->snap_lock);
    return NULL;
}

int session_open(session_t *s, const train_cfg_t *cfg, struct dist_comm *comm, long max_epochs, const char *checkpoint,
                 const char *metrics, int start_paused, gs_err_t *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->checkpoint, sizeof s->checkpoint, "%s", checkpoint ? checkpoint : "");
    metrics_init(&s->metrics, metrics ? metrics : "");
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->snap_lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    int rc = prof_init(&s->prof, err);
    if (rc) return rc;
    s->env = (train_env_t){sink_task, sink_op, sink_dist_event, sink_stage, &s->prof, comm, 0};
    if (!(s->t = malloc(sizeof *s->t))) {
        prof_shutdown(&s->prof);
        return gs_fail(err, GS_EFAIL, "out of memory");
    }
    if ((rc = trainer_open(s->t, cfg, &s->env, err))) {
        trainer_close(s->t);
        free(s->t);
        prof_shutdown(&s->prof);
        return rc;
    }
    session_notice_warnings(s, s->t);
    char why[256];
    if (sink_attach_gpu(&s->prof, &s->t->cfg, why, sizeof why))
        snprintf(s->gpu_note, sizeof s->gpu_note, "no GPU timeline: CUPTI: %s", why);
    s->max_epochs = max_epochs;
    s->paused = start_paused != 0;
    s->dist = s->t->kind.driver == DRIVER_DIST;
    session_publish(s, NULL, 0, "");
    if (pthread_create(&s->engine, NULL, engine_main, s) != 0) {
        trainer_close(s->t);
        free(s->t);
        prof_shutdown(&s->prof);
        return gs_fail(err, GS_EFAIL, "cannot start the engine thread");
    }
    s->started = 1;
    return GS_OK;
}

void session_own_cora_setting(session_t *s, unsigned owned)
{
    pthread_mutex_lock(&s->lock);
    s->cora_owned = owned;
    pthread_mutex_unlock(&s->lock);
}

void session_close(session_t *s)
{
    if (!s->started) return;
    pthread_mutex_lock(&s->lock);
    s->quit = 1;
    atomic_store(&s->t->abort_epoch, 1); /* a streamed epoch stops after the chunk in flight */
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->engine, NULL);
    gs_err_t ignored;
    prof_trace_stop(&s->prof, &ignored);
    trainer_close(s->t);
    free(s->t);
    prof_shutdown(&s->prof);
    metrics_free(&s->metrics);
    s->started = 0;
}

void session_snapshot(session_t *s, session_snapshot_t *out)
{
    /* the run state first: the engine publishes before it goes idle, so a
     * snapshot that says idle holds everything served until then (read the
     * other way round, an idle flag could come with a snapshot from before
     * the last request's notice) */
    pthread_mutex_lock(&s->lock);
    int paused = s->paused, idle = s->idle;
    pthread_mutex_unlock(&s->lock);
    pthread_mutex_lock(&s->snap_lock);
    *out = s->snap;
    pthread_mutex_unlock(&s->snap_lock);
    out->paused = paused, out->idle = idle;
}

/* ---------------- commands ---------------- */

typedef int (*cmd_fn)(session_t *s, int argc, char **argv, char *reply, int n);

static int say(char *r, int n, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int say(char *r, int n, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r, (size_t)n, fmt, ap);
    va_end(ap);
    return rc;
}

static void set_state(session_t *s, int paused, long steps)
{
    pthread_mutex_lock(&s->lock);
    s->paused = paused;
    s->steps = steps;
    s->idle = 0;
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

/* pause, resume and step: the run state the engine reads at the next boundary. */
static int c_state(session_t *s, int argc, char **argv, char *r, int n)
{
    (void)argc;
    int step = !strcmp(argv[0], "step"), pause = step || !strcmp(argv[0], "pause");
    set_state(s, pause, step);
    return say(r, n, GS_OK, "%s", step ? "one epoch" : pause ? "paused (the current epoch finishes)" : "running");
}

static int c_run(session_t *s, int argc, char **argv, char *r, int n)
{
    char *end;
    long k = argc == 2 ? strtol(argv[1], &end, 10) : -1;
    if (argc != 2 || *end || k < 1 || k > 100000000) return say(r, n, GS_EINPUT, "run: usage: run N (N in [1, 100000000] epochs)");
    set_state(s, 1, k);
    return say(r, n, GS_OK, "running %ld epochs", k);
}

/* The running trainer's configuration with its pending changes; s->lock held. */
static train_cfg_t running_cfg(session_t *s)
{
    if (s->has_want) return s->want;
    if (s->has_applying) return s->applying; /* taken by the engine, not yet in the snapshot */
    pthread_mutex_lock(&s->snap_lock);
    train_cfg_t c = s->snap.cfg;
    pthread_mutex_unlock(&s->snap_lock);
    return c;
}

/* The configuration a change starts from: a pending reopen's, or the running one's; s->lock held. */
static train_cfg_t base_cfg(session_t *s) { return s->reload_pending ? s->reload : running_cfg(s); }

static int c_set(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc != 3) return say(r, n, GS_EINPUT, "set: usage: set KNOB VALUE (see 'knobs')");
    gs_err_t err;
    pthread_mutex_lock(&s->snap_lock);
    knob_facts_t facts = s->snap.facts;
    pthread_mutex_unlock(&s->snap_lock);
    pthread_mutex_lock(&s->lock);
    train_cfg_t c = base_cfg(s);
    int rc = knob_parse_run(&c, argv[1], argv[2], &facts, &err);
    if (!rc && s->reload_pending) { /* the run the engine reopens, and the running one should the reopening fail */
        s->reload = c;
        train_cfg_t now = running_cfg(s);
        gs_err_t ignored; /* the value may suit only the new run: then the running one keeps its own */
        if (!knob_parse_run(&now, argv[1], argv[2], &facts, &ignored)) s->want = now, s->has_want = 1;
    } else if (!rc)
        s->want = c, s->has_want = 1;
    if (!rc) {
        s->cora_owned &= ~cora_setting_bit(argv[1]);
        s->idle = 0;
        pthread_cond_broadcast(&s->wake);
    }
    pthread_mutex_unlock(&s->lock);
    if (rc) return say(r, n, rc, "%s", err.msg);
    char idle[256];
    if (knob_idle_note(argv[1], &c, idle, sizeof idle)) return say(r, n, GS_OK, "%s = %s at the next epoch; note: %s", argv[1], argv[2], idle);
    return say(r, n, GS_OK, "%s = %s at the next epoch", argv[1], argv[2]);
}

/* The pending value of knob o (empty when none); s->lock held. */
static void pending_locked(session_t *s, const opt_t *o, char *out, size_t n)
{
    out[0] = '\0';
    if (!o || !(s->reload_pending || s->has_want || s->has_applying)) return;
    char now[96];
    pthread_mutex_lock(&s->snap_lock);
    opt_format(o, &s->snap.cfg, now, sizeof now);
    pthread_mutex_unlock(&s->snap_lock);
    train_cfg_t pending = base_cfg(s);
    opt_format(o, &pending, out, n);
    if (strcmp(now, out) == 0) out[0] = '\0';
}

void session_pending(session_t *s, const char *knob, char *out, size_t n)
{
    pthread_mutex_lock(&s->lock);
    pending_locked(s, knob_find(knob), out, n);
    pthread_mutex_unlock(&s->lock);
}

static int c_get(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc != 2) return say(r, n, GS_EINPUT, "get: usage: get KNOB");
    const opt_t *o = knob_find(argv[1]);
    if (!o || o->when == WHEN_START) return say(r, n, GS_EINPUT, "get: unknown knob '%s' (see 'knobs')", argv[1]);
    char now[64] = "", then[96];
    pthread_mutex_lock(&s->lock); /* the value in force and the pending one from the same moment */
    pthread_mutex_lock(&s->snap_lock);
    const char *refused = knob_refusal(o, &s->snap.facts.kind); /* as set says it */
    for (int i = 0; i < s->snap.nknobs; i++)
        if (!strcmp(s->snap.knobs[i].name, argv[1])) snprintf(now, sizeof now, "%s", s->snap.knobs[i].value);
    pthread_mutex_unlock(&s->snap_lock);
    pending_locked(s, o, then, sizeof then);
    pthread_mutex_unlock(&s->lock);
    if (refused) return say(r, n, GS_EINPUT, "get %s: %s", argv[1], refused);
    if (then[0]) return say(r, n, GS_OK, "%s = %s (-> %s at the next epoch)", argv[1], now, then);
    return say(r, n, GS_OK, "%s = %s", argv[1], now);
}

static int c_knobs(session_t *s, int argc, char **argv, char *r, int n)
{
    (void)s, (void)argc, (void)argv;
    int count, w = snprintf(r, (size_t)n, "knobs:");
    const opt_t *k = knob_table(&count);
    for (int i = 0; i < count && w < n; i++)
        if (k[i].when != WHEN_START) w += snprintf(r + w, (size_t)(n - w), " %s", k[i].name);
    return GS_OK;
}

static int c_trace(session_t *s, int argc, char **argv, char *r, int n)
{
    gs_err_t err;
    if (argc == 3 && strcmp(argv[1], "start") == 0) {
        if (prof_trace_start(&s->prof, argv[2], &err)) return say(r, n, GS_EINPUT, "%s", err.msg);
        return say(r, n, GS_OK, "tracing to %s", argv[2]);
    }
    if (argc == 2 && strcmp(argv[1], "stop") == 0) {
        char path[4096];
        int rc = prof_trace_stop_report(&s->prof, path, sizeof path, &err);
        if (rc < 0) return say(r, n, GS_EINPUT, "trace stop: no trace is being written");
        if (rc) return say(r, n, GS_EFAIL, "%s", err.msg);
        return say(r, n, GS_OK, "trace written to %s", path);
    }
    return say(r, n, GS_EINPUT, "trace: usage: trace start FILE | trace stop");
}

static int c_checkpoint(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc != 3 || strcmp(argv[1], "save") != 0) return say(r, n, GS_EINPUT, "checkpoint: usage: checkpoint save FILE");
    gs_err_t err;
    if (atomic_target_ok(argv[2], &err)) return say(r, n, GS_EINPUT, "checkpoint: %s", err.msg);
    pthread_mutex_lock(&s->lock);
    int rc = s->nsaves < SESSION_MAX_SAVES ? GS_OK : GS_EINPUT;
    if (!rc) snprintf(s->saves[s->nsaves++], sizeof s->saves[0], "%s", argv[2]), s->idle = 0, pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    if (rc) return say(r, n, rc, "checkpoint: %d saves are already waiting for the epoch to end", SESSION_MAX_SAVES);
    return say(r, n, GS_OK, "checkpoint to %s when the current epoch ends", argv[2]);
}

static int c_export(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc != 3 || strcmp(argv[1], "metrics") != 0) return say(r, n, GS_EINPUT, "export: usage: export metrics FILE");
    gs_err_t err;
    pthread_mutex_lock(&s->snap_lock); /* the engine appends rows under the snapshot lock */
    int rc = metrics_write(&s->metrics, argv[2], &err);
    pthread_mutex_unlock(&s->snap_lock);
    if (rc) return say(r, n, rc, "export: %s", err.msg);
    return say(r, n, GS_OK, "metrics written to %s", argv[2]);
}

/* Queues a reopen with cfg; it happens at the next epoch boundary. */
static int queue_reload(session_t *s, const train_cfg_t *cfg, char *r, int n, const char *what)
{
    pthread_mutex_lock(&s->lock);
    s->reload = *cfg; /* it holds the pending changes (base_cfg); they stay pending should the reopening fail */
    s->reload_pending = 1;
    s->idle = 0;
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    return say(r, n, GS_OK, "%s at the next epoch boundary (weights start afresh; a failure keeps this run)", what);
}

/* The configuration a reopen starts from, and (when asked) the knobs the Cora setting owns. */
static train_cfg_t reload_base(session_t *s, unsigned *cora_owned)
{
    pthread_mutex_lock(&s->lock);
    train_cfg_t c = base_cfg(s);
    if (cora_owned) *cora_owned = s->cora_owned;
    pthread_mutex_unlock(&s->lock);
    return c;
}

static int c_load(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc != 2) return say(r, n, GS_EINPUT, "load: usage: load cora|DIR|FILE");
    if (s->dist) return say(r, n, GS_EINPUT, "load: a distributed run keeps its dataset (restart gnnscope with --dataset)");
    unsigned cora_owned;
    train_cfg_t c = reload_base(s, &cora_owned);
    const opt_t *o = knob_find("dataset");
    char why[256], what[160];
    if (opt_parse(o, &c, argv[1], why, sizeof why)) return say(r, n, GS_EINPUT, "load: %s", why);
    cora_setting_apply(&c, cora_owned); /* the knobs it owns start where they start on the new dataset */
    snprintf(what, sizeof what, "loading %.100s", argv[1]);
    return queue_reload(s, &c, r, n, what);
}

/* The options that shape a model, "a, b, c" (OPTF_MODEL). */
static const char *model_options(void)
{
    static char list[128];
    int n, w = 0;
    const opt_t *k = knob_table(&n);
    for (int i = 0; i < n; i++)
        if (k[i].flags & OPTF_MODEL) w += snprintf(list + w, sizeof list - (size_t)w, "%s%s", w ? ", " : "", k[i].name);
    return list;
}

static int c_model(session_t *s, int argc, char **argv, char *r, int n)
{
    if (argc < 2 || argc % 2) return say(r, n, GS_EINPUT, "model: usage: model NAME [OPTION VALUE]... (options: %s)", model_options());
    if (s->dist) return say(r, n, GS_EINPUT, "model: a distributed run keeps its model (restart gnnscope with --model)");
    train_cfg_t c = reload_base(s, NULL);
    char why[256], what[64];
    if (opt_parse(knob_find("model"), &c, argv[1], why, sizeof why)) return say(r, n, GS_EINPUT, "model: %s", why);
    for (int i = 2; i < argc; i += 2) {
        const opt_t *o = knob_find(argv[i]);
        if (!o || !(o->flags & OPTF_MODEL)) return say(r, n, GS_EINPUT, "model: '%s' is not one of %s", argv[i], model_options());
        if (opt_parse(o, &c, argv[i + 1], why, sizeof why)) return say(r, n, GS_EINPUT, "model: %s %s", argv[i], why);
    }
    snprintf(what, sizeof what, "switching to %s", c.model);
    return queue_reload(s, &c, r, n, what);
}

/* counter, mark and compare: they read the snapshot, under its lock. */
static int c_snapshot(session_t *s, int argc, char **argv, char *r, int n)
{
    pthread_mutex_lock(&s->snap_lock);
    int rc = !strcmp(argv[0], "counter") ? counter_describe(&s->snap, argc, argv, r, n)
             : !strcmp(argv[0], "mark")  ? mark_take(&s->mark, &s->snap, r, n)
                                         : mark_compare(&s->mark, &s->snap, r, n);
    pthread_mutex_unlock(&s->snap_lock);
    return rc;
}

static int c_quit(session_t *s, int argc, char **argv, char *r, int n)
{
    (void)s, (void)argc, (void)argv;
    return say(r, n, SESSION_QUIT, "quitting");
}

static int c_help(session_t *s, int argc, char **argv, char *r, int n);

static const struct {
    const char *name;
    cmd_fn fn;
    const char *help;
    int max_words; /* the command's words at most, its name included (0: the command checks) */
} commands[] = {
    {"pause", c_state, "pause after the current epoch", 1},
    {"resume", c_state, "keep training", 1},
    {"step", c_state, "train one epoch, then pause", 1},
    {"run", c_run, "run N: train N epochs, then pause", 0},
    {"set", c_set, "set KNOB VALUE: change a knob at the next epoch", 0},
    {"get", c_get, "get KNOB: current (and pending) value", 0},
    {"knobs", c_knobs, "list the knobs", 1},
    {"load", c_load, "load DATASET: restart on another dataset", 0},
    {"model", c_model, "model NAME [layers L] [hidden H] [heads K] [dropout X]: restart with another model", 0},
    {"trace", c_trace, "trace start FILE | trace stop", 0},
    {"checkpoint", c_checkpoint, "checkpoint save FILE: when the current epoch ends", 0},
    {"export", c_export, "export metrics FILE: one CSV row per epoch so far", 0},
    {"counter", c_snapshot, "counter NAME: what a counter of the panels, JSON and CSV measures, and its last value", 0},
    {"mark", c_snapshot, "mark the last epoch's counters and knobs (then compare)", 1},
    {"compare", c_snapshot, "compare: the knobs changed and the counters moved since the mark", 1},
    {"help", c_help, "list the commands", 1},
    {"quit", c_quit, "leave (the current epoch finishes)", 1},
    {"q", c_quit, "quit (as :q in vi)", 1},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

static int c_help(session_t *s, int argc, char **argv, char *r, int n)
{
    (void)s, (void)argc, (void)argv;
    int w = snprintf(r, (size_t)n, "commands:");
    for (int i = 0; i < NCOMMANDS && w < n; i++) w += snprintf(r + w, (size_t)(n - w), " %s", commands[i].name);
    if (w < n) snprintf(r + w, (size_t)(n - w), " source"); /* the console's own */
    return GS_OK;
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
    snprintf(buf + w, sizeof buf - (size_t)w, "%-11s %s\n", "source", "source FILE: run a script (these commands, say, wait, mark, effect)");
    return buf;
}

int session_command(session_t *s, const char *line, char *reply, int n)
{
    enum { MAX_WORDS = 16 };
    char buf[1024], *argv[MAX_WORDS + 1];
    int argc = 0;
    reply[0] = '\0';
    size_t len = strlen(line);
    if (len >= sizeof buf) /* never run a cut line: its last word (a path) would be another */
        return say(reply, n, GS_EINPUT, "a command of %zu characters is too long (at most %zu)", len, sizeof buf - 1);
    memcpy(buf, line, len + 1);
    for (char *tok = strtok(buf, " \t"); tok && argc <= MAX_WORDS; tok = strtok(NULL, " \t")) argv[argc++] = tok;
    if (argc == 0) return GS_OK;
    if (argc > MAX_WORDS) return say(reply, n, GS_EINPUT, "%.64s: more than %d words", argv[0], MAX_WORDS);
    for (int i = 0; i < NCOMMANDS; i++) {
        if (strcmp(argv[0], commands[i].name) != 0) continue;
        if (commands[i].max_words && argc > commands[i].max_words)
            return say(reply, n, GS_EINPUT, "%s takes no arguments ('%.64s' is one too many)", argv[0], argv[1]);
        return commands[i].fn(s, argc, argv, reply, n);
    }
    return say(reply, n, GS_EINPUT, "unknown command '%.64s' (try 'help')", argv[0]);
}
