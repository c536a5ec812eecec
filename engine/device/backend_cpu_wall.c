/* backend_cpu_wall.c - the cpu backend's streams in real time (--clock
 * wall): each device stream is a thread with an in-order queue, so copies
 * overlap compute on the host's cores. A copy ends at the later of its
 * memcpy and its link-model time (engine/machine/linkmodel.h), sharing links with
 * concurrent copies. Limits: device compute shares the host's thread pool,
 * so two devices' kernels run one after the other, and copy threads take
 * cores from kernels on a small host (the virtual clock has neither limit). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend_cpu.h"
#include "base/threadpool.h"
#include "base/mono_clock.h"

static void *stream_main(void *arg)
{
    stream_t *s = arg;
    struct backend *b = s->b;
    if (s->lane == LANE_COMPUTE) gs_thread_compute_priority();
    else gs_thread_copy_priority();
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->stop && s->count == 0) pthread_cond_wait(&s->cv, &s->lock);
        if (s->count == 0 && s->stop) break;
        task_t t = s->q[s->head];
        s->busy = 1;
        pthread_mutex_unlock(&s->lock);
        double t0 = gs_mono_s();
        switch (t.kind) {
        case TASK_COPY: {
            uint64_t flow = t.path ? lm_begin(&b->links, t.path, (double)t.bytes) : 0;
            gs_pool_copy_begin(); /* this engine's memcpy gets a core ahead of kernels */
            double filter = cpu_run_task(&t);
            gs_pool_copy_end();
            if (filter > 0) {
                pthread_mutex_lock(&b->st_lock);
                b->st.filter_s[s->dev] += filter;
                pthread_mutex_unlock(&b->st_lock);
            }
            if (t.path) lm_wait(&b->links, flow); /* done at max(memcpy, modeled time) */
            break;
        }
        case TASK_KERNEL: cpu_run_task(&t); break;
        case TASK_RECORD:
            pthread_mutex_lock(&b->ev_lock);
            b->ev_done[t.event] = 1;
            for (int d = 0; d < b->cfg.ndev; d++) /* wake only the streams waiting for this event */
                for (int l = 0; l < LANE__COUNT; l++)
                    if (b->streams[d][l].waiting_ev == t.event) pthread_cond_signal(&b->streams[d][l].ev_cv);
            pthread_mutex_unlock(&b->ev_lock);
            break;
        case TASK_WAIT:
            pthread_mutex_lock(&b->ev_lock);
            s->waiting_ev = t.event;
            while (!b->ev_done[t.event]) pthread_cond_wait(&s->ev_cv, &b->ev_lock);
            s->waiting_ev = -1;
            pthread_mutex_unlock(&b->ev_lock);
            break;
        }
        if (t.kind == TASK_COPY || t.kind == TASK_KERNEL) {
            double t1 = gs_mono_s(), dt = t1 - t0;
            if (b->cfg.on_task)
                b->cfg.on_task(b->cfg.hook_user, s->dev, s->lane, t.tag, t0, t1, t.kind == TASK_COPY ? (double)t.bytes : 0);
            pthread_mutex_lock(&b->st_lock);
            b->st.busy_s[s->dev][s->lane] += dt;
            if (t.kind == TASK_COPY) b->st.bytes[s->dev][s->lane] += (double)t.bytes;
            else b->st.flops[s->dev] += t.call.flops;
            pthread_mutex_unlock(&b->st_lock);
        }
        pthread_mutex_lock(&s->lock);
        s->head = (s->head + 1) % s->cap;
        s->count--;
        s->busy = 0;
        if (s->count == 0 || s->count == s->cap - 1) pthread_cond_broadcast(&s->cv); /* drained, or room again */
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

void wall_enqueue(struct backend *b, int dev, lane_t lane, const task_t *t)
{
    stream_t *s = &b->streams[dev][lane];
    pthread_mutex_lock(&s->lock);
    if (s->count == s->cap) {
        int cap = s->cap * 2;
        task_t *n = malloc(sizeof *n * (size_t)cap);
        if (n) {
            for (int i = 0; i < s->count; i++) n[i] = s->q[(s->head + i) % s->cap];
            free(s->q);
            s->q = n, s->head = 0, s->cap = cap;
        } else { /* no memory to grow: wait for the stream to make room */
            while (s->count == s->cap) pthread_cond_wait(&s->cv, &s->lock);
        }
    }
    s->q[(s->head + s->count) % s->cap] = *t;
    s->count++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lock);
}


void wall_drain(struct backend *b, int dev, lane_t lane)
{
    stream_t *s = &b->streams[dev][lane];
    pthread_mutex_lock(&s->lock);
    while (s->count > 0 || s->busy) pthread_cond_wait(&s->cv, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

int wall_start(struct backend *b, gs_err_t *err)
{
    if (b->cfg.topo) lm_init(&b->links, &b->topo);
    for (int d = 0; d < b->cfg.ndev; d++)
        for (int l = 0; l < LANE__COUNT; l++) {
            stream_t *s = &b->streams[d][l];
            s->b = b, s->dev = d, s->lane = (lane_t)l, s->cap = 256;
            s->q = malloc(sizeof *s->q * (size_t)s->cap);
            pthread_mutex_init(&s->lock, NULL);
            pthread_cond_init(&s->cv, NULL);
            pthread_cond_init(&s->ev_cv, NULL);
            s->waiting_ev = -1;
            if (!s->q || pthread_create(&s->thread, NULL, stream_main, s) != 0) {
                free(s->q);
                s->cap = 0;
                return gs_fail(err, GS_EFAIL, "cannot start the streams of virtual device %d", d);
            }
        }
    return GS_OK;
}

void wall_stop(struct backend *b)
{
    for (int d = 0; d < b->cfg.ndev; d++)
        for (int l = 0; l < LANE__COUNT; l++) {
            stream_t *s = &b->streams[d][l];
            if (!s->cap) continue;
            pthread_mutex_lock(&s->lock);
            s->stop = 1;
            pthread_cond_broadcast(&s->cv);
            pthread_mutex_unlock(&s->lock);
            pthread_join(s->thread, NULL);
            free(s->q);
            s->cap = 0;
        }
    if (b->cfg.topo) lm_destroy(&b->links);
}
