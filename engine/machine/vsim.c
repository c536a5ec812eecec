/* vsim.c - see vsim.h. */
#include "vsim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linkmodel.h"

typedef struct {
    int *task;        /* this stream's tasks, in issue order */
    int ntask, head;
    double free_at;
    int running;      /* index of the task in progress, -1 none */
    double ends;      /* a running kernel's end */
} vs_stream_t;

/* The time stream st's next task can start, or INFINITY while it waits for an unrecorded event. */
static double start_of(const vs_stream_t *st, const vs_task_t *t, const double *fired)
{
    double s = fmax(st->free_at, t->issue);
    if (t->kind == VS_WAIT && t->event >= 0) return fired[t->event] < 0 ? INFINITY : fmax(s, fired[t->event]);
    return s;
}

double vsim_run(const topology_t *topo, double copy_bw, vs_task_t *task, int n, int nstreams, int nevents, double start,
                double *link_bytes)
{
    vs_stream_t *st = calloc((size_t)nstreams, sizeof *st);
    int *order = malloc(sizeof(int) * (size_t)(n ? n : 1));
    double *fired = malloc(sizeof(double) * (size_t)(nevents > 0 ? nevents : 1));
    /* one flow slot per stream: a stream moves at most one copy at a time */
    const topo_path_t **path = calloc((size_t)nstreams, sizeof *path), **act = calloc((size_t)nstreams, sizeof *act);
    double *ready = calloc((size_t)nstreams, sizeof(double)), *rem = calloc((size_t)nstreams, sizeof(double));
    double *total = calloc((size_t)nstreams, sizeof(double)), *rate = calloc((size_t)nstreams, sizeof(double));
    char *done = malloc((size_t)nstreams);
    double end = start;
    if (!st || !order || !fired || !path || !act || !ready || !rem || !total || !rate || !done) goto out;
    for (int e = 0; e < nevents; e++) fired[e] = -1;
    for (int i = 0; i < n; i++) task[i].t0 = task[i].t1 = start;
    for (int i = 0; i < n; i++) st[task[i].stream].ntask++;
    for (int s = 0, k = 0; s < nstreams; s++) {
        st[s].task = order + k, k += st[s].ntask;
        st[s].ntask = 0, st[s].running = -1;
    }
    for (int i = 0; i < n; i++) st[task[i].stream].task[st[task[i].stream].ntask++] = i;
    for (int s = 0; s < nstreams; s++) st[s].free_at = start, done[s] = 1;
    double now = start;
    for (;;) {
        /* start or finish at `now` every task that can (records and waits take no time) */
        for (int progress = 1; progress;) {
            progress = 0;
            for (int s = 0; s < nstreams; s++) {
                vs_stream_t *q = &st[s];
                if (q->running >= 0 || q->head >= q->ntask) continue;
                vs_task_t *t = &task[q->task[q->head]];
                double s0 = start_of(q, t, fired);
                if (s0 > now) continue;
                t->t0 = s0, progress = 1;
                if (t->kind == VS_RECORD || t->kind == VS_WAIT) {
                    if (t->kind == VS_RECORD && t->event >= 0) fired[t->event] = s0;
                    t->t1 = s0, q->free_at = s0, q->head++;
                } else if (t->kind == VS_KERNEL || !topo || !t->path) {
                    q->running = q->task[q->head], q->ends = s0 + t->dur + (t->kind == VS_COPY ? t->bytes / copy_bw : 0);
                } else {
                    q->running = q->task[q->head], q->ends = INFINITY;
                    t->t0 = s0 + t->dur; /* the transfer starts after the host-side filter */
                    path[s] = t->path, ready[s] = t->t0 + lm_path_latency(topo, t->path);
                    rem[s] = total[s] = t->bytes, done[s] = t->bytes <= 0;
                }
            }
        }
        /* the next moment something happens */
        double next = INFINITY;
        int flows = 0;
        for (int s = 0; s < nstreams; s++) {
            vs_stream_t *q = &st[s];
            if (q->running >= 0) {
                if (isfinite(q->ends)) next = fmin(next, q->ends);
                else flows |= !done[s];
            } else if (q->head < q->ntask) {
                next = fmin(next, start_of(q, &task[q->task[q->head]], fired));
            }
        }
        if (flows) next = lm_fluid_step(topo, nstreams, path, ready, rem, total, done, now, next, rate, link_bytes, act);
        if (!isfinite(next)) break; /* every stream done (or waiting for an event never recorded) */
        now = fmax(now, next);
        for (int s = 0; s < nstreams; s++) { /* tasks that ended now */
            vs_stream_t *q = &st[s];
            if (q->running < 0) continue;
            int ended = isfinite(q->ends) ? q->ends <= now : done[s];
            if (!ended) continue;
            vs_task_t *t = &task[q->running];
            t->t1 = isfinite(q->ends) ? q->ends : now;
            q->free_at = t->t1, q->running = -1, q->head++, done[s] = 1, path[s] = NULL;
            if (t->t1 > end) end = t->t1;
        }
    }
    for (int i = 0; i < n; i++) /* a wait for an event never recorded: it ends where its stream stopped */
        if (task[i].t1 < task[i].t0) task[i].t1 = task[i].t0;
out:
    free(st), free(order), free(fired), free(path), free(act), free(ready), free(rem), free(total), free(rate), free(done);
    return end;
}

static int cmp_start(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

double vsim_union(double *iv, int n)
{
    qsort(iv, (size_t)n, 2 * sizeof(double), cmp_start);
    double total = 0, lo = 0, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (iv[2 * i] > hi) {
            if (hi > lo) total += hi - lo;
            lo = iv[2 * i], hi = iv[2 * i + 1];
        } else if (iv[2 * i + 1] > hi) {
            hi = iv[2 * i + 1];
        }
    }
    if (hi > lo) total += hi - lo;
    return total;
}
