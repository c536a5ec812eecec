/* run_json.c - see run_json.h. */
#include "run_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "engine/train/driver_dist.h"

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), or 0. */
static int utf8_length(const unsigned char *s)
{
    unsigned char c = s[0];
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80, hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (n && (s[1] < lo || s[1] > hi)) return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return n;
}

void json_str(FILE *f, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    fputc('"', f);
    while (*u) {
        int n = *u >= 0x80 ? utf8_length(u) : 1;
        if (*u == '"' || *u == '\\') fprintf(f, "\\%c", *u);
        else if (*u < 0x20) fprintf(f, "\\u%04x", *u);
        else if (n == 0) fputs("\\ufffd", f); /* a byte that is not UTF-8 (a path in another encoding) */
        else fwrite(u, 1, (size_t)n, f);
        u += n ? n : 1;
    }
    fputc('"', f);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    if (n == 0) return 0;
    double *c = malloc(sizeof(double) * (size_t)n);
    if (!c) return v[n - 1];
    memcpy(c, v, sizeof(double) * (size_t)n);
    qsort(c, (size_t)n, sizeof *c, cmp_double);
    double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    free(c);
    return m;
}

static long long peak_rss_bytes(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (long long)ru.ru_maxrss * 1024LL;
}

/* A number as JSON: integers (counts, bytes, FLOPs) exactly, others to 9 digits. */
static void json_num(FILE *f, double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0) fprintf(f, "%.0f", v);
    else fprintf(f, "%.9g", v);
}

static void print_dkp(FILE *f, const trainer_t *t)
{
    const model_state_t *m = &t->model;
    fprintf(f, ",\"dkp\":[");
    for (int i = 0; i < m->ndkp && i < MODEL_MAX_DKP; i++) {
        const dkp_choice_t *c = &m->dkp[i];
        fprintf(f, "%s{\"layer\":%d,\"din\":%lld,\"dout\":%lld,\"n_src\":%lld,\"n_dst\":%lld,\"edges\":%lld,\"order\":\"%s\","
                   "\"agg_flops_fwd\":{\"aggregation_first\":%.0f,\"combination_first\":%.0f},"
                   "\"agg_flops_bwd\":{\"aggregation_first\":%.0f,\"combination_first\":%.0f},"
                   "\"cost_ms\":{\"aggregation_first\":%.6g,\"combination_first\":%.6g},\"predicted_saving_ms\":%.6g,\"basis\":\"%s\"}",
                i ? "," : "", c->layer, (long long)c->din, (long long)c->dout, (long long)c->shape.n_src,
                (long long)c->shape.n_dst, (long long)c->shape.edges,
                c->combination_first ? "combination-first" : "aggregation-first", c->agg_flops_fwd[0], c->agg_flops_fwd[1],
                c->agg_flops_bwd[0], c->agg_flops_bwd[1], 1e3 * c->cost_s[0], 1e3 * c->cost_s[1], 1e3 * c->predicted_saving_s,
                c->basis_fit ? "fit" : "roofline");
    }
    fprintf(f, "],\"agg_flops_by_layer\":[");
    int nlayers = 0;
    for (int i = 0; i < m->prog.ncode; i++)
        if (m->prog.code[i].layer + 1 > nlayers) nlayers = m->prog.code[i].layer + 1;
    for (int l = 0; l < nlayers && l < PROG_MAX_LAYERS; l++)
        fprintf(f, "%s{\"layer\":%d,\"fwd\":%.0f,\"bwd\":%.0f}", l ? "," : "", l, t->ex.agg_flops[l][0], t->ex.agg_flops[l][1]);
    fprintf(f, "]");
    if (m->dkp_model.fitted)
        fprintf(f, ",\"dkp_fit\":{\"alpha\":%.4g,\"beta\":%.4g,\"gamma\":%.4g,\"delta\":%.4g,\"gemm_samples\":%d,\"gather_samples\":%d}",
                m->dkp_model.coef.alpha, m->dkp_model.coef.beta, m->dkp_model.coef.gamma, m->dkp_model.coef.delta, m->dkp_model.ngemm,
                m->dkp_model.ngather);
}

/* What the fusion pass did (engine/program/fuse.h), and the edge tensors the
 * plain program would allocate against the program in force. */
static void print_fusion(FILE *f, const trainer_t *t)
{
    const model_state_t *m = &t->model;
    fprintf(f, ",\"fusion\":{\"fuse\":\"%s\",\"hoisted\":%d,\"fused\":%d,\"summed\":%d,\"edge_bytes_plain\":%.0f,"
               "\"edge_bytes\":%.0f}",
            t->cfg.fuse ? "on" : "off", m->fuse.hoisted, m->fuse.fused, m->fuse.summed, m->edge_bytes_plain,
            prog_edge_bytes(&m->prog, m->m));
}

/* One row of --profile ops: instruction i's phase (0 forward, 1 backward),
 * or with i < 0 the loss (phase 0) or the optimiser (phase 2); nothing for
 * a row that never ran. */
static void print_op_row(FILE *f, const trainer_t *t, int i, int phase, int *first)
{
    op_tally_t *ty = t->ex.tally;
    const op_tally_row_t *r = op_tally_row(ty, i, phase);
    if (!r->calls || !ty->epochs) return;
    double e = (double)ty->epochs;
    const instr_t *in = i >= 0 ? &t->model.prog.code[i] : NULL;
    const char *kind = !in ? (phase ? "optimiser" : "loss") : in->op == OP_MATMUL ? "matmul" : t->ex.hop[i] ? "graph" : "elementwise";
    fprintf(f, "%s{\"op\":\"%s\",\"instr\":%d,\"layer\":%d,\"phase\":\"%s\",\"kind\":\"%s\",\"calls\":%.6g,"
               "\"ms\":%.6f,\"flops\":%.6g,\"stream_bytes\":%.6g,\"row_bytes\":%.6g,\"cols\":%.0f,\"in_place\":%d,"
               "\"reads_only\":%d}",
            *first ? "" : ",", in ? op_name(in->op) : phase ? "adam" : "loss", i, in ? in->layer : -1,
            phase == 1 ? "bwd" : phase ? "opt" : "fwd", kind, r->calls / e, 1e3 * r->seconds / e, r->flops / e,
            r->stream_bytes / e, r->row_bytes / e, r->cols, in ? exec_in_place(&t->ex, in, phase) : phase == 2, /* Adam: w, m, v */
            in ? exec_reads_only(&t->ex, in, phase) : 0);
    *first = 0;
}

/* --profile ops: each op's host work per training step, the mean over the
 * epochs after the first (op_tally.h); kind says which bound applies. */
static void print_ops(FILE *f, const trainer_t *t)
{
    const op_tally_t *ty = t->ex.tally;
    fprintf(f, ",\"ops_epochs\":%lld,\"ops\":[", (long long)ty->epochs);
    int first = 1;
    print_op_row(f, t, -1, 0, &first); /* the loss */
    print_op_row(f, t, -1, 2, &first); /* the optimiser */
    for (int i = 0; i < ty->ncode; i++)
        for (int phase = 0; phase < 2; phase++) print_op_row(f, t, i, phase, &first);
    fprintf(f, "]");
}

/* The last epoch's counters flagged for the summary. */
static void print_stats(FILE *f, const trainer_t *t, const epoch_stats_t *last)
{
    int n;
    const stat_desc_t *d = stat_descs(&n);
    for (int i = 0; i < n; i++) {
        if (!(d[i].flags & STAT_JSON) || !stat_applies(&d[i], &t->kind)) continue;
        fprintf(f, ",\"%s\":", d[i].name);
        fprintf(f, d[i].fmt, stat_get(last, &d[i]));
    }
}

/* Every knob in force, as text. */
static void print_knobs(FILE *f, const trainer_t *t)
{
    int n, first = 1;
    const opt_t *k = knob_table(&n);
    fprintf(f, ",\"knobs\":{");
    for (int i = 0; i < n; i++) {
        if (k[i].when == WHEN_START || !knob_in_force(&k[i], &t->kind)) continue;
        char v[96];
        opt_format(&k[i], &t->cfg, v, sizeof v);
        fprintf(f, "%s\"%s\":", first ? "" : ",", k[i].name);
        json_str(f, v);
        first = 0;
    }
    fprintf(f, "}");
}

/* The streaming engine's facts: top-level ones, then each group as an object. */
static void print_facts(FILE *f, const trainer_t *t, double epoch_s)
{
    engine_fact_t facts[256];
    int n = stream_engine_facts(&t->stream, epoch_s, facts, 256);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            if ((facts[i].group != NULL) != pass) continue;
            if (pass && (i == 0 || !facts[i - 1].group || strcmp(facts[i - 1].group, facts[i].group)))
                fprintf(f, ",\"%s\":{", facts[i].group);
            else fputc(',', f);
            json_str(f, facts[i].name);
            fputc(':', f);
            if (facts[i].text) json_str(f, facts[i].text);
            else json_num(f, facts[i].value);
            if (pass && (i + 1 == n || !facts[i + 1].group || strcmp(facts[i + 1].group, facts[i].group))) fputc('}', f);
        }
}

static void json_ms_list(FILE *f, const char *name, const double *s, int n)
{
    fprintf(f, ",\"%s\":[", name);
    for (int j = 0; j < n; j++) fprintf(f, "%s%.6f", j ? "," : "", 1e3 * s[j]);
    fputc(']', f);
}

/* The streamed run's parts (or the ranks' ranges): the partitioner, the
 * split, each part's predicted and measured time, and the cost model's
 * weights. */
static void print_partition(FILE *f, const trainer_t *t)
{
    const part_state_t *ps = &t->part;
    if (!ps->p) return;
    fprintf(f, ",\"partition\":{\"partitioner\":\"%s\",\"bounds\":[", partitioner_name(t->cfg.partitioner));
    for (int j = 0; j <= ps->p; j++) fprintf(f, "%s%lld", j ? "," : "", (long long)ps->bounds[j]);
    fputc(']', f);
    if (ps->have_shown_pred) json_ms_list(f, "predicted_ms", ps->shown_pred_s, ps->p);
    if (ps->have_meas) json_ms_list(f, "measured_ms", ps->meas_s, ps->p);
    int samples = 0;
    for (int l = 0; l < ps->model.nlayers; l++) samples += ps->model.nsamples[l];
    fprintf(f, ",\"samples\":%d,\"weights\":[", samples);
    for (int l = 0; l < ps->model.nlayers; l++) {
        fprintf(f, "%s[", l ? "," : "");
        for (int i = 0; i < ROC_NFEAT; i++) fprintf(f, "%s%.6g", i ? "," : "", ps->model.w[l][i]);
        fputc(']', f);
    }
    fprintf(f, "]}");
}

/* A distributed run's account (rank 0, gathered): the split, what each
 * rank holds, the probed costs, and the last epoch's traffic. */
static void print_dist(FILE *f, const trainer_t *t, double epoch_ms)
{
    const dist_run_t *d = t->dist;
    const dist_report_t *r = &d->report;
    int R = r->nranks, L = r->nhops;
    size_t lv = (size_t)L + 1;
    char ratio[32];
    opt_format(knob_find("dep-ratio"), &t->cfg, ratio, sizeof ratio);
    fprintf(f, ",\"dist\":{\"ranks\":%d,\"dep\":\"%s\",\"dep_ratio\":\"%s\",\"network\":", R,
            t->cfg.dep == DEP_CACHE ? "cache" : t->cfg.dep == DEP_COMM ? "comm" : "hybrid", ratio);
    json_str(f, d->net.name);
    fprintf(f, ",\"rank_compute\":\"%s\",\"queue\":\"%s\"", t->cfg.rank_gpu && t->cfg.clock == CLOCK_VIRTUAL ? "gpu" : "host",
            t->cfg.queue_locked ? "locked" : "lockfree");
    fprintf(f, ",\"tv_s_per_flop\":%.6g,\"te_s_per_edge_float\":%.6g,\"tc_s_per_float\":%.6g", d->tv, d->te, d->tc);
    double moved = 0;
    for (int h = 1; h <= L; h++) moved += d->plan.t_c[h];
    fprintf(f, ",\"split\":");
    json_str(f, d->plan.choice ? d->plan.choice : t->cfg.dep == DEP_HYBRID ? "ratio" : "mode");
    fprintf(f, ",\"rank0_forward_model_ms\":{\"owned\":%.6f,\"replica\":%.6f,\"comm\":%.6f}", 1e3 * d->plan.own_cost,
            1e3 * d->plan.rep_cost, 1e3 * moved);
    fprintf(f, ",\"predicted_epoch_ms\":%.6f,\"measured_epoch_ms\":%.6f,\"plan_ms\":%.3f,\"bounds\":[", r->predicted_ms,
            epoch_ms, r->plan_ms);
    for (int i = 0; i <= R; i++) fprintf(f, "%s%lld", i ? "," : "", (long long)d->bounds[i]);
    fprintf(f, "],\"hold\":[");
    for (int i = 0; i < R; i++) {
        fprintf(f, "%s{\"rank\":%d,\"owned\":%.0f,\"replicated\":[", i ? "," : "", i, r->owned[i]);
        for (int k = 0; k < L; k++) fprintf(f, "%s%.0f", k ? "," : "", r->replicated[(size_t)i * lv + (size_t)k]);
        fprintf(f, "],\"mirrors\":[");
        for (int h = 1; h <= L; h++) fprintf(f, "%s%.0f", h > 1 ? "," : "", r->mirrors[(size_t)i * lv + (size_t)h]);
        fprintf(f, "],\"cache_bytes\":%.0f,\"held_bytes\":%.0f}", r->cache_bytes[i], r->held_bytes[i]);
    }
    fprintf(f, "],\"layers\":[");
    for (int h = 1; h <= L; h++) {
        double cached = 0, comm = 0, sums[2][2] = {{0, 0}, {0, 0}};
        for (int i = 0; i < R; i++) comm += r->mirrors[(size_t)i * lv + (size_t)h], cached += r->cached[(size_t)i * lv + (size_t)h];
        for (int dir = 0; dir < 2; dir++)
            for (int a = 0; a < R * R; a++) {
                size_t at = (((size_t)h * 2 + (size_t)dir) * (size_t)R * (size_t)R) + (size_t)a;
                sums[dir][0] += r->traffic[at], sums[dir][1] += r->messages[at];
            }
        fprintf(f, "%s{\"hop\":%d,\"width\":%lld,\"cached\":%.0f,\"communicated\":%.0f,\"bytes_fwd\":%.0f,"
                   "\"messages_fwd\":%.0f,\"bytes_bwd\":%.0f,\"messages_bwd\":%.0f}",
                h > 1 ? "," : "", h, (long long)d->width[h], cached, comm, sums[0][0], sums[0][1], sums[1][0], sums[1][1]);
    }
    fprintf(f, "],\"traffic\":[");
    int first = 1;
    for (int h = 1; h <= L; h++)
        for (int dir = 0; dir < 2; dir++)
            for (int a = 0; a < R; a++)
                for (int b = 0; b < R; b++) {
                    size_t at = (((size_t)h * 2 + (size_t)dir) * (size_t)R + (size_t)a) * (size_t)R + (size_t)b;
                    if (r->messages[at] == 0) continue;
                    fprintf(f, "%s{\"hop\":%d,\"dir\":\"%s\",\"from\":%d,\"to\":%d,\"bytes\":%.0f,\"messages\":%.0f}",
                            first ? "" : ",", h, dir ? "bwd" : "fwd", a, b, r->traffic[at], r->messages[at]);
                    first = 0;
                }
    fprintf(f, "]}");
}

/* A real GPU's utilisation over the last epoch (CUPTI's kernel and copy
 * records, not the emulation): null where CUPTI is off or its records did
 * not cover the epoch (never a made-up 0). */
static void print_gpu_measured(FILE *f, const run_log_t *log)
{
    const gpu_metrics_t *g = &log->gpu;
    if (!log->gpu_measured) return;
    fprintf(f, ",\"gpu_measured\":{\"gpu\":");
    json_str(f, g->gpu);
    fprintf(f, ",\"source\":%s,\"window_s\":%.6f", g->busy_valid || g->pcie_valid ? "\"CUPTI\"" : "null", g->window_s);
    if (g->busy_valid) fprintf(f, ",\"busy\":%.6f", g->busy);
    else fprintf(f, ",\"busy\":null");
    if (g->pcie_valid) fprintf(f, ",\"h2d_Bps\":%.0f,\"d2h_Bps\":%.0f,\"d2d_Bps\":%.0f}", g->h2d_Bps, g->d2h_Bps, g->d2d_Bps);
    else fprintf(f, ",\"h2d_Bps\":null,\"d2h_Bps\":null,\"d2d_Bps\":null}");
}

/* The losses' and accuracies' fields of a run that computed them. */
static void print_accuracy(FILE *f, const trainer_t *t, const run_log_t *log)
{
    fprintf(f, ",\"epochs\":%lld,\"final_loss\":%.9g,\"train_acc\":%.6f,\"val_acc\":%.6f,\"test_acc\":%.6f",
            (long long)t->epoch, log->last.loss, log->last.train_acc, log->last.val_acc, log->last.test_acc);
    fprintf(f, ",\"best_val_acc\":%.6f,\"test_acc_at_best_val\":%.6f,\"best_epoch\":%lld", t->best_val < 0 ? 0 : t->best_val,
            t->test_at_best, (long long)t->best_epoch);
}

/* ,"name":[v0,v1,...] with each value in fmt: a per-epoch series of the run. */
static void print_series(FILE *f, const char *name, const double *v, int n, const char *fmt)
{
    fprintf(f, ",\"%s\":[", name);
    for (int i = 0; i < n; i++) {
        if (i) fputc(',', f);
        fprintf(f, fmt, v[i]);
    }
    fputc(']', f);
}

void run_json_print(FILE *f, const trainer_t *t, const run_log_t *log)
{
    const train_data_t *d = &t->data;
    double ms_med = median(log->ms, log->n), ev_med = median(log->eval_ms, log->n);
    double fl = log->n ? log->flops[0] : 0;
    fprintf(f, "{\"dataset\":");
    json_str(f, d->ds.name);
    fprintf(f, ",\"model\":");
    json_str(f, t->cfg.model);
    fprintf(f, ",\"nodes\":%lld,\"edges\":%lld,\"features\":%lld,\"classes\":%lld,\"layers\":%d,\"hidden\":%lld,\"heads\":%d",
            (long long)d->g.n, (long long)d->g.m, (long long)d->ds.f, (long long)d->ds.c, t->cfg.layers,
            (long long)t->cfg.hidden, t->cfg.heads);
    fprintf(f, ",\"params\":%lld,\"threads\":%d,\"seed\":%llu", (long long)params_count(&t->model.params), t->cfg.threads,
            (unsigned long long)t->cfg.seed);
    if (t->cfg.simulate) /* nothing was computed: no loss, no accuracy */
        fprintf(f, ",\"simulated\":true,\"epochs\":%lld,\"final_loss\":null,\"train_acc\":null,\"val_acc\":null,\"test_acc\":null"
                   ",\"best_val_acc\":null,\"test_acc_at_best_val\":null,\"best_epoch\":null",
                (long long)t->epoch);
    else
        print_accuracy(f, t, log);
    fprintf(f, ",\"epoch_ms_median\":%.6f,\"epoch_ms_last\":%.6f,\"eval_ms_median\":%.6f,\"flops_per_epoch\":%.6g,\"gflops\":%.4f",
            ms_med, log->n ? log->ms[log->n - 1] : 0.0, ev_med, fl, ms_med > 0 ? fl / (ms_med * 1e6) : 0.0);
    fprintf(f, ",\"load_ms\":%.3f,\"graph_ms\":%.3f,\"peak_rss_bytes\":%lld,\"peak_estimate_bytes\":%.0f", d->load_ms, d->graph_ms,
            peak_rss_bytes(), t->model.peak_estimate);
    print_dkp(f, t);
    print_fusion(f, t);
    fprintf(f, ",\"engine\":\"%s\"", t->ex.engine.ops->name);
    int streaming = t->kind.engine == ENGINE_STREAM;
    if (!streaming) fprintf(f, ",\"backend\":\"%s\"", t->kp.K->name);
    print_stats(f, t, &log->last);
    print_gpu_measured(f, log);
    print_knobs(f, t);
    if (streaming) print_facts(f, t, (log->last.epoch_ms + log->last.eval_ms) / 1e3);
    if (streaming || t->kind.driver == DRIVER_DIST) print_partition(f, t);
    if (t->kind.driver == DRIVER_DIST && t->dist->report.nranks) print_dist(f, t, log->last.epoch_ms + log->last.eval_ms);
    fprintf(f, ",\"profile_events\":%llu,\"profile_dropped\":%llu", (unsigned long long)log->events,
            (unsigned long long)log->dropped);
    int computed = !t->cfg.simulate;
    print_series(f, "losses", log->loss, computed ? log->n : 0, "%.9g");
    print_series(f, "test_accs", log->test_acc, computed ? log->n : 0, "%.6f");
    print_series(f, "epochs_ms", log->ms, log->n, "%.6f");
    if (t->ex.tally) print_ops(f, t);
    fprintf(f, "}\n");
}
