/* remote_server.c - the server side of remote.h: one thread polls the
 * listening socket and every connection, reading without blocking.
 * A connection must send its hello within HELLO_WITHIN_S, complete a frame
 * it has begun within FRAME_WITHIN_S, and, once attached, ask something at
 * least every IDLE_WITHIN_S (a workbench asks ten times a second); one
 * that does not is closed. A reply is written within SEND_WITHIN_S. So a
 * client that stalls, sends half a frame or claims a huge one never keeps
 * another out for longer than those limits, never blocks the run (the
 * engine only publishes snapshots) and never delays shutdown by more than
 * a poll slice. Limits: one attached client; MAX_WAITING connections that
 * have not said hello yet (a new one closes the one waiting longest, so
 * idle connections never lock a workbench out). */
#include "remote.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/mono_clock.h"
#include "remote_check.h"
#include "remote_wire.h"

#define MAX_WAITING 8
#define HELLO_WITHIN_S 5.0
#define FRAME_WITHIN_S 5.0
#define IDLE_WITHIN_S 60.0
#define SEND_WITHIN_S 5.0
#define POLL_MS 100

typedef struct {
    int fd, attached;
    double since;    /* accepted, or its last frame completed */
    double frame_t0; /* when the frame in progress began */
    wire_rx_t rx;
} conn_t;

struct remote_server {
    session_t *s;
    int fd;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    pthread_t thread;
    atomic_int stop, quit, served, connected;
    prof_event_t *events; /* scratch for event replies */
    conn_t conn[1 + MAX_WAITING];
    int nconn;
};

static int send_reply(remote_server_t *srv, int c, uint32_t kind, const void *a, size_t na, const void *b, size_t nb)
{
    return wire_send(c, kind, a, na, b, nb, gs_mono_s() + SEND_WITHIN_S, &srv->stop);
}

/* Answers one checked request of an attached client. */
static int reply(remote_server_t *srv, int c, uint32_t kind, const char *in, uint64_t n)
{
    session_t *s = srv->s;
    switch (kind) {
    case K_HELLO: {
        uint64_t mine = wire_abi();
        return send_reply(srv, c, kind, &mine, sizeof mine, NULL, 0);
    }
    case K_SNAPSHOT: {
        session_snapshot_t *snap = malloc(sizeof *snap);
        if (!snap) return -1;
        session_snapshot(s, snap);
        int rc = send_reply(srv, c, kind, snap, sizeof *snap, NULL, 0);
        free(snap);
        return rc;
    }
    case K_COMMAND: {
        char text[512];
        int32_t rc = session_command(s, in, text, sizeof text);
        if (rc == SESSION_QUIT) atomic_store(&srv->quit, 1);
        return send_reply(srv, c, kind, &rc, sizeof rc, text, strlen(text));
    }
    case K_PENDING: {
        char text[96] = "";
        if (n < 64) session_pending(s, in, text, sizeof text);
        return send_reply(srv, c, kind, text, strlen(text), NULL, 0);
    }
    case K_EVENTS: {
        uint64_t seq;
        memcpy(&seq, in, sizeof seq);
        uint32_t k = (uint32_t)prof_history_since(&s->prof, &seq, srv->events, PROF_HISTORY);
        char head[12];
        memcpy(head, &seq, 8), memcpy(head + 8, &k, 4);
        return send_reply(srv, c, kind, head, sizeof head, srv->events, sizeof(prof_event_t) * k);
    }
    case K_WINDOW: {
        prof_window_t w;
        prof_get_window(&s->prof, &w);
        return send_reply(srv, c, kind, &w, sizeof w, NULL, 0);
    }
    case K_LATEST: {
        uint64_t t = prof_latest_ns(&s->prof);
        return send_reply(srv, c, kind, &t, sizeof t, NULL, 0);
    }
    }
    return -1;
}

static int attached_index(const remote_server_t *srv)
{
    for (int i = 0; i < srv->nconn; i++)
        if (srv->conn[i].attached) return i;
    return -1;
}

/* A complete frame from connection cn: a hello of this build attaches it
 * (one of another build is told this build's hash, one that comes while
 * a client is attached is told the run is taken: either is then closed);
 * anything else must come from the attached client.
 * -1 closes the connection. */
static int take_frame(remote_server_t *srv, conn_t *cn)
{
    char why[160];
    if (remote_check_request(cn->rx.kind, cn->rx.payload, cn->rx.len, why, sizeof why)) return -1;
    if (cn->attached) return reply(srv, cn->fd, cn->rx.kind, cn->rx.payload, cn->rx.len);
    if (cn->rx.kind != K_HELLO) return -1;
    uint64_t theirs, answer = attached_index(srv) < 0 ? wire_abi() : 0; /* 0: another workbench is attached */
    memcpy(&theirs, cn->rx.payload, sizeof theirs);
    if (send_reply(srv, cn->fd, K_HELLO, &answer, sizeof answer, NULL, 0) || !answer || theirs != answer) return -1;
    cn->attached = 1;
    atomic_store(&srv->served, 1);
    atomic_store(&srv->connected, 1);
    return 0;
}

/* Reads what connection cn has sent, answering complete frames. -1 closes it. */
static int take_input(remote_server_t *srv, conn_t *cn)
{
    char buf[4096], why[160];
    size_t want = wire_rx_want(&cn->rx) < sizeof buf ? wire_rx_want(&cn->rx) : sizeof buf;
    ssize_t k = recv(cn->fd, buf, want, MSG_DONTWAIT);
    if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    if (k <= 0) return -1;
    if (!wire_rx_started(&cn->rx)) cn->frame_t0 = gs_mono_s();
    size_t used;
    int st = wire_rx_feed(&cn->rx, buf, (size_t)k, &used, why, sizeof why);
    if (st == WIRE_BAD) return -1;
    if (st == WIRE_MORE) return 0;
    int rc = take_frame(srv, cn);
    wire_rx_next(&cn->rx);
    cn->since = gs_mono_s();
    return rc;
}

static void drop(remote_server_t *srv, int i)
{
    conn_t *cn = &srv->conn[i];
    if (cn->attached) atomic_store(&srv->connected, 0);
    close(cn->fd);
    wire_rx_free(&cn->rx);
    srv->conn[i] = srv->conn[--srv->nconn];
}

/* Whether connection cn has overstayed: no hello, a frame left half-sent, or silence. */
static int overdue(const conn_t *cn, double now)
{
    if (wire_rx_started(&cn->rx) && now - cn->frame_t0 > FRAME_WITHIN_S) return 1;
    return now - cn->since > (cn->attached ? IDLE_WITHIN_S : HELLO_WITHIN_S);
}

static void take_connection(remote_server_t *srv)
{
    int c = accept(srv->fd, NULL, NULL);
    if (c < 0) return;
    if (srv->nconn == 1 + MAX_WAITING) { /* every slot taken: the longest waiting for a hello makes room */
        int oldest = -1;
        for (int i = 0; i < srv->nconn; i++)
            if (!srv->conn[i].attached && (oldest < 0 || srv->conn[i].since < srv->conn[oldest].since)) oldest = i;
        drop(srv, oldest);
    }
    conn_t *cn = &srv->conn[srv->nconn++];
    memset(cn, 0, sizeof *cn);
    cn->fd = c;
    cn->since = gs_mono_s();
    wire_rx_init(&cn->rx, WIRE_REQUEST);
}

static void *serve_main(void *arg)
{
    remote_server_t *srv = arg;
    struct pollfd p[2 + MAX_WAITING];
    while (!atomic_load(&srv->stop)) {
        p[0] = (struct pollfd){srv->fd, POLLIN, 0};
        for (int i = 0; i < srv->nconn; i++) p[1 + i] = (struct pollfd){srv->conn[i].fd, POLLIN, 0};
        int n = srv->nconn;
        if (poll(p, (nfds_t)(1 + n), POLL_MS) < 0 && errno != EINTR) break;
        double now = gs_mono_s();
        for (int i = n - 1; i >= 0; i--) { /* from the end: drop moves the last into i */
            int rc = 0;
            if (p[1 + i].revents & (POLLIN | POLLHUP | POLLERR)) rc = take_input(srv, &srv->conn[i]);
            if (rc || overdue(&srv->conn[i], now)) drop(srv, i);
        }
        if (p[0].revents & POLLIN) take_connection(srv);
    }
    while (srv->nconn) drop(srv, srv->nconn - 1);
    return NULL;
}

int remote_serve_check(const char *path, gs_err_t *err)
{
    struct sockaddr_un a;
    int rc = wire_address(path, &a, err);
    if (rc) return rc;
    struct stat st;
    if (lstat(path, &st) != 0) return GS_OK;
    if (!S_ISSOCK(st.st_mode)) return gs_fail(err, GS_EINPUT, "--serve %s: exists and is not a socket", path);
    int probe = socket(AF_UNIX, SOCK_STREAM, 0);
    int live = probe >= 0 && connect(probe, (struct sockaddr *)&a, sizeof a) == 0;
    if (probe >= 0) close(probe);
    if (live) return gs_fail(err, GS_EINPUT, "--serve %s: another run is serving there", path);
    return GS_OK;
}

int remote_serve(remote_server_t **out, session_t *s, const char *path, gs_err_t *err)
{
    struct sockaddr_un a;
    int rc = remote_serve_check(path, err);
    if (rc) return rc;
    wire_address(path, &a, err);
    unlink(path); /* a dead run's socket, if any */
    remote_server_t *srv = calloc(1, sizeof *srv);
    if (!srv || !(srv->events = malloc(sizeof(prof_event_t) * PROF_HISTORY))) {
        if (srv) free(srv);
        return gs_fail(err, GS_EFAIL, "out of memory");
    }
    srv->s = s;
    snprintf(srv->path, sizeof srv->path, "%s", path);
    srv->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    mode_t old = umask(0177); /* created 0600: the user alone connects */
    rc = srv->fd < 0 || bind(srv->fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(srv->fd, 1 + MAX_WAITING) != 0;
    umask(old);
    if (rc || chmod(path, 0600) != 0 || pthread_create(&srv->thread, NULL, serve_main, srv) != 0) {
        int e = errno;
        if (srv->fd >= 0) close(srv->fd);
        free(srv->events), free(srv);
        return gs_fail(err, GS_EINPUT, "--serve %s: cannot serve there (%s)", path, strerror(e));
    }
    *out = srv;
    return GS_OK;
}

int remote_quit_requested(const remote_server_t *srv) { return atomic_load(&srv->quit); }

void remote_clients(const remote_server_t *srv, int *served, int *connected)
{
    *served = atomic_load(&srv->served);
    *connected = atomic_load(&srv->connected);
}

void remote_stop(remote_server_t *srv)
{
    if (!srv) return;
    atomic_store(&srv->stop, 1);
    pthread_join(srv->thread, NULL);
    close(srv->fd);
    unlink(srv->path);
    free(srv->events);
    free(srv);
}
