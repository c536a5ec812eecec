/* dist_engine.h - a rank's execution engine (exec_engine.h): the memory
 * engine over the rank's blocks (its owned rows, the rows it replicates
 * and its mirrors, dep_plan.h), plus the master-mirror exchanges
 * (NeutronStar §4.2-4.3):
 *   forward   before a value is first read by source index at hop h, the
 *             owners send the rows this rank mirrors there; the receives
 *             land in the value's mirror rows directly (each owner's rows
 *             are one contiguous range). With overlap on and a gather
 *             reading it, the gather first sums the edges from rows
 *             computed here, then each owner's edges as its rows arrive;
 *   backward  after that read's backward, the mirror rows' gradients go
 *             back to their owners, which add them to their own rows (in
 *             rank order, so the sums do not depend on arrival order).
 *             With overlap on, the clock sends them once the mirror
 *             chunks' share of the gather's backward is done (NeutronStar
 *             schedules those compute tasks first), and the rest of the
 *             gather computes while they travel.
 * Overlap on also runs the DepCache tasks beside the messages, as
 * NeutronStar's Fig. 8 schedules them: on the clock, a value's forward
 * messages leave once its owned rows are computed, so its replicated rows'
 * share of the level's compute (the plan's rep_level, bounded by the time
 * since the last exchange ended) runs while they travel; in the backward,
 * the replicated rows' share of the level's backward (taken as its forward
 * cost) runs while the gradients travel. The executor itself computes the
 * level's rows in one op each (the same values in any order), so this is
 * the schedule the clock models, not the order the host runs.
 * Send buffers are packed at positions fixed when the routes are built,
 * from the peers' requested row lists, so packing threads never contend.
 * Sends are posted in ring order (rank i sends its j-th chunk to
 * (i+j+1) % m) or, with ring off, to ranks 0..m-1 in turn.
 * Time: on the virtual clock (vclock.h) the rank's ops are charged by the
 * executor (on its node's GPU, or its host CPU); messages are paced
 * through the network model (netmodel.h: staged over PCIe from and to a
 * GPU), each carrying its modeled departure, and a wait for rows not yet
 * in moves the clock to their arrival (a receive stall). A forward
 * message is enqueued by the host's threads before the NIC sends it:
 * lock-free, at precomputed positions, one pass over its bytes by all
 * cores; locked (the baseline NeutronStar 4.3 measures against), row by
 * row under one lock, each a lock handoff (ENQUEUE_LOCK_S, an assumed
 * contended-mutex handoff) plus its copy at one core's share of the
 * host's bandwidth. All ranks' clocks meet at every all-reduce. */
#ifndef GS_DIST_ENGINE_H
#define GS_DIST_ENGINE_H

#include "engine/graph/blocks.h"
#include "engine/exec/exec.h"
#include "engine/machine/vclock.h"
#include "dep_plan.h"
#include "dist_comm.h"
#include "engine/machine/netmodel.h"

/* One hop's routes. */
typedef struct {
    int64_t recv_off[DIST_MAX_RANKS + 1]; /* mirror rows from rank r: [nbase + recv_off[r], nbase + recv_off[r+1]) */
    int32_t *send_rows[DIST_MAX_RANKS];   /* owned rows (local) that rank r mirrors at this hop */
    int64_t nsend[DIST_MAX_RANKS];
    graph_t chunk[DIST_MAX_RANKS + 1];    /* the hop's edges by source: from rank r's mirrors; [nranks]: rows computed here */
} dist_route_t;

/* One span of a rank's epoch, for the timeline and the trace (gathered on
 * rank 0 at the end of each epoch when it asks for them). */
typedef enum { DIST_EV_OP, DIST_EV_SEND, DIST_EV_RECV } dist_ev_kind_t;
typedef struct dist_event_s {
    double t0, t1;        /* seconds on the rank's clock */
    double bytes, flops;
    int16_t rank, peer;   /* peer: the other end of a message, -1 for an op */
    int8_t kind, phase;   /* phase: 0 forward, 1 backward, 2 optimiser */
    int16_t layer, hop;
    char name[16];
} dist_event_t;

typedef struct {
    dist_event_t *ev;
    int64_t n, cap;
    int on;               /* record (rank 0 asked for events this epoch) */
} dist_log_t;

/* Appends e when the log is on (dropped when out of memory: a statistic). */
void dist_log_add(dist_log_t *log, const dist_event_t *e);

/* Counters since the last reset: per hop, direction (0 forward, 1 backward) and peer sent to. */
typedef struct {
    double bytes[DEP_MAX_HOPS + 1][2][DIST_MAX_RANKS];
    double msgs[DEP_MAX_HOPS + 1][2][DIST_MAX_RANKS];
    double stall_s;   /* waiting for rows or gradients not yet in (emulated) */
    double comm_s;    /* exchanges' spans: post to last arrival (emulated) */
    double hidden_s;  /* the part of comm_s spent computing (overlap) */
    double allreduce_s;
    double queue_s;   /* host threads enqueueing forward messages (emulated) */
    double load_s;    /* a GPU rank's gathers waiting for their rows and edges over PCIe (emulated) */
} dist_counters_t;

typedef struct dist_engine {
    kplace_t kp; /* first: the memory engine's ops take the engine as their place */
    dist_comm_t *comm;
    int rank, nranks, nhops;
    const int64_t *bounds;
    dist_route_t route[DEP_MAX_HOPS + 1];
    int ring, overlap, queue_locked;
    int host_cores;  /* the node's host cores (enqueueing threads) */
    nic_t nic;
    vclock_t *clock; /* the rank's emulated clock (shared with its executor), or NULL */
    /* the forward exchange an overlapped gather is waiting for: when its
     * gather's compute may start, and when its messages left */
    int pending_key, pending_hop;
    double pending_t0, pending_sent;
    /* with overlap, the plan's seconds of each level's replicated rows
     * (dep_plan_t.rep_level), computed while that level's exchange travels */
    double rep_s[DEP_MAX_HOPS + 1];
    double sync_t;   /* when the last exchange or all-reduce ended on the clock */
    /* the last backward gather (its sources' gradient key): when it began, its
     * span, its compute (the executor charges it), the mirror chunks' share */
    int bwd_key, bwd_hop;
    double bwd_t0, bwd_span, bwd_compute, bwd_first_s;
    dist_batch_t batch;
    float *buf[DIST_MAX_RANKS];
    size_t buf_cap[DIST_MAX_RANKS];
    dist_counters_t ctr;
    dist_log_t log;  /* this epoch's spans */
} dist_engine_t;

/* Routes for the rank's plan (a collective: every rank calls it): asks
 * each owner for the rows this rank mirrors at each hop. */
int dist_engine_open(dist_engine_t *de, dist_comm_t *comm, int rank, int nranks, const int64_t *bounds,
                     const dep_plan_t *plan, const blockset_t *bs, gs_err_t *err);
void dist_engine_close(dist_engine_t *de);
exec_engine_t dist_engine_exec(dist_engine_t *de);
/* Rows of other ranks' owned data (a collective): want lists global ids,
 * ascending; each owner answers from own (its owned rows, row i being
 * vertex bounds[owner] + i, cols floats each); the rows land in out in
 * the order of want. */
int dist_fetch_rows(dist_comm_t *c, int rank, int nranks, const int64_t *bounds, const int32_t *want, int64_t nwant,
                    const float *own, int64_t cols, float *out, gs_err_t *err);
/* Seconds a node's host threads take to enqueue a forward message of
 * `rows` rows and `bytes` (lock-free or locked, as above). */
double dist_enqueue_s(double rows, double bytes, double host_bw, int cores, int locked);
/* Sums buf over the ranks (count floats, or doubles with f64); on the
 * virtual clock, the clocks meet and the ring all-reduce's time passes. */
int dist_engine_allreduce(dist_engine_t *de, void *buf, int64_t count, int f64, gs_err_t *err);
/* The seconds such an all-reduce of `bytes` takes on the modeled network
 * once the clocks have met: the ring's steps, and the bytes off each
 * rank's GPU and back (what dist_engine_allreduce charges). */
double dist_engine_allreduce_s(const dist_engine_t *de, double bytes);

#endif
