/* dist_comm.c - see dist_comm.h. */
#include "dist_comm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
};

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
        else b->nsend_left++;
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
        b->recv_done[p] = 0, b->taken[p] = p == c->rank;
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
            p->b->nsend_left--;
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
    int provided = 0, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    pthread_mutex_lock(&c->lock);
    if (rc != MPI_SUCCESS) {
        c->failed_init = 1;
        fail_mpi(c->init_msg, sizeof c->init_msg, rc, "Init");
    } else {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
        MPI_Comm_size(MPI_COMM_WORLD, &c->size);
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
    pthread_cond_init(&c->progress, NULL);
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

/* Queues q and waits until the thread has run it. */
static int submit(dist_comm_t *c, req_t *q, gs_err_t *err)
{
    q->next = NULL;
    pthread_mutex_lock(&c->lock);
    if (c->tail) c->tail->next = q;
    else c->head = q;
    c->tail = q;
    pthread_cond_signal(&c->wake);
    while (!q->done) pthread_cond_wait(&c->progress, &c->lock);
    pthread_mutex_unlock(&c->lock);
    return q->rc ? gs_fail(err, q->rc, "%s", q->msg) : GS_OK;
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
    gs_err_t err;
    submit(c, &q, &err);
    exit(code); /* MPI_Abort returned: nothing else can end the job */
}

int dist_allreduce(dist_comm_t *c, void *buf, int64_t count, dist_type_t type, dist_op_t op, gs_err_t *err)
{
    req_t q = {.kind = REQ_ALLREDUCE, .buf = buf, .count = count, .type = type, .op = op};
    return submit(c, &q, err);
}

int dist_bcast(dist_comm_t *c, void *buf, int64_t bytes, int root, gs_err_t *err)
{
    req_t q = {.kind = REQ_BCAST, .buf = buf, .count = bytes, .root = root};
    return submit(c, &q, err);
}

int dist_alltoall_counts(dist_comm_t *c, const int64_t *send_counts, int64_t *recv_counts, gs_err_t *err)
{
    req_t q = {.kind = REQ_ALLTOALL, .in = send_counts, .buf = recv_counts};
    return submit(c, &q, err);
}

int dist_barrier(dist_comm_t *c, gs_err_t *err)
{
    req_t q = {.kind = REQ_BARRIER};
    return submit(c, &q, err);
}

int dist_batch_post(dist_comm_t *c, dist_batch_t *b, gs_err_t *err)
{
    b->failed = 0, b->msg[0] = '\0';
    req_t q = {.kind = REQ_BATCH, .batch = b};
    return submit(c, &q, err);
}

int dist_batch_next(dist_comm_t *c, dist_batch_t *b, gs_err_t *err)
{
    pthread_mutex_lock(&c->lock);
    int peer = -1;
    for (;;) {
        for (int p = 0; p < c->size && peer < 0; p++)
            if (!b->taken[p] && b->recv_done[p] == 1) peer = p;
        int left = 0;
        for (int p = 0; p < c->size; p++) left += !b->taken[p];
        if (peer >= 0 || left == 0 || b->failed) break;
        pthread_cond_wait(&c->progress, &c->lock);
    }
    if (peer >= 0) b->taken[peer] = 1;
    pthread_mutex_unlock(&c->lock);
    if (b->failed) return gs_fail(err, GS_EFAIL, "%s", b->msg), -2;
    return peer;
}

int dist_batch_wait(dist_comm_t *c, dist_batch_t *b, gs_err_t *err)
{
    pthread_mutex_lock(&c->lock);
    while ((b->nrecv_left > 0 || b->nsend_left > 0) && !b->failed) pthread_cond_wait(&c->progress, &c->lock);
    pthread_mutex_unlock(&c->lock);
    return b->failed ? gs_fail(err, GS_EFAIL, "%s", b->msg) : GS_OK;
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
