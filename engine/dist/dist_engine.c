/* dist_engine.c - see dist_engine.h. */
#include "dist_engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A contended mutex's handoff between cores (the lock's cache line moving,
 * the waiter woken): an assumption, of the order measured for pthread
 * mutexes under contention on two-socket Xeons. */
#define ENQUEUE_LOCK_S 0.2e-6

void dist_log_add(dist_log_t *log, const dist_event_t *e)
{
    if (!log->on) return;
    if (log->n == log->cap) {
        int64_t cap = log->cap ? 2 * log->cap : 1024;
        dist_event_t *p = realloc(log->ev, sizeof *p * (size_t)cap);
        if (!p) return;
        log->ev = p, log->cap = cap;
    }
    log->ev[log->n++] = *e;
}

/* ---------------- routes ---------------- */

/* First index of sorted ids[0..n) that is >= v. */
static int64_t lower_bound(const int32_t *ids, int64_t n, int64_t v)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (ids[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Sends each owner the rows of its that this rank mirrors at hop h, and
 * receives the rows each peer mirrors of this rank's. */
static int exchange_needs(dist_engine_t *de, dist_route_t *rt, const int32_t *mirrors, int64_t own, gs_err_t *err)
{
    int R = de->nranks;
    int64_t want[DIST_MAX_RANKS] = {0}, give[DIST_MAX_RANKS] = {0};
    int32_t *need[DIST_MAX_RANKS] = {0};
    for (int r = 0; r < R; r++) want[r] = r == de->rank ? 0 : rt->recv_off[r + 1] - rt->recv_off[r];
    int rc = dist_alltoall_counts(de->comm, want, give, err);
    dist_batch_t *b = &de->batch;
    memset(b, 0, sizeof *b);
    for (int r = 0; r < R && !rc; r++) {
        if (r == de->rank) continue;
        need[r] = malloc(sizeof(int32_t) * (size_t)(want[r] + 1));
        rt->send_rows[r] = malloc(sizeof(int32_t) * (size_t)(give[r] + 1));
        if (!need[r] || !rt->send_rows[r]) rc = gs_fail(err, GS_EFAIL, "out of memory building the routes");
        for (int64_t i = 0; !rc && i < want[r]; i++) need[r][i] = (int32_t)(mirrors[rt->recv_off[r] + i] - de->bounds[r]);
        rt->nsend[r] = give[r];
        b->send[r] = need[r], b->send_bytes[r] = 4 * want[r];
        b->recv[r] = rt->send_rows[r], b->recv_bytes[r] = 4 * give[r];
        b->order[b->norder++] = r;
    }
    if (!rc) rc = dist_batch_post(de->comm, b, err);
    if (!rc) rc = dist_batch_wait(de->comm, b, err);
    for (int r = 0; r < R; r++) free(need[r]);
    for (int r = 0; r < R && !rc; r++)
        for (int64_t i = 0; i < rt->nsend[r]; i++)
            if (rt->send_rows[r][i] < 0 || rt->send_rows[r][i] >= own)
                return gs_fail(err, GS_EFAIL, "rank %d asked for row %d, outside this rank's %lld", r, rt->send_rows[r][i], (long long)own);
    return rc;
}

/* The hop's edges whose sources lie in [lo, hi), as a block of their own
 * (CSC and weights only: what a forward gather reads). */
static int chunk_of(const graph_t *b, int64_t lo, int64_t hi, graph_t *c)
{
    memset(c, 0, sizeof *c);
    c->n = b->n, c->nsrc = b->nsrc, c->nbase = b->nbase, c->ntypes = b->ntypes;
    c->in_ptr = calloc((size_t)b->n + 1, sizeof *c->in_ptr);
    if (!c->in_ptr) return -1;
    int64_t m = 0;
    for (int64_t v = 0; v < b->n; v++) {
        for (int64_t e = b->in_ptr[v]; e < b->in_ptr[v + 1]; e++) m += b->in_src[e] >= lo && b->in_src[e] < hi;
        c->in_ptr[v + 1] = m;
    }
    c->m = m;
    c->in_src = malloc(sizeof(int32_t) * (size_t)(m + 1));
    c->w_norm = malloc(sizeof(float) * (size_t)(m + 1));
    c->w_mean = malloc(sizeof(float) * (size_t)(m + 1));
    if (b->etype) c->etype = malloc(sizeof(int32_t) * (size_t)(m + 1));
    if (!c->in_src || !c->w_norm || !c->w_mean || (b->etype && !c->etype)) return -1;
    int64_t w = 0;
    for (int64_t e = 0; e < b->m; e++) {
        if (b->in_src[e] < lo || b->in_src[e] >= hi) continue;
        c->in_src[w] = b->in_src[e], c->w_norm[w] = b->w_norm[e], c->w_mean[w] = b->w_mean[e];
        if (b->etype) c->etype[w] = b->etype[e];
        w++;
    }
    return 0;
}

int dist_engine_open(dist_engine_t *de, dist_comm_t *comm, int rank, int nranks, const int64_t *bounds,
                     const dep_plan_t *plan, const blockset_t *bs, gs_err_t *err)
{
    memset(de, 0, sizeof *de);
    de->kp = kplace_host(), de->comm = comm, de->rank = rank, de->nranks = nranks, de->bounds = bounds;
    de->nhops = plan->nhops, de->pending_key = -1, de->bwd_key = -1, de->ring = de->overlap = 1;
    memcpy(de->rep_s, plan->rep_level, sizeof de->rep_s);
    int64_t own = bounds[rank + 1] - bounds[rank];
    for (int h = 1; h <= plan->nhops; h++) {
        dist_route_t *rt = &de->route[h];
        const int32_t *mirrors = plan->extra[h - 1];
        int64_t n = plan->nextra[h - 1];
        for (int r = 0; r <= nranks; r++) rt->recv_off[r] = lower_bound(mirrors, n, bounds[r]);
        int rc = exchange_needs(de, rt, mirrors, own, err);
        if (rc) {
            dist_engine_close(de);
            return rc;
        }
        const graph_t *b = &bs->block[h];
        int bad = chunk_of(b, 0, b->nbase, &rt->chunk[nranks]);
        for (int r = 0; r < nranks && !bad; r++)
            bad = r != rank && chunk_of(b, b->nbase + rt->recv_off[r], b->nbase + rt->recv_off[r + 1], &rt->chunk[r]);
        if (bad) {
            dist_engine_close(de);
            return gs_fail(err, GS_EFAIL, "out of memory splitting hop %d's edges by owner", h);
        }
    }
    return GS_OK;
}

static void free_chunk(graph_t *c) { free(c->in_ptr), free(c->in_src), free(c->w_norm), free(c->w_mean), free(c->etype); }

void dist_engine_close(dist_engine_t *de)
{
    for (int h = 0; h <= DEP_MAX_HOPS; h++)
        for (int r = 0; r <= DIST_MAX_RANKS; r++) {
            if (r < DIST_MAX_RANKS) free(de->route[h].send_rows[r]);
            free_chunk(&de->route[h].chunk[r]);
        }
    for (int r = 0; r < DIST_MAX_RANKS; r++) free(de->buf[r]);
    free(de->log.ev);
    memset(de, 0, sizeof *de);
}

/* ---------------- exchanges ---------------- */

static float *buffer(dist_engine_t *de, int r, size_t floats)
{
    if (floats > de->buf_cap[r]) {
        float *p = realloc(de->buf[r], sizeof(float) * floats);
        if (!p) return NULL;
        de->buf[r] = p, de->buf_cap[r] = floats;
    }
    return de->buf[r];
}

/* The peers in send order: ring (i sends its j-th chunk to (i+j+1) % m) or 0..m-1. */
static void send_order(const dist_engine_t *de, dist_batch_t *b)
{
    b->norder = 0;
    for (int j = 0; j < de->nranks; j++) {
        int p = de->ring ? (de->rank + j + 1) % de->nranks : j;
        if (p != de->rank) b->order[b->norder++] = p;
    }
}

/* The order received chunks are summed in: the ring's arrival order, fixed
 * whatever the real arrival order, so the sums are the same every run. */
static int sum_order(const dist_engine_t *de, int *peers)
{
    int n = 0;
    for (int j = 0; j < de->nranks; j++) {
        int p = ((de->rank - j - 1) % de->nranks + de->nranks) % de->nranks;
        if (p != de->rank) peers[n++] = p;
    }
    return n;
}

double dist_enqueue_s(double rows, double bytes, double host_bw, int cores, int locked)
{
    if (!locked) return 2.0 * bytes / host_bw;
    return rows * ENQUEUE_LOCK_S + 2.0 * bytes / (host_bw / (cores > 0 ? cores : 1));
}

/* Departures through this rank's NIC, in send order, from `ready`: each
 * message off the GPU (when the rank has one), enqueued when rows gives
 * its row counts (a forward exchange; NULL: sent as it lies), then sent. */
static void stamp_sends(dist_engine_t *de, dist_batch_t *b, double ready, const int64_t *rows)
{
    b->stamps = de->clock != NULL;
    double queued = ready;
    for (int i = 0; i < b->norder && b->stamps; i++) {
        int p = b->order[i];
        double bytes = (double)b->send_bytes[p];
        if (bytes <= 0) {
            b->stamp_out[p] = ready;
            continue;
        }
        double in_host = nic_stage_out(&de->nic, ready, bytes);
        if (rows) {
            double s = dist_enqueue_s((double)rows[p], bytes, de->clock->host_bw, de->host_cores, de->queue_locked);
            queued = fmax(queued, in_host) + s, de->ctr.queue_s += s;
        } else {
            queued = fmax(queued, in_host);
        }
        b->stamp_out[p] = nic_send(&de->nic, queued, bytes);
    }
}

/* Books a receive's span (its last bytes through the receive link). */
static void log_recv(dist_engine_t *de, int p, double arrive, double bytes, int hop, int dir)
{
    double bw = de->nic.net.bw > 0 ? de->nic.net.bw : 0;
    dist_event_t e = {bw ? arrive - bytes / bw : arrive, arrive, bytes, 0, (int16_t)de->rank, (int16_t)p, DIST_EV_RECV,
                      (int8_t)dir, -1, (int16_t)hop, ""};
    snprintf(e.name, sizeof e.name, "%s h%d", dir ? "grad" : "rows", hop);
    dist_log_add(&de->log, &e);
}

/* Arrivals at this rank's NIC, in order of departure; arrive[p] per peer. */
static double arrivals(dist_engine_t *de, const dist_batch_t *b, double *arrive, int hop, int dir)
{
    int idx[DIST_MAX_RANKS], n = 0;
    double last = de->clock ? de->clock->now : 0;
    for (int p = 0; p < de->nranks; p++) arrive[p] = 0;
    if (!de->clock) return last;
    for (int p = 0; p < de->nranks; p++) /* an empty message is not waited for: nothing travels */
        if (p != de->rank && b->recv_bytes[p] > 0) idx[n++] = p;
    for (int i = 1; i < n; i++) /* insertion sort by departure, then rank */
        for (int j = i; j > 0 && (b->stamp_in[idx[j]] < b->stamp_in[idx[j - 1]] ||
                                  (b->stamp_in[idx[j]] == b->stamp_in[idx[j - 1]] && idx[j] < idx[j - 1])); j--) {
            int t = idx[j];
            idx[j] = idx[j - 1], idx[j - 1] = t;
        }
    for (int i = 0; i < n; i++) {
        double bytes = (double)b->recv_bytes[idx[i]], in = nic_recv(&de->nic, b->stamp_in[idx[i]], bytes);
        log_recv(de, idx[i], in, bytes, hop, dir);
        arrive[idx[i]] = nic_stage_in(&de->nic, in, bytes);
        last = fmax(last, arrive[idx[i]]);
    }
    return last;
}

/* Books the batch's sends (and, on the clock, their spans: the NIC sends
 * them one after another, each ending at its stamp). */
static void count_sends(dist_engine_t *de, const dist_batch_t *b, int hop, int dir)
{
    for (int i = 0; i < b->norder; i++) {
        int p = b->order[i];
        if (b->send_bytes[p] <= 0) continue;
        de->ctr.bytes[hop][dir][p] += (double)b->send_bytes[p];
        de->ctr.msgs[hop][dir][p] += 1;
        if (!de->clock) continue;
        double bw = de->nic.net.bw > 0 ? de->nic.net.bw : 0, t1 = b->stamp_out[p], t0 = bw ? t1 - (double)b->send_bytes[p] / bw : t1;
        dist_event_t e = {t0, t1, (double)b->send_bytes[p], 0, (int16_t)de->rank, (int16_t)p, DIST_EV_SEND, (int8_t)dir,
                          -1, (int16_t)hop, ""};
        snprintf(e.name, sizeof e.name, "%s h%d", dir ? "grad" : "rows", hop);
        dist_log_add(&de->log, &e);
    }
}


/* The clock waits for `last` (a stall when it is later than now). */
static void wait_until(dist_engine_t *de, double t0, double last)
{
    if (!de->clock) return;
    de->ctr.comm_s += fmax(0, last - t0);
    if (last > de->clock->now) {
        de->ctr.stall_s += last - de->clock->now;
        de->ctr.hidden_s += fmax(0, de->clock->now - t0);
        de->clock->now = last;
    } else {
        de->ctr.hidden_s += fmax(0, last - t0);
    }
    de->sync_t = de->clock->now;
}

/* Backward: the gradients sent at t0 are all in at `last`; their gather
 * ends at `end`, `compute` of it still to be charged by the executor, so
 * the clock moves to what makes the op end at the later of the two. */
static void wait_grads(dist_engine_t *de, double t0, double last, double end, double compute, double replicas)
{
    if (!de->clock) return;
    double beside = fmin(replicas, fmax(0, last - end)); /* the replicated rows' backward, run while they travel */
    de->ctr.comm_s += fmax(0, last - t0);
    de->ctr.hidden_s += fmax(0, fmin(last, end) - t0) + beside;
    if (last - beside > end) de->ctr.stall_s += last - beside - end, de->clock->now = fmax(de->clock->now, last - beside - compute);
    de->sync_t = de->clock->now;
}

/* With overlap on, the seconds of level k's replicated rows that can run
 * beside the exchange of the level's value or its gradient (0 off the
 * clock or with overlap off). */
static double replicas_s(const dist_engine_t *de, int k)
{
    return de->clock && de->overlap && k >= 0 && k <= DEP_MAX_HOPS ? de->rep_s[k] : 0;
}

/* Forward: the owners' rows of value v into this rank's mirror rows. */
static int src_ready(void *self, exec_t *ex, int v, int hop, int gathered, gs_err_t *err)
{
    dist_engine_t *de = self;
    const dist_route_t *rt = &de->route[hop];
    const graph_t *blk = ex->block[hop];
    int64_t cols = ex->prog->vals[v].cols;
    float *data = ex->val[v].data;
    dist_batch_t *b = &de->batch;
    memset(b, 0, sizeof *b);
    for (int p = 0; p < de->nranks; p++) {
        if (p == de->rank) continue;
        float *out = buffer(de, p, (size_t)(rt->nsend[p] * cols + 1));
        if (!out) return gs_fail(err, GS_EFAIL, "out of memory for a send buffer");
        for (int64_t i = 0; i < rt->nsend[p]; i++) /* position i is the peer's i-th requested row */
            memcpy(out + i * cols, data + (int64_t)rt->send_rows[p][i] * cols, sizeof(float) * (size_t)cols);
        b->send[p] = out, b->send_bytes[p] = 4 * rt->nsend[p] * cols;
        b->recv[p] = data + (blk->nbase + rt->recv_off[p]) * cols;
        b->recv_bytes[p] = 4 * (rt->recv_off[p + 1] - rt->recv_off[p]) * cols;
    }
    send_order(de, b);
    double now = de->clock ? de->clock->now : 0, t0 = now - fmin(replicas_s(de, hop - 1), fmax(0, now - de->sync_t)); /* once the owned rows are done */
    stamp_sends(de, b, t0, rt->nsend);
    int rc = dist_batch_post(de->comm, b, err);
    if (rc) return rc;
    count_sends(de, b, hop, 0);
    if (gathered && de->overlap) { /* the gather waits for each owner's rows itself */
        de->pending_key = 2 * v, de->pending_hop = hop, de->pending_t0 = now, de->pending_sent = t0;
        return GS_OK;
    }
    if ((rc = dist_batch_wait(de->comm, b, err))) return rc;
    double arrive[DIST_MAX_RANKS];
    wait_until(de, t0, arrivals(de, b, arrive, hop, 0));
    return GS_OK;
}

/* The modeled seconds of a gather over m edges of f floats into n rows
 * (the executor's charge: each edge's row, the input and the output). */
static double gather_s(const dist_engine_t *de, double m, double n, double f)
{
    return vclock_host_s(de->clock, 2.0 * m * f, 4.0 * (m * f + 2.0 * n * f), 0);
}

/* On a GPU rank, the seconds to load a gather's `rows` rows of f floats
 * and its m edges (a source and a weight each) onto the GPU: its vertex
 * tensors live in host memory (NeutronStar 4.3 does not assume they fit
 * the GPU); loading chunk by chunk overlaps the compute, so a gather takes
 * the longer of the two. 0 on a host rank. */
static double load_s(const dist_engine_t *de, double rows, double m, double f)
{
    return de->clock ? nic_load_s(&de->nic, 4.0 * rows * f + 8.0 * m) : 0;
}

/* A gather's time past its compute while its loads finish (the executor
 * charges the compute): moves the clock, counts it. */
static void wait_loads(dist_engine_t *de, double compute_s, double loads_s)
{
    if (loads_s <= compute_s) return;
    de->clock->now += loads_s - compute_s;
    de->ctr.load_s += loads_s - compute_s;
}

/* Forward gather while the mirrors arrive: the edges from rows computed
 * here first, then each owner's edges in the fixed summation order. On the
 * virtual clock, each owner's part starts when both its rows are in and
 * the previous part is done; what that adds to the compute is a stall. */
static int overlapped_gather(dist_engine_t *de, const gather_call_t *c, gs_err_t *err)
{
    const dist_route_t *rt = &de->route[c->hop];
    gather_call_t part = *c;
    part.g = &rt->chunk[de->nranks];
    int rc = exec_memory_ops.gather(&de->kp, &part, err);
    de->pending_key = -1;
    if (!rc) rc = dist_batch_wait(de->comm, &de->batch, err);
    if (rc) return rc;
    double arrive[DIST_MAX_RANKS];
    arrivals(de, &de->batch, arrive, c->hop, 0);
    int peers[DIST_MAX_RANKS], np = sum_order(de, peers);
    double f = (double)c->f, t = de->pending_t0, busy = 0, g = (double)part.g->m, n = (double)part.g->n;
    if (de->clock) /* the rows computed here are loaded with their edges; a mirror chunk's rows came in with it */
        busy = gather_s(de, g, n, f), t += fmax(busy, load_s(de, (double)c->g->nbase, g, f));
    part.acc = 1;
    for (int i = 0; i < np && !rc; i++) {
        part.g = &rt->chunk[peers[i]];
        if (part.g->m == 0) continue;
        rc = exec_memory_ops.gather(&de->kp, &part, err);
        if (de->clock) {
            double s = gather_s(de, (double)part.g->m, (double)part.g->n, f);
            t = fmax(t, arrive[peers[i]]) + fmax(s, load_s(de, 0, (double)part.g->m, f)), busy += s;
        }
    }
    if (de->clock) { /* the executor charges the gather's compute after this; the rest of t is waiting */
        double last = de->pending_sent;
        for (int i = 0; i < np; i++) last = fmax(last, arrive[peers[i]]);
        de->ctr.comm_s += last - de->pending_sent;
        double stall = fmax(0, (t - de->pending_t0) - busy);
        de->ctr.stall_s += stall, de->ctr.hidden_s += fmax(0, (last - de->pending_sent) - stall);
        de->clock->now += stall;
        de->sync_t = de->clock->now + busy; /* the executor charges busy next */
    }
    return rc;
}

/* Backward: the mirror rows' gradients to their owners, and the peers'
 * gradients for this rank's rows added to them (in rank order). */
static int src_grad_ready(void *self, exec_t *ex, int v, int hop, gs_err_t *err)
{
    dist_engine_t *de = self;
    const dist_route_t *rt = &de->route[hop];
    const graph_t *blk = ex->block[hop];
    int64_t cols = ex->prog->vals[v].cols;
    float *g = ex->grad[v].data;
    dist_batch_t *b = &de->batch;
    memset(b, 0, sizeof *b);
    for (int p = 0; p < de->nranks; p++) {
        if (p == de->rank) continue;
        b->send[p] = g + (blk->nbase + rt->recv_off[p]) * cols; /* contiguous: sent as it lies */
        b->send_bytes[p] = 4 * (rt->recv_off[p + 1] - rt->recv_off[p]) * cols;
        b->recv[p] = buffer(de, p, (size_t)(rt->nsend[p] * cols + 1));
        if (!b->recv[p]) return gs_fail(err, GS_EFAIL, "out of memory for a receive buffer");
        b->recv_bytes[p] = 4 * rt->nsend[p] * cols;
    }
    send_order(de, b);
    double t0 = de->clock ? de->clock->now : 0, end = t0, compute = 0;
    if (de->clock && de->bwd_key == 2 * v + 1 && de->bwd_hop == hop) { /* sent as its gather computes them */
        end = de->bwd_t0 + de->bwd_span, compute = de->bwd_compute;
        t0 = de->bwd_t0 + (de->overlap ? de->bwd_first_s : de->bwd_span);
    }
    de->bwd_key = -1;
    stamp_sends(de, b, t0, NULL);
    int rc = dist_batch_post(de->comm, b, err);
    if (!rc) rc = dist_batch_wait(de->comm, b, err);
    if (rc) return rc;
    count_sends(de, b, hop, 1);
    double arrive[DIST_MAX_RANKS];
    wait_grads(de, t0, arrivals(de, b, arrive, hop, 1), end, compute, replicas_s(de, hop - 1));
    double added = 0;
    for (int p = 0; p < de->nranks; p++) {
        if (p == de->rank) continue;
        const float *in = de->buf[p];
        for (int64_t i = 0; i < rt->nsend[p]; i++) {
            float *row = g + (int64_t)rt->send_rows[p][i] * cols;
            for (int64_t j = 0; j < cols; j++) row[j] += in[i * cols + j];
        }
        added += (double)rt->nsend[p] * (double)cols;
    }
    if (de->clock) {
        double t_a, t_b;
        vclock_host_op(de->clock, added, 12.0 * added, 0, &t_a, &t_b);
    }
    return GS_OK;
}

/* ---------------- the engine ---------------- */

static int de_gather(void *self, const gather_call_t *c, gs_err_t *err)
{
    dist_engine_t *de = self;
    if (de->pending_key >= 0 && c->in.key == de->pending_key && c->hop == de->pending_hop) return overlapped_gather(de, c, err);
    double m = (double)c->g->m, f = (double)c->f;
    if (de->clock) wait_loads(de, gather_s(de, m, (double)c->g->n, f), load_s(de, (double)c->g->nbase, m, f));
    return exec_memory_ops.gather(&de->kp, c, err);
}

/* Backward: the destinations' gradients and the edges load; the sources'
 * gradients go back to host memory at the same time (the link is duplex). */
static int de_gather_bwd(void *self, const gather_call_t *c, gs_err_t *err)
{
    dist_engine_t *de = self;
    double m = (double)c->g->m, f = (double)c->f, rows = (double)(c->g->nsrc > c->g->n ? c->g->nsrc : c->g->n);
    if (de->clock) { /* remembered for the gradients' exchange (src_grad_ready) */
        const dist_route_t *rt = &de->route[c->hop];
        double compute = gather_s(de, m, (double)c->g->nsrc, f), span = fmax(compute, load_s(de, rows, m, f)), remote = 0;
        for (int p = 0; p < de->nranks; p++) remote += p == de->rank ? 0 : (double)rt->chunk[p].m;
        de->bwd_key = c->out.key, de->bwd_hop = c->hop, de->bwd_t0 = de->clock->now;
        de->bwd_span = span, de->bwd_compute = compute, de->bwd_first_s = m > 0 ? span * fmin(1, remote / m) : 0;
        wait_loads(de, compute, span);
    }
    return exec_memory_ops.gather_bwd(&de->kp, c, err);
}

static int de_matmul(void *self, const matmul_call_t *c, gs_err_t *err)
{
    return exec_memory_ops.matmul(&((dist_engine_t *)self)->kp, c, err);
}

static int de_matmul_bwd(void *self, const matmul_call_t *c, gs_err_t *err)
{
    return exec_memory_ops.matmul_bwd(&((dist_engine_t *)self)->kp, c, err);
}

static const exec_engine_ops_t dist_ops = {
    .name = "dist",
    .on_host = 1,
    .gather = de_gather,
    .gather_bwd = de_gather_bwd,
    .matmul = de_matmul,
    .matmul_bwd = de_matmul_bwd,
    .src_ready = src_ready,
    .src_grad_ready = src_grad_ready,
};

exec_engine_t dist_engine_exec(dist_engine_t *de) { return (exec_engine_t){&dist_ops, de}; }

/* The ring all-reduce's traffic on the timeline: each rank sends 2 (n-1)/n
 * of the buffer to its successor and takes as much from its predecessor
 * over [t0, t1] (so a DepCache run's network is not shown idle). Not in
 * net_bytes, which counts the dependencies' messages. */
static void log_allreduce(dist_engine_t *de, double t0, double t1, double bytes)
{
    int n = de->nranks;
    if (n < 2) return;
    double moved = 2.0 * (n - 1) / n * bytes;
    dist_event_t send = {t0, t1, moved, 0, (int16_t)de->rank, (int16_t)((de->rank + 1) % n), DIST_EV_SEND, 2, -1, -1, "allreduce"};
    dist_event_t recv = send;
    recv.peer = (int16_t)((de->rank + n - 1) % n), recv.kind = DIST_EV_RECV;
    dist_log_add(&de->log, &send);
    dist_log_add(&de->log, &recv);
}

double dist_engine_allreduce_s(const dist_engine_t *de, double bytes)
{
    double s = net_allreduce_s(&de->nic.net, de->nranks, bytes);
    return de->nranks > 1 ? s + 2.0 * nic_load_s(&de->nic, bytes) : s; /* off the GPU and back */
}

int dist_engine_allreduce(dist_engine_t *de, void *buf, int64_t count, int f64, gs_err_t *err)
{
    if (de->clock) { /* the clocks meet, then the ring all-reduce takes its time */
        double t = de->clock->now;
        int rc = dist_allreduce(de->comm, &t, 1, DIST_F64, DIST_MAX, err);
        if (rc) return rc;
        double bytes = (double)count * (f64 ? 8 : 4), s = dist_engine_allreduce_s(de, bytes);
        de->clock->now = de->sync_t = t + s;
        de->ctr.allreduce_s += s;
        log_allreduce(de, t, t + s, bytes);
    }
    return dist_allreduce(de->comm, buf, count, f64 ? DIST_F64 : DIST_F32, DIST_SUM, err);
}

int dist_fetch_rows(dist_comm_t *c, int rank, int nranks, const int64_t *bounds, const int32_t *want, int64_t nwant,
                    const float *own, int64_t cols, float *out, gs_err_t *err)
{
    int64_t off[DIST_MAX_RANKS + 1], ask[DIST_MAX_RANKS] = {0}, give[DIST_MAX_RANKS] = {0};
    for (int r = 0; r <= nranks; r++) off[r] = lower_bound(want, nwant, bounds[r]);
    for (int r = 0; r < nranks; r++) ask[r] = r == rank ? 0 : off[r + 1] - off[r];
    int rc = dist_alltoall_counts(c, ask, give, err);
    dist_batch_t *b = calloc(1, sizeof *b);
    int32_t *ids[DIST_MAX_RANKS] = {0}, *asked[DIST_MAX_RANKS] = {0};
    float *reply[DIST_MAX_RANKS] = {0};
    if (!b) rc = rc ? rc : gs_fail(err, GS_EFAIL, "out of memory");
    for (int r = 0; r < nranks && !rc; r++) { /* 1: the ids each owner is asked for */
        if (r == rank) continue;
        ids[r] = malloc(sizeof(int32_t) * (size_t)(ask[r] + 1)), asked[r] = malloc(sizeof(int32_t) * (size_t)(give[r] + 1));
        if (!ids[r] || !asked[r]) rc = gs_fail(err, GS_EFAIL, "out of memory");
        for (int64_t i = 0; !rc && i < ask[r]; i++) ids[r][i] = (int32_t)(want[off[r] + i] - bounds[r]);
        b->send[r] = ids[r], b->send_bytes[r] = 4 * ask[r], b->recv[r] = asked[r], b->recv_bytes[r] = 4 * give[r];
        b->order[b->norder++] = r;
    }
    if (!rc) rc = dist_batch_post(c, b, err);
    if (!rc) rc = dist_batch_wait(c, b, err);
    int64_t own_n = bounds[rank + 1] - bounds[rank];
    for (int r = 0; r < nranks && !rc; r++) { /* 2: the rows, back */
        if (r == rank) continue;
        reply[r] = malloc(sizeof(float) * (size_t)(give[r] * cols + 1));
        if (!reply[r]) rc = gs_fail(err, GS_EFAIL, "out of memory");
        for (int64_t i = 0; !rc && i < give[r]; i++) {
            if (asked[r][i] < 0 || asked[r][i] >= own_n) rc = gs_fail(err, GS_EFAIL, "rank %d asked for row %d", r, asked[r][i]);
            else memcpy(reply[r] + i * cols, own + (int64_t)asked[r][i] * cols, sizeof(float) * (size_t)cols);
        }
        b->send[r] = reply[r], b->send_bytes[r] = 4 * give[r] * cols;
        b->recv[r] = out + off[r] * cols, b->recv_bytes[r] = 4 * ask[r] * cols;
    }
    if (!rc) rc = dist_batch_post(c, b, err);
    if (!rc) rc = dist_batch_wait(c, b, err);
    for (int r = 0; r < nranks; r++) free(ids[r]), free(asked[r]), free(reply[r]);
    free(b);
    return rc;
}
