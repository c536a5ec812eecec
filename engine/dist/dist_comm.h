/* dist_comm.h - a rank's MPI communication: one thread makes every MPI
 * call (Open MPI 4.1 has no asynchronous progress, so large messages move
 * only inside MPI calls; this thread polls them with MPI_Testsome while the
 * compute threads work). It initialises MPI (MPI_THREAD_FUNNELED: only it
 * calls MPI) and finalises it. Other threads hand it requests:
 *   collectives  all-reduce, broadcast, all-to-all of counts and of int32
 *                lists, barrier: the caller waits for the result;
 *   batches      point-to-point exchanges with every peer at once: a send
 *                and a receive buffer per peer, sends posted in the order
 *                given (ring order is the caller's choice), each message
 *                split below MPI's 2^31 count limit; the caller is told as
 *                each peer's receive completes, so it can compute on what
 *                has arrived, and waits for the sends at the end.
 * Failures are fail-stop: MPI errors return with a message, and a rank
 * that dies takes the job down (mpirun kills the others). With a timeout
 * set, a wait for other ranks (an exchange, a collective) that lasts
 * longer ends this rank with one line naming the ranks not heard from,
 * and mpirun the job with it: each collective is preceded by a check-in
 * (every rank tells rank 0 it has come, rank 0 answers), so the rank
 * that never comes is named by rank 0 (or rank 0 by the others); a rank
 * that stops inside the collective itself is named by a roll call on a
 * second communicator, which each waiting rank calls from its own thread
 * (MPI_THREAD_MULTIPLE; without it the line says only what stalled).
 * Without MPI at build time every call fails with "this build has no MPI". */
#ifndef GS_DIST_COMM_H
#define GS_DIST_COMM_H

#include <stdint.h>

#include "base/error.h"

#define DIST_MAX_RANKS 256

typedef struct dist_comm dist_comm_t;

typedef enum { DIST_F32, DIST_F64, DIST_I64 } dist_type_t;
typedef enum { DIST_SUM, DIST_MAX, DIST_MIN } dist_op_t;

/* One exchange with every peer (entries for the own rank are ignored). */
typedef struct {
    void *send[DIST_MAX_RANKS];
    int64_t send_bytes[DIST_MAX_RANKS];
    void *recv[DIST_MAX_RANKS];
    int64_t recv_bytes[DIST_MAX_RANKS];
    int order[DIST_MAX_RANKS]; /* peers in the order their sends are posted */
    int norder;
    int stamps;                /* also send stamp_out[peer] to each peer, received in stamp_in */
    double stamp_out[DIST_MAX_RANKS], stamp_in[DIST_MAX_RANKS];
    /* filled by the communication thread */
    int tag;
    int recv_done[DIST_MAX_RANKS]; /* set when that peer's message is in recv */
    int nrecv_left, nsend_left;
    int send_left[DIST_MAX_RANKS]; /* that peer's send parts not yet complete */
    int taken[DIST_MAX_RANKS];     /* dist_batch_next has returned that peer */
    int failed;
    char msg[256];
} dist_batch_t;

/* Starts the thread and MPI; *rank and *size of MPI_COMM_WORLD. */
int dist_comm_open(dist_comm_t **out, int *rank, int *size, gs_err_t *err);
/* Finalises MPI and joins the thread. */
void dist_comm_close(dist_comm_t *c);
/* Ends the whole job with `code` (MPI_Abort): for a failure on one rank,
 * which would leave the others waiting in a collective. Does not return. */
void dist_comm_abort(dist_comm_t *c, int code);
/* Bounds every later wait for other ranks (0: unbounded; a collective
 * itself waits up to 1.5 times as long, after its check-in). */
void dist_comm_set_timeout(dist_comm_t *c, double seconds);
/* Whether this build has MPI. */
int dist_comm_available(void);
int dist_comm_rank(const dist_comm_t *c);
int dist_comm_size(const dist_comm_t *c);

int dist_allreduce(dist_comm_t *c, void *buf, int64_t count, dist_type_t type, dist_op_t op, gs_err_t *err);
int dist_bcast(dist_comm_t *c, void *buf, int64_t bytes, int root, gs_err_t *err);
/* send_counts[peer] -> recv_counts[peer] (one int64 each). */
int dist_alltoall_counts(dist_comm_t *c, const int64_t *send_counts, int64_t *recv_counts, gs_err_t *err);
int dist_barrier(dist_comm_t *c, gs_err_t *err);

/* Posts b (its buffers must stay valid until dist_batch_wait returns). */
int dist_batch_post(dist_comm_t *c, dist_batch_t *b, gs_err_t *err);
/* The next peer whose message has arrived (waiting for one), or -1 when
 * every receive has been returned. */
int dist_batch_next(dist_comm_t *c, dist_batch_t *b, gs_err_t *err);
/* Waits for every send and receive of b. */
int dist_batch_wait(dist_comm_t *c, dist_batch_t *b, gs_err_t *err);

#endif
