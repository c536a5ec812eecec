/* draw.c - see draw.h. All geometry comes from layout.c, all binning from
 * timeline_bin.c and all scaling from plot.c; this file only paints. */
#include "draw.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "lanes.h"
#include "plot.h"
#include "timeline_bin.h"

enum { C_TITLE = 1, C_FWD, C_BWD, C_OPT, C_HEAD, C_WARN };
static int colors;

void draw_init_colors(int *has_color)
{
    colors = has_colors();
    if (colors) {
        start_color();
        use_default_colors();
        init_pair(C_TITLE, COLOR_BLACK, COLOR_CYAN);
        init_pair(C_FWD, COLOR_GREEN, -1);
        init_pair(C_BWD, COLOR_MAGENTA, -1);
        init_pair(C_OPT, COLOR_YELLOW, -1);
        init_pair(C_HEAD, COLOR_CYAN, -1);
        init_pair(C_WARN, COLOR_RED, -1);
    }
    *has_color = colors;
}

static void on(int pair, int attr)
{
    if (colors && pair) attron(COLOR_PAIR(pair));
    if (attr) attron(attr);
}

static void off(int pair, int attr)
{
    if (colors && pair) attroff(COLOR_PAIR(pair));
    if (attr) attroff(attr);
}

static void head(rect_t r, const char *text)
{
    on(C_HEAD, A_BOLD);
    mvprintw(r.y, r.x, "%-*.*s", r.w, r.w, text);
    off(C_HEAD, A_BOLD);
}

static void line(rect_t r, int row, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(rect_t r, int row, const char *fmt, ...)
{
    if (row >= r.h) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    mvprintw(r.y + row, r.x, "%-*.*s", r.w - 1, r.w - 1, buf);
}

static void spark(const double *v, int n, double top, char *out, int width)
{
    static const char glyphs[] = " .,:;!|I#@"; /* none of the timeline's phase glyphs (= - o s) */
    int lv[VIEW_HIST > 256 ? VIEW_HIST : 256];
    if (n > width) v += n - width, n = width;
    plot_levels(v, n, top, 10, lv);
    for (int i = 0; i < n; i++) out[i] = glyphs[lv[i]];
    out[n] = '\0';
}

/* The time axis under the lanes: a tick at each quarter of the window,
 * labelled with its distance before the window's right edge ("now" when
 * live). */
static void draw_axis(rect_t r, int row, int label, int width, uint64_t span, int live)
{
    char axis[520];
    memset(axis, ' ', (size_t)width);
    axis[width] = '\0';
    for (int k = 0; k <= 4; k++) {
        int c = k * (width - 1) / 4;
        char t[32];
        if (k == 4) snprintf(t, sizeof t, "%s", live ? "now" : "end");
        else snprintf(t, sizeof t, "-%.3g ms", (double)span * (4 - k) / 4 / 1e6);
        int len = (int)strlen(t), at = k == 4 ? c - len : c + 1; /* the last label left of its tick */
        if (at >= 0 && at + len <= width) memcpy(axis + at, t, (size_t)len);
        axis[c] = '|';
    }
    mvprintw(r.y + row, r.x, "%-*s%s", label, " time", axis);
}

/* The timeline's title: its window, legend and keys; with lanes off
 * screen, which are shown; with the cursor, the span under it instead. */
static void timeline_title(rect_t r, const view_state_t *v, const lane_row_t *lanes, int nlanes, int shown, int width)
{
    char hdr[320], where[64], which[64] = "";
    const timeline_nav_t *nav = &v->nav;
    if (nav->cur_lane >= 0 && nav->cur_lane < nlanes) {
        uint64_t t0 = v->t_end - v->span, c0 = t0 + (uint64_t)((double)v->span * nav->cur_col / width);
        uint64_t c1 = t0 + (uint64_t)((double)v->span * (nav->cur_col + 1) / width);
        const lane_row_t *l = &lanes[nav->cur_lane];
        char what[256];
        timeline_describe(timeline_span_at(v->events, v->nevents, l->device, l->lane, c0, c1), l->label, v->t_end, what, sizeof what);
        snprintf(hdr, sizeof hdr, " ^ %s  (arrows , . < > move, Esc)", what);
        head(r, hdr);
        return;
    }
    if (v->follow) snprintf(where, sizeof where, "[live]");
    else {
        double behind = v->latest > v->t_end ? (double)(v->latest - v->t_end) / 1e9 : 0.0;
        snprintf(where, sizeof where, behind >= 1 ? "[frozen %.1f s behind live]" : "[frozen %.3g ms behind live]", behind >= 1 ? behind : behind * 1e3);
    }
    if (shown < nlanes) snprintf(which, sizeof which, " [lanes %d-%d of %d, PgUp/PgDn]", nav->lane_top + 1, nav->lane_top + shown, nlanes);
    snprintf(hdr, sizeof hdr, " Timeline%s  %.3g ms %s  = fwd - bwd o opt%s  digits: %s when zoomed  (+/- zoom, arrows scroll, f follow, "
             "up/down cursor)%s", which, v->span / 1e6, where, v->kind.driver == DRIVER_SAMPLED ? " s preprocessing" : "",
             v->kind.ranks ? "peer rank" : v->kind.driver == DRIVER_SAMPLED ? "batch" : "chunk column", v->emulated ? "  times emulated" : "");
    head(r, hdr);
}

/* What one timeline draws: spans, and the window [t_end - span, t_end). */
typedef struct {
    const prof_event_t *ev;
    int n;
    uint64_t t_end, span;
    int live;          /* the live window (the cursor is drawn on it) */
    const char *title; /* a fixed title (a demo's before), or NULL: timeline_title */
} tl_source_t;

static void draw_lanes(rect_t r, const view_state_t *v, const tl_source_t *src)
{
    int label = 10, width = r.w - label - 1, row = 1;
    if (width > 512) width = 512;
    lane_row_t lanes[LANES_MAX];
    int nlanes = timeline_lanes(v, lanes), top = v->nav.lane_top < nlanes ? v->nav.lane_top : 0;
    int shown = nlanes - top < r.h - 2 ? nlanes - top : r.h - 2, cursor = src->live ? v->nav.cur_lane : -1;
    if (src->title) head(r, src->title);
    else timeline_title(r, v, lanes, nlanes, shown, width > 0 ? width : 1);
    if (width < 10) return;
    uint8_t cells[512];
    int32_t cols[512];
    static const char glyph[PH__COUNT] = {'=', '-', 'o', 'l', 's'};
    static const int pair[PH__COUNT] = {C_FWD, C_BWD, C_OPT, C_OPT, C_OPT};
    int zoomed = src->span / (uint64_t)width <= 200000; /* <= 0.2 ms a cell: show chunk columns */
    for (int k = top; k < nlanes && row < r.h - 1; k++, row++) {
        if (k == cursor) attron(A_STANDOUT); /* the cursor's lane */
        mvprintw(r.y + row, r.x, "%-*.*s", label, label, lanes[k].label);
        if (k == cursor) attroff(A_STANDOUT);
        timeline_bin(src->ev, src->n, lanes[k].device, lanes[k].lane, src->t_end - src->span, src->t_end, width, cells, cols);
        for (int c = 0; c < width; c++) {
            if (cells[c] == CELL_EMPTY) {
                mvaddch(r.y + row, r.x + label + c, ' ');
                continue;
            }
            char ch = glyph[cells[c] < PH__COUNT ? cells[c] : 0];
            if (zoomed && cols[c] >= 0) ch = (char)('0' + cols[c] % 10);
            on(pair[cells[c] < PH__COUNT ? cells[c] : 0], A_REVERSE * (colors != 0));
            mvaddch(r.y + row, r.x + label + c, (chtype)ch);
            off(pair[cells[c] < PH__COUNT ? cells[c] : 0], A_REVERSE * (colors != 0));
        }
    }
    if (row < r.h) draw_axis(r, r.h - 1, label, width, src->span, src->live && v->follow);
    if (row < r.h && cursor >= 0 && v->nav.cur_col < width) mvaddch(r.y + r.h - 1, r.x + label + v->nav.cur_col, '^');
}

/* The timeline; while a demo holds its before (its script marked), that
 * window on the left, titled with the epoch marked and the demo's metric
 * then, and the live one on the right with the metric now and the change. */
static void draw_timeline(rect_t r, const view_state_t *v)
{
    tl_source_t live = {v->events, v->nevents, v->t_end, v->span, 1, NULL};
    if (v->nbefore <= 0 || r.w < VIEW_SPLIT_MIN_W) {
        draw_lanes(r, v, &live);
        return;
    }
    char left_title[320], right_title[320];
    snprintf(left_title, sizeof left_title, " Before (epoch %lld): %s", v->before_epoch, v->metric_before);
    snprintf(right_title, sizeof right_title, " Now: %s", v->metric_now);
    tl_source_t before = {v->before_events, v->nbefore, v->before_t_end, v->before_span, 0, left_title};
    live.title = right_title;
    rect_t left = {r.y, r.x, r.h, r.w / 2}, right = {r.y, r.x + r.w / 2, r.h, r.w - r.w / 2};
    draw_lanes(left, v, &before);
    draw_lanes(right, v, &live);
}

/* Live metrics of the real GPU; a metric the machine cannot give says n/a. */
static int draw_gpu(rect_t r, int row, const view_state_t *v)
{
    const gpu_metrics_t *g = &v->gpu_m;
    char busy[16] = "n/a", util[16] = "n/a", in[32] = "n/a", out[32] = "n/a", tx[32] = "n/a", rx[32] = "n/a";
    if (g->busy_valid) snprintf(busy, sizeof busy, "%3.0f%%", 100 * g->busy);
    if (g->nvml_util_valid) snprintf(util, sizeof util, "%3.0f%%", 100 * g->nvml_util);
    if (g->pcie_valid) plot_rate(g->h2d_Bps, in, sizeof in), plot_rate(g->d2h_Bps, out, sizeof out);
    if (g->nvml_pcie_valid) plot_rate(g->nvml_rx_Bps, rx, sizeof rx), plot_rate(g->nvml_tx_Bps, tx, sizeof tx);
    line(r, row++, "GPU %s", g->gpu[0] ? g->gpu : "(cuda)");
    line(r, row++, " busy %s (CUPTI)  util %s (NVML)", busy, util);
    line(r, row++, " PCIe in %s out %s (CUPTI)", in, out);
    line(r, row++, " PCIe rx %s tx %s (NVML)", rx, tx);
    if (v->gpu_note && v->gpu_note[0]) line(r, row++, " %s", v->gpu_note);
    return row;
}

/* The partitioner's split: the cut points, then each part's predicted
 * (by the cost model, before the epoch) and measured time of `what`. */
static int draw_parts(rect_t r, int row, const part_report_t *pr, const char *what)
{
    if (pr->p < 2 || row >= r.h) return row;
    char cuts[160];
    int at = 0;
    for (int j = 1; j < pr->shown && at < (int)sizeof cuts - 16; j++)
        at += snprintf(cuts + at, sizeof cuts - (size_t)at, " %lld", (long long)pr->bounds[j]);
    line(r, row++, "parts %s: %d, cut at%s%s (%s, epoch + eval)", partitioner_name(pr->kind), pr->p, cuts,
         pr->shown < pr->p ? " ..." : "", what);
    for (int j = 0; j < pr->shown && row < r.h && pr->have_meas; j++) {
        char pred[24] = "-";
        if (pr->have_pred) snprintf(pred, sizeof pred, "%.3f", pr->pred_ms[j]);
        line(r, row++, "   p%d %lld rows  predicted %s  measured %.3f ms", j, (long long)(pr->bounds[j + 1] - pr->bounds[j]),
             pred, pr->meas_ms[j]);
    }
    return row;
}

/* Per rank of a distributed run: compute busy (with its history) and the
 * network, out and in, over the profiler's window. */
static void draw_ranks(rect_t r, const view_state_t *v)
{
    const prof_window_t *w = &v->window;
    int row = 1;
    for (int d = 0; d < v->kind.ranks && d + 1 < PROF_MAX_DEV && row + 1 < r.h; d++) {
        char out[32], in[32], sp[VIEW_HIST + 1];
        plot_rate(w->bytes_per_s[d + 1][PL_NETSEND], out, sizeof out);
        plot_rate(w->bytes_per_s[d + 1][PL_NETRECV], in, sizeof in);
        spark(v->busy_hist[d + 1], v->nhist, 1.0, sp, r.w - 18 > 0 ? (r.w - 18 < VIEW_HIST ? r.w - 18 : VIEW_HIST) : 1);
        line(r, row++, "r%d busy %3.0f%% %s", d, 100 * w->busy[d + 1][PL_COMPUTE], sp);
        double link = w->busy[d + 1][PL_NETSEND] > w->busy[d + 1][PL_NETRECV] ? w->busy[d + 1][PL_NETSEND] : w->busy[d + 1][PL_NETRECV];
        line(r, row++, "   net out %s  in %s  link busy %.0f%%", out, in, 100 * link);
    }
    if (v->kind.ranks >= PROF_MAX_DEV && row < r.h) line(r, row++, "(the first %d ranks)", PROF_MAX_DEV - 1);
    draw_parts(r, row, &v->parts, "compute");
}

static void draw_util(rect_t r, const view_state_t *v)
{
    char hdr[128];
    if (v->kind.ranks) snprintf(hdr, sizeof hdr, " Utilisation (emulated %s network)", v->network);
    else snprintf(hdr, sizeof hdr, " Utilisation%s", v->emulated ? " (emulated)" : "");
    head(r, hdr);
    const prof_window_t *w = &v->window;
    if (v->kind.ranks) {
        draw_ranks(r, v);
        return;
    }
    if (v->kind.driver == DRIVER_SAMPLED) /* the host prepares batches; the emulated device trains on them */
        line(r, 1, "host prep S %3.0f%% R %3.0f%% K %3.0f%%", 100 * w->busy[0][PL_SAMPLE], 100 * w->busy[0][PL_REINDEX],
             100 * w->busy[0][PL_LOOKUP]);
    else line(r, 1, "host cpu busy %3.0f%%", 100 * w->busy[0][PL_COMPUTE]);
    int row = 2;
    if (v->gpu) row = draw_gpu(r, row, v);
    for (int d = 0; d < v->ndev && row + 1 < r.h; d++) {
        char h2d[32], d2h[32], d2d[32], sp[VIEW_HIST + 1];
        plot_rate(w->bytes_per_s[d + 1][PL_H2D], h2d, sizeof h2d);
        plot_rate(w->bytes_per_s[d + 1][PL_D2H], d2h, sizeof d2h);
        plot_rate(w->bytes_per_s[d + 1][PL_D2D], d2d, sizeof d2d);
        spark(v->busy_hist[d + 1], v->nhist, 1.0, sp, r.w - 18 > 0 ? (r.w - 18 < VIEW_HIST ? r.w - 18 : VIEW_HIST) : 1);
        line(r, row++, "d%d busy %3.0f%% %s", d, 100 * w->busy[d + 1][PL_COMPUTE], sp);
        line(r, row++, "   h2d %s  d2h %s", h2d, d2h);
        if (row < r.h) line(r, row++, "   d2d %s", d2d);
    }
    row = draw_parts(r, row, &v->parts, "gathers");
    /* links, busiest first, as many as fit: both directions are separate links */
    char used[TOPO_MAX_LINKS] = {0};
    while (row < r.h) {
        int best = -1;
        for (int l = 0; l < v->nlinks; l++)
            if (!used[l] && v->link_rate[l] > 0 && (best < 0 || v->link_rate[l] > v->link_rate[best])) best = l;
        if (best < 0) break;
        used[best] = 1;
        char rate[32];
        plot_rate(v->link_rate[best], rate, sizeof rate);
        line(r, row++, "link %-10s %s", v->link_name[best], rate);
    }
}

/* The epochs' loss (*), validation accuracy (+) and epoch time (#), each
 * on its own scale, over the rows from `row` down (a legend line, the plot,
 * an axis): against the epochs, or (key t) against the training time each
 * epoch ended at, emulated or measured as the run's times are, so that
 * runs differing in speed show their time to accuracy. */
static void draw_history_plot(rect_t r, int row, const view_state_t *v)
{
    enum { MAXN = 512, MAXH = 60 };
    int n = v->nepochs < MAXN ? v->nepochs : MAXN, w = r.w - 2, h = r.h - row - 2;
    if (n < 2 || w < 20 || h < 3) return;
    if (h > MAXH) h = MAXH;
    if (w > MAXN) w = MAXN;
    static double ys[3][MAXN], at[MAXN];
    static char grid[MAXH * (MAXN + 1)];
    const epoch_stats_t *e = v->epochs + v->nepochs - n;
    double lo[3] = {0, INFINITY, 0}, hi[3] = {0, 0, 1}, done = 0; /* epoch ms from 0, loss over its range, accuracy 0..1 */
    for (int k = 0; k < v->nepochs - n; k++) done += v->epochs[k].epoch_ms; /* the epochs before those shown */
    for (int i = 0; i < n; i++) {
        ys[0][i] = e[i].epoch_ms, ys[1][i] = e[i].loss, ys[2][i] = e[i].val_acc, at[i] = done += e[i].epoch_ms;
        hi[0] = fmax(hi[0], e[i].epoch_ms), lo[1] = fmin(lo[1], e[i].loss), hi[1] = fmax(hi[1], e[i].loss);
    }
    hi[0] = plot_nice_max(hi[0]);
    const double *xs = v->plot_time ? at : NULL;
    static char marks[MAXN + 1]; /* a knob's change, under the epoch it took effect at */
    int changes = 0;
    memset(marks, ' ', (size_t)w), marks[w] = '\0';
    for (int i = 0; i < n; i++)
        if (e[i].knob_changed) marks[plot_col(i, n, w, xs)] = '^', changes++;
    if (changes && h > 3) h--;
    else changes = 0;
    const double *series[3] = {ys[0], ys[1], ys[2]};
    plot_grid(v->simulated ? 1 : 3, series, xs, "#*+", lo, hi, n, w, h, grid); /* time underneath, accuracy on top */
    const char *knob = changes ? "   ^ a knob changed" : "";
    if (v->simulated) line(r, row++, " # epoch time 0..%.3g ms (simulated)%s", hi[0], knob);
    else line(r, row++, " * loss %.3g..%.3g   + val acc 0..1   # epoch time 0..%.3g ms%s", lo[1], hi[1], hi[0], knob);
    for (int i = 0; i < h; i++) line(r, row++, " %s", grid + i * (w + 1));
    if (changes) line(r, row++, " %s", marks);
    char first[32], last[32]; /* the first point's epoch or time at the left, the last's at the right edge */
    if (v->plot_time) snprintf(first, sizeof first, "%.4g ms", at[0]), snprintf(last, sizeof last, "%.4g ms", at[n - 1]);
    else snprintf(first, sizeof first, "%lld", (long long)e[0].epoch), snprintf(last, sizeof last, "%lld", (long long)e[n - 1].epoch);
    const char *name = v->plot_time ? "training time (t: epochs)" : "epoch (t: time)";
    int pad = w - 1 - (int)strlen(name) - (int)strlen(last);
    line(r, row, " %s %-*s%s", name, pad > (int)strlen(first) ? pad : (int)strlen(first) + 1, first, last);
}

static void draw_train(rect_t r, const view_state_t *v)
{
    head(r, " Training");
    if (v->nepochs == 0) {
        line(r, 1, "loading and starting...");
        return;
    }
    const epoch_stats_t *e = &v->epochs[v->nepochs - 1];
    double ms[VIEW_HIST], top = 0;
    int n = v->nepochs < VIEW_HIST ? v->nepochs : VIEW_HIST;
    for (int i = 0; i < n; i++) {
        ms[i] = v->epochs[v->nepochs - n + i].epoch_ms;
        if (ms[i] > top) top = ms[i];
    }
    char sp[VIEW_HIST + 1];
    spark(ms, n, plot_nice_max(top), sp, r.w - 22 > 0 ? (r.w - 22 < VIEW_HIST ? r.w - 22 : VIEW_HIST) : 1);
    if (v->simulated) {
        line(r, 1, "epoch %lld  SIMULATED (times only)", (long long)e->epoch);
        line(r, 2, "no loss or accuracy: nothing computed");
    } else {
        line(r, 1, "epoch %lld  loss %.4f", (long long)e->epoch, e->loss);
        line(r, 2, "acc train %.3f val %.3f test %.3f", e->train_acc, e->val_acc, e->test_acc);
    }
    line(r, 3, "epoch %7.1f ms %s", e->epoch_ms, sp);
    int nstats, row = 4;
    const stat_desc_t *d = stat_descs(&nstats);
    char cell[2][64];
    int filled = 0;
    /* the breakdown (its terms add up to the epoch and its evaluation), then the counters, two to a line */
    int devices = v->kind.engine == ENGINE_STREAM; /* a sampled run's device is its steps' (no streaming counters) */
    if (devices) line(r, row++, "time of epoch + eval %.1f ms:", e->epoch_ms + e->eval_ms);
    for (int pass = 0; pass < 2; pass++) {
        unsigned want = pass == 0 ? STAT_BREAKDOWN : STAT_PANEL;
        for (int i = 0; i < nstats && row < r.h; i++) {
            if (!(d[i].flags & want) || !stat_applies(&d[i], &v->kind) || (pass == 0 && !devices)) continue;
            plot_stat(d[i].label, d[i].unit, d[i].flags & STAT_FRACTION, stat_get(e, &d[i]), cell[filled], sizeof cell[0]);
            if (++filled == 2) line(r, row++, " %-*s %s", r.w / 2 - 2, cell[0], cell[1]), filled = 0;
        }
        if (filled && row < r.h) line(r, row++, " %s", cell[0]), filled = 0;
    }
    draw_history_plot(r, row, v);
}

static void draw_knobs(rect_t r, const view_state_t *v)
{
    head(r, " Knobs ([key] cycles, :set)");
    for (int i = 0; i < v->nknobs && i + 1 < r.h; i++) {
        const knob_row_t *k = &v->knobs[i];
        char name[32];
        if (k->key) snprintf(name, sizeof name, "[%c]%s", k->key, k->name);
        else snprintf(name, sizeof name, "   %s", k->name);
        char text[128];
        snprintf(text, sizeof text, "%-13s %s%s", name, k->value, k->idle ? " (idle)" : "");
        if (k->idle) on(0, A_DIM);
        line(r, i + 1, "%s", text);
        if (k->idle) off(0, A_DIM);
        int room = r.w - 1 - (int)strlen(text) - 4;
        if (k->pending[0] && room > 0) { /* the value the next epoch brings, in the warning colour */
            on(C_WARN, colors ? 0 : A_BOLD);
            mvprintw(r.y + i + 1, r.x + (int)strlen(text), " -> %.*s", room, k->pending);
            off(C_WARN, colors ? 0 : A_BOLD);
        }
    }
}

/* text over rows [row, row + rows) of r, broken at spaces where a word
 * would cross the edge; returns the rows used. */
static int wrapped(rect_t r, int row, int rows, const char *text)
{
    int w = r.w - 1, used = 0;
    while (*text && used < rows) {
        int n = (int)strlen(text);
        if (n > w) {
            n = w;
            while (n > w / 2 && text[n] != ' ') n--; /* the last space that fits, unless the word is huge */
            if (text[n] != ' ') n = w;
        }
        line(r, row + used++, "%.*s", n, text);
        text += n;
        while (*text == ' ') text++;
    }
    return used;
}

/* The reply wraps over the rows above the input line (and over the hint
 * line too when it needs it and nothing is being typed). */
static void draw_console(rect_t r, const view_state_t *v)
{
    head(r, " Console");
    int rows = r.h - 2, last = r.h - 1;
    if (!v->input && (int)strlen(v->reply) > rows * (r.w - 1)) rows++;
    for (int i = wrapped(r, 1, rows, v->reply); i < rows; i++) line(r, 1 + i, "%s", "");
    if (v->input) {
        line(r, last, ":%s", v->input);
        move(r.y + last, r.x + 1 + v->cursor);
    } else if (rows < r.h - 1) {
        line(r, last, "press : for commands, ? for help, space pause, q quit");
    }
}

static void draw_help(const view_state_t *v)
{
    int h = LINES - 4, w = COLS - 10;
    if (h < 10 || w < 40) return;
    for (int i = 0; i < h; i++) mvprintw(2 + i, 5, "%-*s", w, "");
    on(C_TITLE, 0);
    mvprintw(2, 5, "%-*s", w, " Help (? or Esc closes)");
    off(C_TITLE, 0);
    char knob_keys[256] = "";
    for (int i = 0; i < v->nknobs; i++)
        if (v->knobs[i].key) {
            size_t len = strlen(knob_keys);
            snprintf(knob_keys + len, sizeof knob_keys - len, "%c %s  ", v->knobs[i].key, v->knobs[i].name);
        }
    strncat(knob_keys, "(apply at the next epoch)", sizeof knob_keys - strlen(knob_keys) - 1);
    const char *keys[] = {"q quit   space pause/resume   : console (Enter runs, Esc leaves)   Tab console/panels", knob_keys,
                          "+/- zoom the timeline   left/right scroll (freezes)   f follow live   PgUp/PgDn ([ ]) lanes",
                          "up/down a cursor on a lane, , . < > move it: the title describes its span (full chunk ids); Esc",
                          "t the training plot against training time (time to accuracy) or epochs", "", "Commands:"};
    int row = 3;
    rect_t box = {0, 7, 2 + h, w - 3}; /* the key lines wrap inside the help's frame */
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && row < 2 + h; i++) row += keys[i][0] ? wrapped(box, row, 2 + h - row, keys[i]) : 1;
    const char *p = v->help_text;
    while (p && *p && row < 2 + h) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        mvprintw(row++, 9, "%.*s", n < w - 6 ? n : w - 6, p);
        p = nl ? nl + 1 : NULL;
    }
}

void draw_screen(const layout_t *l, const view_state_t *v)
{
    erase();
    on(C_TITLE, colors ? 0 : A_REVERSE);
    mvprintw(l->title.y, l->title.x, "%-*.*s", l->title.w, l->title.w, v->title);
    off(C_TITLE, colors ? 0 : A_REVERSE);
    if (!l->ok) mvprintw(1, 0, "terminal smaller than %dx%d: some panels are cut", LAYOUT_MIN_W, LAYOUT_MIN_H);
    draw_timeline(l->r[PANEL_TIMELINE], v);
    draw_util(l->r[PANEL_UTIL], v);
    draw_train(l->r[PANEL_TRAIN], v);
    draw_knobs(l->r[PANEL_KNOBS], v);
    draw_console(l->r[PANEL_CONSOLE], v);
    if (v->help) draw_help(v);
    curs_set(v->input ? 1 : 0);
    refresh();
}
