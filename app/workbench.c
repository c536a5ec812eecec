/* workbench.c - the workbench on a run (session_if.h), whether the run is
 * in this process or served by rank 0 of a distributed job: reads keys
 * with a 100 ms timeout (so the screen refreshes at >= 10 Hz without ever
 * waiting on training), feeds the console, runs the active script, and
 * draws the views. The terminal is restored on q, Ctrl-C, SIGTERM, SIGHUP,
 * errors and at exit. Headless, a script's lines and each epoch are
 * printed instead. */
#include "workbench.h"

#include <curses.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "engine/device/cuda_plugin.h"
#include "engine/train/knobs.h"
#include "base/parse.h"
#include "views/draw.h"
#include "views/lanes.h"
#include "views/plot.h"
#include "console.h"
#include "knob_delta.h"
#include "stop_signal.h"

static script_t active_script; /* the running script, if any (--script or source) */
static int have_active;
static double screen_pace = SCRIPT_PACE_KEY; /* how a script's says wait on the full screen */
static int on_screen;                       /* the full-screen workbench runs: scripts are paced */

int workbench_set_pace(const char *pace, gs_err_t *err)
{
    double p = script_parse_pace(pace);
    if (p < 0) return gs_fail(err, GS_EINPUT, "--pace: '%s' is not key, auto or auto=S (S in [0.5, 600] seconds)", pace);
    screen_pace = p;
    return GS_OK;
}

/* "source FILE" from the console: replaces the running script. */
static int source_script(const char *path, char *reply, int n)
{
    gs_err_t err;
    script_t next;
    if (script_load(&next, path, &err)) {
        snprintf(reply, (size_t)n, "%s", err.msg);
        return GS_EINPUT;
    }
    if (have_active) script_free(&active_script);
    active_script = next;
    have_active = 1;
    if (on_screen) script_set_pace(&active_script, screen_pace);
    snprintf(reply, (size_t)n, "running %s", path);
    return 0;
}

int workbench_load_script(const char *path, gs_err_t *err)
{
    script_t next;
    int rc = script_load(&next, path, err);
    if (rc) return rc;
    workbench_free_script();
    active_script = next;
    have_active = 1;
    return GS_OK;
}

void workbench_free_script(void)
{
    if (have_active) script_free(&active_script);
    have_active = 0;
}

static int curses_up;


static void restore_terminal(void)
{
    if (curses_up) {
        endwin();
        curses_up = 0;
    }
}

typedef struct {
    uint64_t span, t_end;
    int span_auto; /* until the user zooms: two epochs (with evaluation) */
    uint64_t notices; /* the engine's notices shown so far */
    int follow, help, focused;
    double busy_hist[PROF_MAX_DEV][VIEW_HIST];
    int nhist;
    uint64_t last_window;
    knob_delta_t delta; /* the knob a key changed, until its first epoch shows what it moved */
    timeline_nav_t nav; /* lane scrolling and the timeline's cursor */
    int plot_time;      /* the training plot against training time */
    int nbefore;        /* a demo's before: the spans of the window when its script marked */
    uint64_t before_t_end, before_span;
    long long before_epoch;
    char banner_seen[256];     /* the script's say line when it last changed */
    uint64_t typed_at_banner; /* console_typed() then: a later command's reply shows instead */
} ui_t;

/* The console's line: a script's say line, until the user enters a
 * command after it (then that command's reply). */
static void reply_line(ui_t *u, const script_t *sc, char *out, size_t n)
{
    const char *banner = sc ? script_banner(sc) : "";
    if (strcmp(banner, u->banner_seen)) {
        snprintf(u->banner_seen, sizeof u->banner_seen, "%s", banner);
        u->typed_at_banner = console_typed();
    }
    snprintf(out, n, "%s", banner[0] && console_typed() == u->typed_at_banner ? banner : console_reply());
}

static char key_of(const char *knob)
{
    const opt_t *o = knob_find(knob);
    return o ? o->key : 0;
}

static void add_knob_row(const session_if_t *s, const session_knob_t *k, view_state_t *v)
{
    if (v->nknobs == VIEW_MAX_KNOBS) return;
    knob_row_t *r = &v->knobs[v->nknobs++];
    snprintf(r->name, sizeof r->name, "%s", k->name);
    snprintf(r->value, sizeof r->value, "%s", k->value);
    s->pending(s->self, r->name, r->pending, sizeof r->pending);
    r->key = key_of(k->name);
    r->idle = k->idle;
}

/* The knob rows: values in force from the snapshot, pending ones from the
 * session; the knobs with a key first, in key order, so that a short
 * panel still shows them. */
static void knob_rows(const session_if_t *s, const session_snapshot_t *snap, view_state_t *v)
{
    v->nknobs = 0;
    for (char key = '0'; key <= '9'; key++)
        for (int i = 0; i < snap->nknobs; i++)
            if (key_of(snap->knobs[i].name) == key) add_knob_row(s, &snap->knobs[i], v);
    for (int i = 0; i < snap->nknobs; i++)
        if (!key_of(snap->knobs[i].name)) add_knob_row(s, &snap->knobs[i], v);
}

/* Cycles knob o through its choices (its key), from the pending value or the one in force. */
/* A knob's key: its next value, set as the console would; the delta line
 * follows once an epoch has run with it. */
static void cycle(const session_if_t *s, ui_t *u, const opt_t *o)
{
    char cur[96], cmd[160], next[64];
    session_snapshot_t *snap = malloc(sizeof *snap);
    if (!snap) return;
    s->snapshot(s->self, snap);
    s->pending(s->self, o->name, cur, sizeof cur);
    if (!cur[0]) opt_format(o, &snap->cfg, cur, sizeof cur);
    int k = gs_choice_index(o->choices, cur);
    gs_choice_name(o->choices, (k + 1) % gs_choice_count(o->choices), next, sizeof next);
    snprintf(cmd, sizeof cmd, "set %s %s", o->name, next);
    if (console_run(cmd) == 0) knob_delta_start(&u->delta, o->name, next, snap);
    free(snap);
}

/* The knob whose key is ch, or NULL. */
static const opt_t *knob_of_key(int ch)
{
    int n;
    const opt_t *k = knob_table(&n);
    for (int i = 0; i < n; i++)
        if (k[i].key && k[i].key == ch && k[i].kind == OPT_CHOICE) return &k[i];
    return NULL;
}

static int handle_key(const session_if_t *s, ui_t *u, int ch)
{
    if (u->focused) {
        if (ch == 27) {
            u->focused = 0; /* Esc leaves the console */
            return 0;
        }
        int quit = console_key(ch);
        if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) u->focused = 0; /* a command ran: keys go back to the panels */
        return quit;
    }
    session_snapshot_t snap;
    if (have_active && script_holding(&active_script) && (ch == ' ' || ch == '\n' || ch == KEY_ENTER)) {
        script_release(&active_script); /* a paced script goes on */
        return 0;
    }
    switch (ch) {
    case 'q': return 1;
    case ':': u->focused = 1; u->help = 0; break;
    case '?': u->help = !u->help; break;
    case 27: u->help = 0, timeline_nav_clear(&u->nav); break;
    case ' ':
        s->snapshot(s->self, &snap);
        console_run(snap.paused ? "resume" : "pause");
        break;
    case '+': case '=': if (u->span > 100000) u->span /= 2, u->span_auto = 0; break;
    case '-': if (u->span < 600000000000ull) u->span *= 2, u->span_auto = 0; break;
    case KEY_LEFT: u->follow = 0, u->t_end -= u->span / 4; break;
    case KEY_RIGHT: u->follow = 0, u->t_end += u->span / 4; break;
    case 'f': u->follow = 1; break;
    case 't': u->plot_time = !u->plot_time; break;
    case KEY_NPAGE: case ']': timeline_nav_scroll(&u->nav, 1); break;
    case KEY_PPAGE: case '[': timeline_nav_scroll(&u->nav, -1); break;
    case KEY_DOWN: timeline_nav_move(&u->nav, 1, 0); break;
    case KEY_UP: timeline_nav_move(&u->nav, -1, 0); break;
    case ',': timeline_nav_move(&u->nav, 0, -1); break;
    case '.': timeline_nav_move(&u->nav, 0, 1); break;
    case '<': timeline_nav_move(&u->nav, 0, -10); break;
    case '>': timeline_nav_move(&u->nav, 0, 10); break;
    case '\t': break; /* focus cycles between the panels and the console */
    default:
        if (knob_of_key(ch)) cycle(s, u, knob_of_key(ch));
        break;
    }
    if (ch == '\t') u->focused = !u->focused;
    return 0;
}

/* Whether the terminal behind stdin has hung up (its side closed without
 * a SIGHUP reaching us: reads return nothing, forever). */
static int terminal_gone(void)
{
    struct pollfd p = {STDIN_FILENO, POLLIN, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/* Every key waiting (a paste can hold thousands), at most 100 ms for the
 * first; returns 1 when one of them quits. */
static int take_keys(const session_if_t *s, ui_t *u)
{
    int ch = getch(), quit = 0;
    nodelay(stdscr, TRUE);
    for (int n = 0; ch != ERR && !quit && n < 65536; n++, ch = getch()) {
        if (ch == KEY_RESIZE) clear();
        else quit = handle_key(s, u, ch);
    }
    timeout(100);
    if (ch == ERR && terminal_gone()) stop_signal_raise(SIGHUP);
    return quit;
}

/* What the run is, for the header and the panels: its kind, devices, where it runs and the title line. */
static void describe_run(view_state_t *v, const session_snapshot_t *snap)
{
    v->kind = snap->kind;
    int sampled = snap->kind.driver == DRIVER_SAMPLED, streaming = snap->kind.engine == ENGINE_STREAM;
    /* a sampled run's steps run on the topology's first GPU, emulated */
    v->ndev = streaming ? snap->kind.devices : snap->gpu || sampled ? 1 : 0;
    v->emulated = (streaming && strcmp(snap->backend, "cpu") == 0) || sampled;
    v->simulated = snap->cfg.simulate;
    v->gpu = snap->gpu && gs_cuda_loaded();
    if (v->gpu) gs_cuda_loaded()->metrics(&v->gpu_m);
    v->gpu_note = snap->gpu_note;
    snprintf(v->topology, sizeof v->topology, "%s", snap->topology);
    v->nlinks = snap->nlinks, v->link_name = snap->link_name, v->link_rate = snap->link_rate;
    v->parts = snap->parts;
    snprintf(v->network, sizeof v->network, "%s", snap->cfg.network);
    char where[96];
    if (v->kind.ranks) snprintf(where, sizeof where, "%d ranks: %s network (emulated)", v->kind.ranks, v->network);
    else snprintf(where, sizeof where, "%s%s%s", sampled ? "sampled batches, " : v->emulated ? "cpu backend: " : v->gpu ? "cuda: " : "host memory",
                  v->emulated ? snap->topology : v->gpu ? v->gpu_m.gpu : "",
                  v->simulated ? " (SIMULATED)" : v->emulated ? " (emulated)" : streaming ? " streamed" : "");
    snprintf(v->title, sizeof v->title, " gnnscope  %s / %s  %s  epoch %d%s", snap->dataset, snap->model, where,
             snap->nepochs ? (int)snap->epochs[snap->nepochs - 1].epoch : 0,
             snap->failed ? "  ERROR" : snap->paused ? "  PAUSED" : snap->finished ? "  done" : "  running");
}

/* A demo's before and after on screen: when its script marks, the
 * timeline's window then is kept and drawn beside the live one, and the
 * demo's metric (its effect line's counters) is shown against now. */
static void demo_before(ui_t *u, view_state_t *v, const script_t *sc, const session_snapshot_t *snap)
{
    static prof_event_t before[PROF_HISTORY];
    if (!sc || !sc->marked) return;
    if (!u->nbefore) {
        uint64_t t0 = v->t_end - v->span;
        for (int i = 0; i < v->nevents; i++)
            if (v->events[i].t1 > t0 && v->events[i].t0 < v->t_end) before[u->nbefore++] = v->events[i];
        u->before_t_end = v->t_end, u->before_span = v->span, u->before_epoch = (long long)sc->mark.epoch;
        if (!u->nbefore) return; /* nothing drawn yet: try again next frame */
    }
    v->before_events = before, v->nbefore = u->nbefore;
    v->before_t_end = u->before_t_end, v->before_span = u->before_span, v->before_epoch = u->before_epoch;
    script_effect_now(sc, snap, v->metric_before, v->metric_now, sizeof v->metric_before);
}

static int run_loop(const session_if_t *s)
{
    static prof_event_t events[PROF_HISTORY];
    static view_state_t v;
    static session_snapshot_t snap;
    ui_t u = {.span = 200000000ull, .span_auto = 1, .follow = 1};
    timeline_nav_init(&u.nav);
    layout_t l;
    int quit = 0;
    while (!quit && !stop_signal()) {
        quit = take_keys(s, &u);
        s->snapshot(s->self, &snap);
        char typed_knob[32], typed_value[64];
        if (console_take_set(typed_knob, sizeof typed_knob, typed_value, sizeof typed_value))
            knob_delta_start(&u.delta, typed_knob, typed_value, &snap);
        script_t *sc = have_active ? &active_script : NULL;
        if (sc && script_step(sc, &snap)) quit = 1;
        if (snap.finished) quit = 1; /* --max-epochs reached */
        memset(&v, 0, sizeof v);
        s->window(s->self, &v.window);
        if (u.nhist == 0 || v.window.window_s > 0) { /* sample the busy history once per frame */
            if (u.nhist == VIEW_HIST) {
                for (int d = 0; d < PROF_MAX_DEV; d++) memmove(u.busy_hist[d], u.busy_hist[d] + 1, sizeof(double) * (VIEW_HIST - 1));
                u.nhist--;
            }
            for (int d = 0; d < PROF_MAX_DEV; d++) u.busy_hist[d][u.nhist] = v.window.busy[d][PL_COMPUTE];
            u.nhist++;
        }
        memcpy(v.busy_hist, u.busy_hist, sizeof v.busy_hist);
        v.nhist = u.nhist;
        v.nevents = s->history(s->self, events, PROF_HISTORY);
        v.events = events;
        v.latest = s->latest_ns(s->self);
        if (u.follow) u.t_end = v.latest;
        if (u.span_auto && snap.nepochs) {
            const epoch_stats_t *e = &snap.epochs[snap.nepochs - 1];
            u.span = (uint64_t)(plot_nice_max(2e6 * (e->epoch_ms + e->eval_ms)));
            if (u.span < 100000) u.span = 100000;
        }
        v.t_end = u.t_end, v.span = u.span, v.follow = u.follow;
        demo_before(&u, &v, sc, &snap);
        v.epochs = snap.epochs, v.nepochs = snap.nepochs, v.totals = snap.last_totals;
        describe_run(&v, &snap);
        if (snap.notice_seq != u.notices) { /* what the engine did with a request, at an epoch boundary */
            if (snap.notice[0]) console_set_reply("%s", snap.notice);
            u.notices = snap.notice_seq;
        }
        if (u.delta.active) { /* a key's knob: what it moved, once an epoch has run with it */
            char pend[96], line[256];
            s->pending(s->self, u.delta.knob, pend, sizeof pend);
            if (knob_delta_poll(&u.delta, pend, &snap, line, sizeof line)) console_set_reply("%s", line);
        }
        if (snap.failed && !console_reply()[0]) console_set_reply("error: %s", snap.error);
        knob_rows(s, &snap, &v);
        reply_line(&u, sc, v.reply, sizeof v.reply);
        v.input = u.focused ? console_line(&v.cursor) : NULL;
        v.help = u.help;
        v.help_text = session_command_help();
        lane_row_t lanes[LANES_MAX];
        int nlanes = timeline_lanes(&v, lanes);
        layout_compute(LINES, COLS, layout_timeline_rows(nlanes), &l);
        const rect_t *tl = &l.r[PANEL_TIMELINE]; /* a title, the lanes, the axis; 10 label columns */
        int live_w = v.nbefore > 0 && tl->w >= VIEW_SPLIT_MIN_W ? tl->w - tl->w / 2 : tl->w; /* a demo's before takes the left half */
        timeline_nav_fit(&u.nav, nlanes, tl->h - 2, live_w - 11 < 512 ? live_w - 11 : 512);
        v.nav = u.nav, v.plot_time = u.plot_time;
        draw_screen(&l, &v);
    }
    return stop_signal_exit_code();
}

/* A script without a terminal (classroom rehearsal, tests): says and
 * replies are printed as lines; stops when the script and its waits are
 * done, or at --max-epochs. The script drives the epochs: the session
 * starts paused and each epoch is a step taken after the script has seen
 * the one before, so a run reproduces its script exactly. */
int workbench_headless(const session_if_t *s)
{
    session_snapshot_t *snap = malloc(sizeof *snap);
    static char said[SCRIPT_MAX_SAID][512];
    int quit = 0;
    uint64_t shown = 0, notices = 0;
    if (!snap || !have_active) {
        free(snap);
        return 1;
    }
    console_attach(s);
    console_set_source_handler(source_script);
    char reply[256];
    while (!quit && !stop_signal()) {
        s->snapshot(s->self, snap);
        if (script_step(&active_script, snap)) quit = 1;
        int n = script_take_said(&active_script, said, SCRIPT_MAX_SAID);
        for (int i = 0; i < n; i++) printf("%s\n", said[i]);
        if (snap->notice_seq != notices) { /* what the engine did with a request, at an epoch boundary */
            if (notices || snap->notice[0]) printf("   %s\n", snap->notice);
            notices = snap->notice_seq;
        }
        if (snap->nepochs && snap->epochs_total != shown) {
            const epoch_stats_t *e = &snap->epochs[snap->nepochs - 1];
            if (snap->kind.driver == DRIVER_DIST)
                printf("epoch %4lld  loss %.4f  test %.4f  %.3f ms + eval %.3f ms  net %.2f MB  wait %.3f ms  replica %.3f ms  "
                       "comm hidden %.0f%%\n", /* the rank counters cover the step and its evaluation */
                       (long long)e->epoch, e->loss, e->test_acc, e->epoch_ms, e->eval_ms, e->net_bytes / 1e6, e->stall_ms,
                       e->replica_ms, 100 * e->comm_hidden);
            else if (snap->kind.driver == DRIVER_SAMPLED)
                printf("epoch %4lld  loss %.4f  test %.4f  %.3f ms  %.0f batches  S %.2f ms  R %.2f ms  K %.2f ms  T %.2f ms  "
                       "steps %.2f ms  step waits %.2f ms\n",
                       (long long)e->epoch, e->loss, e->test_acc, e->epoch_ms, e->batches, e->sample_ms, e->reindex_ms,
                       e->lookup_ms, e->batch_copy_ms, e->step_ms, e->prepro_wait_ms);
            else
                printf("epoch %4lld  loss %.4f  test %.4f  %.3f ms  h2d %.2f MB  gathers %.2f MB  d2d %.2f MB  hidden %.0f%%\n",
                       (long long)e->epoch, e->loss, e->test_acc, e->epoch_ms, e->h2d_bytes / 1e6, e->gather_h2d_bytes / 1e6,
                       e->d2d_bytes / 1e6, 100 * e->hidden_frac);
            shown = snap->epochs_total;
        }
        fflush(stdout);
        if (snap->failed) break;
        if (snap->finished || script_done(&active_script)) quit = 1;
        /* lockstep: the session started paused, and the next epoch runs only once the script has
         * seen the last one, so a `set` lands at the next boundary however busy the machine is */
        if (!quit && snap->idle) s->command(s->self, "step", reply, sizeof reply);
        struct timespec nap = {0, 5000000};
        nanosleep(&nap, NULL);
    }
    int failed = snap->failed;
    if (failed) fprintf(stderr, "gnnscope: error: %s\n", snap->error);
    else if (active_script.effect[0]) printf("%s\n", active_script.effect); /* the demo's outcome, last */
    free(snap);
    return failed ? 1 : stop_signal_exit_code();
}

/* The full-screen workbench on s until q, a signal or the run's end;
 * prints the run's outcome on the restored terminal. */
int workbench_screen(const session_if_t *s)
{
    atexit(restore_terminal);
    setlocale(LC_ALL, "");
    initscr();
    curses_up = 1;
    cbreak();
    struct termios tio; /* no XON/XOFF: Ctrl-S must not freeze the screen (curses restores the mode on exit) */
    if (tcgetattr(STDIN_FILENO, &tio) == 0) {
        tio.c_iflag &= (tcflag_t)~IXON;
        tcsetattr(STDIN_FILENO, TCSANOW, &tio);
    }
    noecho();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    timeout(100); /* >= 10 frames a second */
    int color;
    draw_init_colors(&color);
    console_init(s);
    console_set_source_handler(source_script);
    on_screen = 1;
    if (have_active) script_set_pace(&active_script, screen_pace);
    int rc = run_loop(s);
    on_screen = 0;
    console_shutdown();
    restore_terminal();
    session_snapshot_t *snap = malloc(sizeof *snap);
    if (!snap) return rc;
    s->snapshot(s->self, snap);
    if (snap->nepochs) {
        const epoch_stats_t *e = &snap->epochs[snap->nepochs - 1];
        printf("gnnscope: epoch %lld, final loss %.4f, test acc %.4f\n", (long long)e->epoch, e->loss, e->test_acc);
    }
    if (snap->failed) {
        fprintf(stderr, "gnnscope: error: %s\n", snap->error);
        rc = 1;
    }
    free(snap);
    return rc;
}

