/* partitioner.c - see partitioner.h. */
#include "partitioner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/membudget.h"
#include "engine/program/op_table.h"

const char *partitioner_name(partitioner_kind_t k)
{
    return k == PART_ROC ? "roc" : k == PART_EQUAL_EDGE ? "equal-edge" : "equal-vertex";
}

/* ---------------- the model ---------------- */

void roc_model_init(roc_model_t *m, const program_t *prog)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < prog->ncode; i++) {
        const instr_t *in = &prog->code[i];
        int l = in->layer < 0 ? 0 : in->layer >= PROG_MAX_LAYERS ? PROG_MAX_LAYERS - 1 : in->layer;
        if (l + 1 > m->nlayers) m->nlayers = l + 1;
        if (op_has(in->op, OPF_AGGREGATE) && prog->vals[in->in[0]].cols > m->d_in[l]) m->d_in[l] = prog->vals[in->in[0]].cols;
    }
    if (m->nlayers < 1) m->nlayers = 1;
    for (int l = 0; l < m->nlayers; l++) {
        if (m->d_in[l] < 1) m->d_in[l] = 1;
        m->w[l][0] = 1.0 / m->nlayers; /* before any sample: every vertex costs the same */
    }
}

void roc_model_free(roc_model_t *m)
{
    for (int l = 0; l < PROG_MAX_LAYERS; l++) free(m->x[l]), free(m->y[l]);
    memset(m, 0, sizeof *m);
}

/* The five feature sums of [lo, hi) at layer l. */
static void feature_sums(const roc_features_t *f, int l, int64_t lo, int64_t hi, double x[ROC_NFEAT])
{
    for (int i = 0; i < ROC_NFEAT - 1; i++) x[i] = f->pre[i][hi] - f->pre[i][lo];
    x[ROC_NFEAT - 1] = f->pre5[l][hi] - f->pre5[l][lo];
}

int roc_model_add(roc_model_t *m, const roc_features_t *f, int l, int64_t lo, int64_t hi, double y)
{
    if (l < 0 || l >= m->nlayers || l >= f->nlayers || hi <= lo || !(y > 0)) return 0;
    if (m->nsamples[l] == m->cap[l]) {
        int cap = m->cap[l] ? 2 * m->cap[l] : 64;
        double *x = realloc(m->x[l], sizeof(double) * ROC_NFEAT * (size_t)cap);
        if (!x) return -1;
        m->x[l] = x;
        double *yy = realloc(m->y[l], sizeof(double) * (size_t)cap);
        if (!yy) return -1;
        m->y[l] = yy, m->cap[l] = cap;
    }
    feature_sums(f, l, lo, hi, m->x[l] + ROC_NFEAT * m->nsamples[l]);
    m->y[l][m->nsamples[l]++] = y;
    return 0;
}

/* Solves the n x n system a z = b (a symmetric positive definite, here
 * made so by the ridge term) by Cholesky; 0 on success. */
static int solve_spd(int n, double a[ROC_NFEAT][ROC_NFEAT], const double *b, double *z)
{
    double l[ROC_NFEAT][ROC_NFEAT] = {{0}}, t[ROC_NFEAT] = {0};
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = a[i][j];
            for (int k = 0; k < j; k++) s -= l[i][k] * l[j][k];
            if (i == j) {
                if (!(s > 0)) return -1;
                l[i][i] = sqrt(s);
            } else l[i][j] = s / l[j][j];
        }
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++) s -= l[i][k] * t[k];
        t[i] = s / l[i][i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = t[i];
        for (int k = i + 1; k < n; k++) s -= l[k][i] * z[k];
        z[i] = s / l[i][i];
    }
    return 0;
}

/* Least squares on the free features (columns scaled to unit RMS, a small
 * ridge so that few samples still give one answer); a feature whose weight
 * comes out negative leaves the free set and the fit is redone. */
static void fit_layer(const double *x, const double *y, int n, double w[ROC_NFEAT])
{
    double scale[ROC_NFEAT];
    for (int i = 0; i < ROC_NFEAT; i++) {
        double s = 0;
        for (int k = 0; k < n; k++) s += x[k * ROC_NFEAT + i] * x[k * ROC_NFEAT + i];
        scale[i] = s > 0 ? sqrt(s / n) : 0;
    }
    int free_[ROC_NFEAT], nf = 0;
    for (int i = 0; i < ROC_NFEAT; i++)
        if (scale[i] > 0) free_[nf++] = i;
    double z[ROC_NFEAT] = {0};
    while (nf > 0) {
        double a[ROC_NFEAT][ROC_NFEAT] = {{0}}, b[ROC_NFEAT] = {0}, tr = 0;
        for (int k = 0; k < n; k++)
            for (int i = 0; i < nf; i++) {
                double xi = x[k * ROC_NFEAT + free_[i]] / scale[free_[i]];
                b[i] += xi * y[k];
                for (int j = 0; j <= i; j++) a[i][j] += xi * x[k * ROC_NFEAT + free_[j]] / scale[free_[j]];
            }
        for (int i = 0; i < nf; i++) tr += a[i][i];
        for (int i = 0; i < nf; i++) {
            a[i][i] += 1e-6 * tr / nf;
            for (int j = 0; j < i; j++) a[j][i] = a[i][j];
        }
        if (solve_spd(nf, a, b, z) != 0) break;
        int worst = -1;
        for (int i = 0; i < nf; i++)
            if (z[i] < 0 && (worst < 0 || z[i] < z[worst])) worst = i;
        if (worst < 0) {
            for (int i = 0; i < ROC_NFEAT; i++) w[i] = 0;
            for (int i = 0; i < nf; i++) w[free_[i]] = z[i] / scale[free_[i]];
            return;
        }
        memmove(free_ + worst, free_ + worst + 1, sizeof free_[0] * (size_t)(nf - worst - 1));
        nf--;
    }
    /* nothing fits (no samples with features): keep the previous weights */
}

void roc_model_fit(roc_model_t *m)
{
    for (int l = 0; l < m->nlayers; l++)
        if (m->nsamples[l] > 0) fit_layer(m->x[l], m->y[l], m->nsamples[l], m->w[l]), m->fitted = 1;
}

double roc_predict(const roc_model_t *m, const roc_features_t *f, int64_t lo, int64_t hi)
{
    double t = 0, x[ROC_NFEAT];
    for (int l = 0; l < m->nlayers && l < f->nlayers; l++) {
        feature_sums(f, l, lo, hi, x);
        for (int i = 0; i < ROC_NFEAT; i++) t += m->w[l][i] * x[i];
    }
    return t;
}

/* ---------------- features ---------------- */

double roc_features_bytes(int64_t n, int nlayers)
{
    return sizeof(double) * (double)(n + 1) * (ROC_NFEAT - 1 + nlayers);
}

void roc_features_free(roc_features_t *f)
{
    for (int i = 0; i < ROC_NFEAT - 1; i++) free(f->pre[i]);
    for (int l = 0; l < PROG_MAX_LAYERS; l++) free(f->pre5[l]);
    memset(f, 0, sizeof *f);
}

int roc_features_build(roc_features_t *f, const graph_t *g, const roc_model_t *m, gs_err_t *err)
{
    memset(f, 0, sizeof *f);
    int rc = gs_mem_check(roc_features_bytes(g->n, m->nlayers), "the partitioner's feature prefix sums", err);
    if (rc) return rc;
    f->n = g->n, f->nlayers = m->nlayers;
    int ok = 1;
    for (int i = 0; i < ROC_NFEAT - 1; i++) ok &= (f->pre[i] = malloc(sizeof(double) * (size_t)(g->n + 1))) != NULL;
    for (int l = 0; l < m->nlayers; l++) ok &= (f->pre5[l] = malloc(sizeof(double) * (size_t)(g->n + 1))) != NULL;
    if (!ok) {
        roc_features_free(f);
        return gs_fail(err, GS_EFAIL, "out of memory for the partitioner's feature prefix sums");
    }
    for (int i = 0; i < ROC_NFEAT - 1; i++) f->pre[i][0] = 0;
    for (int l = 0; l < m->nlayers; l++) f->pre5[l][0] = 0;
    for (int64_t v = 0; v < g->n; v++) {
        double runs = 0, acc4 = 0, acc5[PROG_MAX_LAYERS] = {0};
        int64_t b = g->in_ptr[v], e = g->in_ptr[v + 1];
        for (int64_t j = b; j < e;) { /* one run of consecutive ids */
            int64_t k = j + 1;
            while (k < e && g->in_src[k] == g->in_src[k - 1] + 1) k++;
            double len = (double)(k - j);
            runs += 1, acc4 += ceil(len / ROC_WARP);
            for (int l = 0; l < m->nlayers; l++) acc5[l] += ceil(len * (double)m->d_in[l] / ROC_WARP);
            j = k;
        }
        double x[ROC_NFEAT - 1] = {1, (double)(e - b), runs, acc4};
        for (int i = 0; i < ROC_NFEAT - 1; i++) f->pre[i][v + 1] = f->pre[i][v] + x[i];
        for (int l = 0; l < m->nlayers; l++) f->pre5[l][v + 1] = f->pre5[l][v] + acc5[l];
    }
    return GS_OK;
}

/* ---------------- splitting ---------------- */

/* The cost of [0, v) under kind: monotone in v. */
static double cost_to(partitioner_kind_t kind, const graph_t *g, const roc_model_t *m, const roc_features_t *f, int64_t v)
{
    if (kind == PART_EQUAL_EDGE) return (double)g->in_ptr[v];
    if (kind == PART_ROC) return roc_predict(m, f, 0, v);
    return (double)v;
}

int partition_split(partitioner_kind_t kind, const graph_t *g, const roc_model_t *m, const roc_features_t *f, int p,
                    int64_t *bounds, gs_err_t *err)
{
    int64_t n = g->n;
    if (p < 1 || p > n) return gs_fail(err, GS_EINPUT, "cannot cut %lld vertices into %d parts", (long long)n, p);
    if (kind == PART_ROC && (!m || !f || f->n != n))
        return gs_fail(err, GS_EFAIL, "the roc partitioner has no features for this graph");
    bounds[0] = 0, bounds[p] = n;
    double total = cost_to(kind, g, m, f, n);
    for (int k = 1; k < p; k++) {
        /* the first v whose prefix cost reaches k/p of the total, kept so
         * that every part has at least one vertex */
        double want = total * k / p;
        int64_t lo = bounds[k - 1] + 1, hi = n - (p - k);
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (cost_to(kind, g, m, f, mid) < want) lo = mid + 1;
            else hi = mid;
        }
        /* the nearer of the two candidates around the target */
        if (lo > bounds[k - 1] + 1 && want - cost_to(kind, g, m, f, lo - 1) < cost_to(kind, g, m, f, lo) - want) lo--;
        bounds[k] = lo;
    }
    return GS_OK;
}
