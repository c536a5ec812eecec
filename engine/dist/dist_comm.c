/* dist_comm.c - see dist_comm.h. */
#include "dist_comm.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef GS_HAVE_MPI
#include <mpi.h>

#define CHUNK_BYTES ((int64_t)1 << 30) /* below MPI's 2^31 count limit */
#define TAG_SPAN 30000                 /* MPI guarantees tags up to 32767 */

typedef enum { REQ_ALLREDUCE, REQ_BCAST, REQ_ALLTOALL, REQ_BARRIER, REQ_BATCH, REQ_ABORT, REQ_STOP } req_kind_t;

typedef struct req {
    req_kind_t kind;
    void *buf;
    const void *in;
    int64_t count;
    dist_type_t type;
    dist_op_t op;
    int root;
    dist_batch_t *batch;
    int done, rc;
    char msg[256];
    struct req *next;
} req_t;

/* An MPI request in flight and what it completes. */
typedef struct {
    MPI_Request r;
    dist_batch_t *b;
    int peer, recv;
} pending_t;

struct dist_comm {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake, progress;
    req_t *head, *tail;
    int rank, size, started, failed_init;
    char init_msg[256];
    int tag_seq;
    pending_t *pend;
    int npend, cap;
    int recv_parts[DIST_MAX_RANKS]; /* scratch: parts a batch's peer still waits for */
    double timeout_s;               /* the longest wait for another rank (0: none) */
    MPI_Comm probe;                 /* a stalled collective's roll call (MPI_COMM_NULL: none) */
};

/* Waits on c->progress (c->lock held) until the deadline (0: none);
 * returns 0 when woken, -1 when the deadline has passed. */
static int wait_progress(dist_comm_t *c, const struct timespec *deadline)
{
    if (!deadline) return pthread_cond_wait(&c->progress, &c->lock), 0;
    return pthread_cond_timedwait(&c->progress, &c->lock, deadline) == ETIMEDOUT ? -1 : 0;
}

/* The deadline of a wait starting now, or NULL when waits are unbounded. */
static const struct timespec *deadline_of(const dist_comm_t *c, struct timespec *at, double scale)
{
    if (c->timeout_s <= 0) return NULL;
    clock_gettime(CLOCK_MONOTONIC, at);
    double s = c->timeout_s * scale, whole = (double)(time_t)s;
    at->tv_sec += (time_t)s;
    at->tv_nsec += (long)((s - whole) * 1e9);
    if (at->tv_nsec >= 1000000000L) at->tv_sec++, at->tv_nsec -= 1000000000L;
    return at;
}

/* A wait past the timeout ends this rank at once, and mpirun the job with
 * it: the wait's buffers are still posted to MPI (or its collective still
 * runs on the communication thread), so nothing can safely return. */
static void timed_out(const dist_comm_t *c, const char *what)
{
    fprintf(stderr, "gnnscope: error: rank %d: %s in %g s (--rank-timeout): a rank has stopped or hung; ending the job\n",
            c->rank, what, c->timeout_s);
    fflush(stderr);
    _exit(1);
}

/* Names the peers whose receive or send in b has not completed, e.g. "rank 2, rank 5". */
static void missing_peers(const dist_comm_t *c, const dist_batch_t *b, char *out, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (int p = 0; p < c->size && at < n; p++)
        if (p != c->rank && (b->recv_done[p] != 1 || b->send_left[p] > 0))
            at += (size_t)snprintf(out + at, n - at, "%srank %d", at ? ", " : "", p);
}

/* timed_out for a batch: what_fmt's %s names the peers not heard from. */
static void batch_timed_out(const dist_comm_t *c, const dist_batch_t *b, const char *what_fmt)
{
    char who[200], what[300];
    missing_peers(c, b, who, sizeof who);
    snprintf(what, sizeof what, what_fmt, who);
    timed_out(c, what);
}

static MPI_Datatype mpi_type(dist_type_t t) { return t == DIST_F32 ? MPI_FLOAT : t == DIST_F64 ? MPI_DOUBLE : MPI_INT64_T; }
static MPI_Op mpi_op(dist_op_t o) { return o == DIST_SUM ? MPI_SUM : o == DIST_MAX ? MPI_MAX : MPI_MIN; }
static size_t type_bytes(dist_type_t t) { return t == DIST_F32 ? 4 : 8; }

static int fail_mpi(char *msg, size_t n, int code, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    snprintf(msg, n, "MPI %s failed: %.*s", what, len, text);
    return GS_EFAIL;
}

static int add_pending(dist_comm_t *c, MPI_Request r, dist_batch_t *b, int peer, int recv)
{
    if (c->npend == c->cap) {
        int cap = c->cap ? 2 * c->cap : 256;
        pending_t *p = realloc(c->pend, sizeof *p * (size_t)cap);
        if (!p) return -1;
        c->pend = p, c->cap = cap;
    }
    c->pend[c->npend++] = (pending_t){r, b, peer, recv};
    return 0;
}

/* Posts a buffer as messages of at most CHUNK_BYTES. */
static int post(dist_comm_t *c, dist_batch_t *b, int peer, int recv, char *p, int64_t bytes, int tag)
{
    for (int64_t off = 0; off < bytes; off += CHUNK_BYTES) {
        int n = (int)(bytes - off < CHUNK_BYTES ? bytes - off : CHUNK_BYTES);
        MPI_Request r;
        int rc = recv ? MPI_Irecv(p + off, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r)
                      : MPI_Isend(p + off, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r);
        if (rc != MPI_SUCCESS) return fail_mpi(b->msg, sizeof b->msg, rc, recv ? "Irecv" : "Isend");
        if (add_pending(c, r, b, peer, recv)) return GS_EFAIL;
        if (recv) b->recv_done[peer]--; /* counts down parts; complete at 0 */
        else b->nsend_left++, b->send_left[peer]++;
    }
    return GS_OK;
}

static int post_batch(dist_comm_t *c, dist_batch_t *b)
{
    b->tag = 1 + c->tag_seq;
    c->tag_seq = (c->tag_seq + 2) % TAG_SPAN;
    b->nrecv_left = 0, b->nsend_left = 0;
    int rc = GS_OK;
    for (int p = 0; p < c->size && !rc; p++) { /* receives first, so sends find them posted */
        b->recv_done[p] = 0, b->send_left[p] = 0, b->taken[p] = p == c->rank;
        if (p == c->rank) continue;
        if (b->stamps) rc = post(c, b, p, 1, (char *)&b->stamp_in[p], sizeof(double), b->tag + 1);
        if (!rc) rc = post(c, b, p, 1, b->recv[p], b->recv_bytes[p], b->tag);
        if (b->recv_done[p] < 0) b->nrecv_left++;
        else b->recv_done[p] = 1; /* nothing to receive from p */
    }
    for (int i = 0; i < b->norder && !rc; i++) {
        int p = b->order[i];
        if (p == c->rank) continue;
        if (b->stamps) rc = post(c, b, p, 0, (char *)&b->stamp_out[p], sizeof(double), b->tag + 1);
        if (!rc) rc = post(c, b, p, 0, b->send[p], b->send_bytes[p], b->tag);
    }
    if (rc) b->failed = 1;
    return rc;
}

/* Completes what has finished; returns how many requests did. */
static int progress(dist_comm_t *c)
{
    if (c->npend == 0) return 0;
    MPI_Request *rs = malloc(sizeof *rs * (size_t)c->npend);
    int *idx = malloc(sizeof *idx * (size_t)c->npend), outcount = 0;
    if (!rs || !idx) {
        free(rs), free(idx);
        return 0;
    }
    for (int i = 0; i < c->npend; i++) rs[i] = c->pend[i].r;
    int rc = MPI_Testsome(c->npend, rs, &outcount, idx, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS || outcount == MPI_UNDEFINED) outcount = 0;
    if (rc != MPI_SUCCESS)
        for (int i = 0; i < c->npend; i++) c->pend[i].b->failed = 1, fail_mpi(c->pend[i].b->msg, sizeof c->pend[i].b->msg, rc, "Testsome");
    pthread_mutex_lock(&c->lock);
    for (int k = 0; k < outcount; k++) {
        pending_t *p = &c->pend[idx[k]];
        if (p->recv) {
            if (++p->b->recv_done[p->peer] == 0) p->b->recv_done[p->peer] = 1, p->b->nrecv_left--;
        } else {
            p->b->nsend_left--, p->b->send_left[p->peer]--;
        }
        p->r = MPI_REQUEST_NULL;
    }
    int w = 0; /* drop the completed ones */
    for (int i = 0; i < c->npend; i++) {
        c->pend[i].r = rs[i];
        if (rs[i] != MPI_REQUEST_NULL) c->pend[w++] = c->pend[i];
    }
    c->npend = w;
    if (outcount) pthread_cond_broadcast(&c->progress);
    pthread_mutex_unlock(&c->lock);
    free(rs), free(idx);
    return outcount;
}

static void run(dist_comm_t *c, req_t *q)
{
    int rc = MPI_SUCCESS;
    switch (q->kind) {
    case REQ_ALLREDUCE:
        for (int64_t off = 0; off < q->count && rc == MPI_SUCCESS; off += CHUNK_BYTES / 8) {
            int n = (int)(q->count - off < CHUNK_BYTES / 8 ? q->count - off : CHUNK_BYTES / 8);
            rc = MPI_Allreduce(MPI_IN_PLACE, (char *)q->buf + off * type_bytes(q->type), n, mpi_type(q->type), mpi_op(q->op),
                               MPI_COMM_WORLD);
        }
        if (rc != MPI_SUCCESS) q->rc = fail_mpi(q->msg, sizeof q->msg, rc, "Allreduce");
        break;
    case REQ_BCAST:
        for (int64_t off = 0; off < q->count && rc == MPI_SUCCESS; off += CHUNK_BYTES) {
            int n = (int)(q->count - off < CHUNK_BYTES ? q->count - off : CHUNK_BYTES);
            rc = MPI_Bcast((char *)q->buf + off, n, MPI_BYTE, q->root, MPI_COMM_WORLD);
        }
        if (rc != MPI_SUCCESS) q->rc = fail_mpi(q->msg, sizeof q->msg, rc, "Bcast");
        break;
    case REQ_ALLTOALL:
        rc = MPI_Alltoall(q->in, 1, MPI_INT64_T, q->buf, 1, MPI_INT64_T, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) q->rc = fail_mpi(q->msg, sizeof q->msg, rc, "Alltoall");
        break;
    case REQ_BARRIER:
        rc = MPI_Barrier(MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) q->rc = fail_mpi(q->msg, sizeof q->msg, rc, "Barrier");
        break;
    case REQ_BATCH:
        q->rc = post_batch(c, q->batch);
        if (q->rc) snprintf(q->msg, sizeof q->msg, "%s", q->batch->msg[0] ? q->batch->msg : "out of memory posting messages");
        break;
    case REQ_ABORT: MPI_Abort(MPI_COMM_WORLD, q->root); break;
    case REQ_STOP: break;
    }
}

static void *comm_main(void *arg)
{
    dist_comm_t *c = arg;
    /* MULTIPLE where the library has it: a caller whose collective stalls calls roll_call itself */
    int provided = 0, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    pthread_mutex_lock(&c->lock);
    c->probe = MPI_COMM_NULL;
    if (rc != MPI_SUCCESS) {
        c->failed_init = 1;
        fail_mpi(c->init_msg, sizeof c->init_msg, rc, "Init");
    } else {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
        MPI_Comm_size(MPI_COMM_WORLD, &c->size);
        if (provided >= MPI_THREAD_MULTIPLE && MPI_Comm_dup(MPI_COMM_WORLD, &c->probe) != MPI_SUCCESS) c->probe = MPI_COMM_NULL;
        if (c->size > DIST_MAX_RANKS) {
            c->failed_init = 1;
            snprintf(c->init_msg, sizeof c->init_msg, "%d ranks: at most %d are supported", c->size, DIST_MAX_RANKS);
        }
    }
    c->started = 1;
    pthread_cond_broadcast(&c->progress);
    pthread_mutex_unlock(&c->lock);
    if (rc != MPI_SUCCESS) return NULL;
    for (int stop = 0; !stop;) {
        pthread_mutex_lock(&c->lock);
        while (!c->head && c->npend == 0) pthread_cond_wait(&c->wake, &c->lock);
        req_t *q = c->head;
        c->head = c->tail = NULL;
        pthread_mutex_unlock(&c->lock);
        while (q) { /* once done is set the owner may return and q vanish: next is read first */
            req_t *next = q->next;
            run(c, q);
            stop |= q->kind == REQ_STOP;
            pthread_mutex_lock(&c->lock);
            q->done = 1;
            pthread_cond_broadcast(&c->progress);
            pthread_mutex_unlock(&c->lock);
            q = next;
        }
        if (c->npend && !progress(c)) { /* transfers in flight: poll, yielding the core briefly */
            struct timespec nap = {0, 20000};
            nanosleep(&nap, NULL);
        }
    }
    if (c->probe != MPI_COMM_NULL) MPI_Comm_free(&c->probe);
    MPI_Finalize();
    return NULL;
}

int dist_comm_available(void) { return 1; }
int dist_comm_rank(const dist_comm_t *c) { return c->rank; }
int dist_comm_size(const dist_comm_t *c) { return c->size; }

int dist_comm_open(dist_comm_t **out, int *rank, int *size, gs_err_t *err)
{
    dist_comm_t *c = calloc(1, sizeof *c);
    if (!c) return gs_fail(err, GS_EFAIL, "out of memory");
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->wake, NULL);
    pthread_condattr_t mono;
    pthread_condattr_init(&mono);
    pthread_condattr_setclock(&mono, CLOCK_MONOTONIC); /* timed waits (--rank-timeout) on the monotonic clock */
    pthread_cond_init(&c->progress, &mono);
    pthread_condattr_destroy(&mono);
    if (pthread_create(&c->thread, NULL, comm_main, c) != 0) {
        free(c);
        return gs_fail(err, GS_EFAIL, "cannot start the communication thread");
    }
    pthread_mutex_lock(&c->lock);
    while (!c->started) pthread_cond_wait(&c->progress, &c->lock);
    pthread_mutex_unlock(&c->lock);
    if (c->failed_init) {
        gs_fail(err, GS_EFAIL, "%s", c->init_msg);
        if (c->size <= DIST_MAX_RANKS) dist_comm_close(c);
        else pthread_join(c->thread, NULL), free(c);
        return GS_EFAIL;
    }
    *rank = c->rank, *size = c->size, *out = c;
    return GS_OK;
}

/* Queues q for the communication thread (c->lock held). */
static void enqueue(dist_comm_t *c, req_t *q)
{
    q->next = NULL;
    if (c->tail) c->tail->next = q;
    else c->head = q;
    c->tail = q;
    pthread_cond_signal(&c->wake);
}

static const char *req_names[] = {"an all-reduce", "a broadcast", "an all-to-all", "a barrier", "posting messages", "an abort", "a stop"};

/* After a collective stalled (the communication thread is still inside
 * it): every rank whose own wait ran out says so to every other on the
 * probe communicator and listens for 2 s; the ranks not heard from are the
 * ones that stopped. Names them in out ("rank 2, rank 5"); empty when the
 * library cannot be called from this thread or every rank answered. */
static void roll_call(dist_comm_t *c, char *out, size_t n)
{
    out[0] = '\0';
    if (c->probe == MPI_COMM_NULL || c->size > DIST_MAX_RANKS) return;
    MPI_Request req[2 * DIST_MAX_RANKS];
    int nreq = 0, heard[DIST_MAX_RANKS] = {0}, here = 1, got[DIST_MAX_RANKS];
    for (int p = 0; p < c->size; p++) {
        if (p == c->rank) continue;
        MPI_Isend(&here, 1, MPI_INT, p, 1, c->probe, &req[nreq++]);
        MPI_Irecv(&got[p], 1, MPI_INT, p, 1, c->probe, &req[nreq++]);
    }
    struct timespec t0, now, nap = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int left = c->size - 1; left > 0;) {
        for (int i = 1; i < nreq; i += 2) { /* the receives, in peer order without this rank */
            int peer = i / 2 + (i / 2 >= c->rank), done = 0;
            if (!heard[peer] && MPI_Test(&req[i], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done) heard[peer] = 1, left--;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) > 2.0) break;
        nanosleep(&nap, NULL);
    }
    size_t at = 0;
    for (int p = 0; p < c->size && at < n; p++)
        if (p != c->rank && !heard[p]) at += (size_t)snprintf(out + at, n - at, "%srank %d", at ? ", " : "", p);
}

/* Queues q and waits until the thread has run it (at most the timeout; a
 * collective half as long again, so that a rank that can name the missing
 * one, in a check-in or an exchange, speaks first). */
static int submit(dist_comm_t *c, req_t *q, gs_err_t *err)
{
    struct timespec at;
    const struct timespec *deadline = q->kind == REQ_STOP ? NULL : deadline_of(c, &at, q->kind == REQ_BATCH ? 1 : 1.5);
    pthread_mutex_lock(&c->lock);
    enqueue(c, q);
    while (!q->done)
        if (wait_progress(c, deadline)) {
            char who[200] = "", what[320];
            pthread_mutex_unlock(&c->lock);
            if (q->kind != REQ_BATCH) roll_call(c, who, sizeof who);
            if (who[0]) snprintf(what, sizeof what, "%s stalled: %s did not answer", req_names[q->kind], who);
            else snprintf(what, sizeof what, "%s did not complete", req_names[q->kind]);
            timed_out(c, what);
        }
    pthread_mutex_unlock(&c->lock);
    return q->rc ? gs_fail(err, q->rc, "%s", q->msg) : GS_OK;
}

/* Waits for every send and receive of b, at most scale times the timeout;
 * past it the peers not heard from are named in what (a format with one %s). */
static int batch_wait_as(dist_comm_t *c, dist_batch_t *b, const char *what_fmt, double scale, gs_err_t *err)
{
    struct timespec at;
    const struct timespec *deadline = deadline_of(c, &at, scale);
    pthread_mutex_lock(&c->lock);
    while ((b->nrecv_left > 0 || b->nsend_left > 0) && !b->failed)
        if (wait_progress(c, deadline)) batch_timed_out(c, b, what_fmt);
    pthread_mutex_unlock(&c->lock);
    return b->failed ? gs_fail(err, GS_EFAIL, "%s", b->msg) : GS_OK;
}

/* Before a collective (when waits are bounded): every rank tells rank 0
 * it is here, rank 0 tells every rank, so that a rank that never comes is
 * named (rank 0 names the missing ranks; the others, rank 0). The others
 * wait twice as long: rank 0 may itself be waiting on the missing rank in
 * an exchange they had no part in, begun later than their check-in; it
 * names that rank when its own wait runs out, and only a rank 0 silent
 * for a whole timeout more is named itself. */
static int checkin(dist_comm_t *c, const char *what, gs_err_t *err)
{
    if (c->size < 2) return GS_OK;
    dist_batch_t *b = calloc(1, sizeof *b);
    if (!b) return gs_fail(err, GS_EFAIL, "out of memory");
    int64_t here = 1, heard[DIST_MAX_RANKS];
    for (int p = 0; p < c->size; p++) {
        if (p == c->rank || (c->rank != 0 && p != 0)) continue; /* rank 0 hears every rank; the others, rank 0 */
        b->send[p] = &here, b->send_bytes[p] = sizeof here;
        b->recv[p] = &heard[p], b->recv_bytes[p] = sizeof heard[p];
        b->order[b->norder++] = p;
    }
    char fmt[96];
    snprintf(fmt, sizeof fmt, "%%s did not reach %s", what);
    int rc = dist_batch_post(c, b, err);
    if (!rc) rc = batch_wait_as(c, b, fmt, c->rank == 0 ? 1 : 2, err);
    free(b);
    return rc;
}

/* A collective: a check-in first when waits are bounded. */
static int collective(dist_comm_t *c, req_t *q, gs_err_t *err)
{
    int rc = c->timeout_s > 0 && c->size > 1 ? checkin(c, req_names[q->kind], err) : GS_OK;
    return rc ? rc : submit(c, q, err);
}

void dist_comm_close(dist_comm_t *c)
{
    if (!c) return;
    req_t q = {.kind = REQ_STOP};
    gs_err_t err;
    submit(c, &q, &err);
    pthread_join(c->thread, NULL);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->wake);
    pthread_cond_destroy(&c->progress);
    free(c->pend);
    free(c);
}

void dist_comm_abort(dist_comm_t *c, int code)
{
    req_t q = {.kind = REQ_ABORT, .root = code};
    struct timespec at = {0, 0};
    clock_gettime(CLOCK_MONOTONIC, &at);
    at.tv_sec += 5; /* the thread may be stuck in a collective with a rank that hung: then this rank just exits */
    pthread_mutex_lock(&c->lock);
    enqueue(c, &q);
    while (!q.done && wait_progress(c, &at) == 0) {}
    _exit(code); /* MPI_Abort returned or never ran: mpirun ends the job when a rank exits without finalising */
}

void dist_comm_set_timeout(dist_comm_t *c, double seconds) { c->timeout_s = seconds; }



int dist_allreduce(dist_comm_t *c, void *buf, int64_t count, dist_type_t type, dist_op_t op, gs_err_t *err)
{
    req_t q = {.kind = REQ_ALLREDUCE, .buf = buf, .count = count, .type = type, .op = op};
    return collective(c, &q, err);
}

int dist_bcast(dist_comm_t *c, void *buf, int64_t bytes, int root, gs_err_t *err)
{
    req_t q = {.kind = REQ_BCAST, .buf = buf, .count = bytes, .root = root};
    return collective(c, &q, err);
}

int dist_alltoall_counts(dist_comm_t *c, const int64_t *send_counts, int64_t *recv_counts, gs_err_t *err)
{
    req_t q = {.kind = REQ_ALLTOALL, .in = send_counts, .buf = recv_counts};
    return collective(c, &q, err);
}

int dist_barrier(dist_comm_t *c, gs_err_t *err)
{
    req_t q = {.kind = REQ_BARRIER};
    return collective(c, &q, err);
}

int dist_batch_post(dist_comm_t *c, dist_batch_t *b, gs_err_t *err)
{
    b->failed = 0, b->msg[0] = '\0';
    req_t q = {.kind = REQ_BATCH, .batch = b};
    return submit(c, &q, err);
}

int dist_batch_next(dist_comm_t *c, dist_batch_t *b, gs_err_t *err)
{
    struct timespec at;
    const struct timespec *deadline = deadline_of(c, &at, 1);
    pthread_mutex_lock(&c->lock);
    int peer = -1;
    for (;;) {
        for (int p = 0; p < c->size && peer < 0; p++)
            if (!b->taken[p] && b->recv_done[p] == 1) peer = p;
        int left = 0;
        for (int p = 0; p < c->size; p++) left += !b->taken[p];
        if (peer >= 0 || left == 0 || b->failed) break;
        if (wait_progress(c, deadline)) batch_timed_out(c, b, "no rows from %s");
    }
    if (peer >= 0) b->taken[peer] = 1;
    pthread_mutex_unlock(&c->lock);
    if (b->failed) return gs_fail(err, GS_EFAIL, "%s", b->msg), -2;
    return peer;
}

int dist_batch_wait(dist_comm_t *c, dist_batch_t *b, gs_err_t *err)
{
    return batch_wait_as(c, b, "an exchange with %s did not complete", 1, err);
}

#else /* no MPI at build time */

static int no_mpi(gs_err_t *err)
{
    return gs_fail(err, GS_EINPUT, "this build has no MPI (install libopenmpi-dev and openmpi-bin, then rebuild)");
}

int dist_comm_available(void) { return 0; }
int dist_comm_rank(const dist_comm_t *c)
{
    (void)c;
    return 0;
}
int dist_comm_size(const dist_comm_t *c)
{
    (void)c;
    return 1;
}
int dist_comm_open(dist_comm_t **out, int *rank, int *size, gs_err_t *err)
{
    (void)out, (void)rank, (void)size;
    return no_mpi(err);
}
void dist_comm_close(dist_comm_t *c) { (void)c; }
void dist_comm_set_timeout(dist_comm_t *c, double seconds) { (void)c, (void)seconds; }
void dist_comm_abort(dist_comm_t *c, int code)
{
    (void)c;
    exit(code);
}
int dist_allreduce(dist_comm_t *c, void *buf, int64_t count, dist_type_t type, dist_op_t op, gs_err_t *err)
{
    (void)c, (void)buf, (void)count, (void)type, (void)op;
    return no_mpi(err);
}
int dist_bcast(dist_comm_t *c, void *buf, int64_t bytes, int root, gs_err_t *err)
{
    (void)c, (void)buf, (void)bytes, (void)root;
    return no_mpi(err);
}
int dist_alltoall_counts(dist_comm_t *c, const int64_t *send_counts, int64_t *recv_counts, gs_err_t *err)
{
    (void)c, (void)send_counts, (void)recv_counts;
    return no_mpi(err);
}
int dist_barrier(dist_comm_t *c, gs_err_t *err)
{
    (void)c;
    return no_mpi(err);
}
int dist_batch_post(dist_comm_t *c, dist_batch_t *b, gs_err_t *err)
{
    (void)c, (void)b;
    return no_mpi(err);
}
int dist_batch_next(dist_comm_t *c, dist_batch_t *b, gs_err_t *err)
{
    (void)c, (void)b;
    no_mpi(err);
    return -2;
}
int dist_batch_wait(dist_comm_t *c, dist_batch_t *b, gs_err_t *err)
{
    (void)c, (void)b;
    return no_mpi(err);
}

#endif
