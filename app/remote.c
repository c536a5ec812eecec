/* remote.c - see remote.h. */
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
#include <time.h>
#include <unistd.h>

#include "base/rng.h"

#define MAGIC 0x47535250u                       /* "GSRP" */
#define MAX_PAYLOAD ((uint64_t)64 << 20)        /* a snapshot, or a history of events, with room */
enum { K_HELLO, K_SNAPSHOT, K_COMMAND, K_PENDING, K_EVENTS, K_WINDOW, K_LATEST, K__COUNT };

typedef struct {
    uint32_t magic, kind;
    uint64_t len;
} frame_t;

/* Both ends are one build: the records' layouts, hashed. */
static uint64_t abi(void)
{
    return gs_hash5(1, sizeof(session_snapshot_t), sizeof(prof_event_t), sizeof(prof_window_t), sizeof(epoch_stats_t));
}

static int io_all(int fd, void *p, size_t n, int out)
{
    char *c = p;
    while (n > 0) {
        ssize_t k = out ? send(fd, c, n, MSG_NOSIGNAL) : recv(fd, c, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

static int send_frame(int fd, uint32_t kind, const void *a, size_t na, const void *b, size_t nb)
{
    frame_t f = {MAGIC, kind, (uint64_t)(na + nb)};
    return io_all(fd, &f, sizeof f, 1) || (na && io_all(fd, (void *)a, na, 1)) || (nb && io_all(fd, (void *)b, nb, 1)) ? -1 : 0;
}

/* A frame of the expected kind; *buf (caller frees) holds its payload. */
static int recv_frame(int fd, uint32_t *kind, char **buf, uint64_t *len)
{
    frame_t f;
    *buf = NULL;
    if (io_all(fd, &f, sizeof f, 0) || f.magic != MAGIC || f.kind >= K__COUNT || f.len > MAX_PAYLOAD) return -1;
    *buf = malloc(f.len + 1);
    if (!*buf || (f.len && io_all(fd, *buf, f.len, 0))) {
        free(*buf), *buf = NULL;
        return -1;
    }
    (*buf)[f.len] = '\0';
    *kind = f.kind, *len = f.len;
    return 0;
}

/* ---------------- the server (rank 0) ---------------- */

struct remote_server {
    session_t *s;
    int fd;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    pthread_t thread;
    atomic_int stop, quit, served, connected;
    prof_event_t *events; /* scratch for event replies */
};

static int reply(remote_server_t *srv, int c, uint32_t kind, const char *in, uint64_t n)
{
    session_t *s = srv->s;
    switch (kind) {
    case K_HELLO: {
        uint64_t mine = abi();
        return send_frame(c, kind, &mine, sizeof mine, NULL, 0);
    }
    case K_SNAPSHOT: {
        session_snapshot_t *snap = malloc(sizeof *snap);
        if (!snap) return -1;
        session_snapshot(s, snap);
        int rc = send_frame(c, kind, snap, sizeof *snap, NULL, 0);
        free(snap);
        return rc;
    }
    case K_COMMAND: {
        char text[512];
        int32_t rc = n < 1024 ? session_command(s, in, text, sizeof text) : GS_EINPUT;
        if (n >= 1024) snprintf(text, sizeof text, "command too long");
        if (rc == SESSION_QUIT) atomic_store(&srv->quit, 1);
        return send_frame(c, kind, &rc, sizeof rc, text, strlen(text));
    }
    case K_PENDING: {
        char text[96] = "";
        if (n < 64) session_pending(s, in, text, sizeof text);
        return send_frame(c, kind, text, strlen(text), NULL, 0);
    }
    case K_EVENTS: {
        uint64_t seq = 0;
        if (n != sizeof seq) return -1;
        memcpy(&seq, in, sizeof seq);
        uint32_t k = (uint32_t)prof_history_since(&s->prof, &seq, srv->events, PROF_HISTORY);
        char head[12];
        memcpy(head, &seq, 8), memcpy(head + 8, &k, 4);
        return send_frame(c, kind, head, sizeof head, srv->events, sizeof(prof_event_t) * k);
    }
    case K_WINDOW: {
        prof_window_t w;
        prof_get_window(&s->prof, &w);
        return send_frame(c, kind, &w, sizeof w, NULL, 0);
    }
    case K_LATEST: {
        uint64_t t = prof_latest_ns(&s->prof);
        return send_frame(c, kind, &t, sizeof t, NULL, 0);
    }
    }
    return -1;
}

/* One client, until it leaves (or breaks the protocol) or the server
 * stops; another that connects meanwhile is told the run is taken. */
static void serve_client(remote_server_t *srv, int c)
{
    while (!atomic_load(&srv->stop)) {
        struct pollfd p[2] = {{c, POLLIN, 0}, {srv->fd, POLLIN, 0}};
        int k = poll(p, 2, 200);
        if (k == 0) continue;
        if (k > 0 && (p[1].revents & POLLIN)) {
            int other = accept(srv->fd, NULL, NULL);
            uint64_t busy = 0;
            if (other >= 0) send_frame(other, K_HELLO, &busy, sizeof busy, NULL, 0), close(other);
            if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        }
        uint32_t kind;
        char *buf;
        uint64_t len;
        if (k < 0 || recv_frame(c, &kind, &buf, &len)) break;
        int rc = reply(srv, c, kind, buf, len);
        free(buf);
        if (rc) break;
    }
    close(c);
}

static void *serve_main(void *arg)
{
    remote_server_t *srv = arg;
    while (!atomic_load(&srv->stop)) {
        struct pollfd p = {srv->fd, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0) continue;
        int c = accept(srv->fd, NULL, NULL);
        if (c < 0) continue;
        atomic_store(&srv->served, 1);
        atomic_store(&srv->connected, 1);
        serve_client(srv, c);
        atomic_store(&srv->connected, 0);
    }
    return NULL;
}

static int socket_address(const char *path, struct sockaddr_un *a, gs_err_t *err)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a->sun_path)
        return gs_fail(err, GS_EINPUT, "%s: a socket path may have at most %zu characters", path, sizeof a->sun_path - 1);
    memcpy(a->sun_path, path, strlen(path) + 1);
    return GS_OK;
}

int remote_serve_check(const char *path, gs_err_t *err)
{
    struct sockaddr_un a;
    int rc = socket_address(path, &a, err);
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
    socket_address(path, &a, err);
    unlink(path); /* a dead run's socket, if any */
    remote_server_t *srv = calloc(1, sizeof *srv);
    if (!srv || !(srv->events = malloc(sizeof(prof_event_t) * PROF_HISTORY))) {
        if (srv) free(srv);
        return gs_fail(err, GS_EFAIL, "out of memory");
    }
    srv->s = s;
    snprintf(srv->path, sizeof srv->path, "%s", path);
    srv->fd = socket(AF_UNIX, SOCK_STREAM, 0);
    mode_t old = umask(0177); /* created 0600: the user alone connects */
    rc = srv->fd < 0 || bind(srv->fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(srv->fd, 1) != 0;
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

/* ---------------- the client (the workbench) ---------------- */

struct remote_client {
    int fd, lost;
    char why[320];
    uint64_t seq;             /* the server's events we have */
    prof_event_t *cache;      /* the latest PROF_HISTORY, a ring */
    uint64_t cached;          /* events ever put in the ring */
    session_snapshot_t last;  /* the last snapshot received */
};

/* A request and its reply (freed by the caller); on failure the client is lost. */
static char *ask(remote_client_t *c, uint32_t kind, const void *in, size_t n, uint64_t *len)
{
    if (c->lost) return NULL;
    uint32_t got;
    char *buf = NULL;
    if (send_frame(c->fd, kind, in, n, NULL, 0) || recv_frame(c->fd, &got, &buf, len) || got != kind) {
        free(buf);
        c->lost = 1;
        snprintf(c->why, sizeof c->why, "lost the connection to the run (its rank 0 ended or failed)");
        return NULL;
    }
    return buf;
}

static void c_snapshot(void *self, session_snapshot_t *out)
{
    remote_client_t *c = self;
    uint64_t len;
    char *buf = ask(c, K_SNAPSHOT, NULL, 0, &len);
    if (buf && len == sizeof c->last) memcpy(&c->last, buf, sizeof c->last); /* values only: the snapshot holds no pointers */
    free(buf);
    *out = c->last;
    if (c->lost) { /* what was last known, marked as over */
        out->failed = out->finished = 1;
        snprintf(out->error, sizeof out->error, "%s", c->why);
    }
}

static int c_command(void *self, const char *line, char *reply_text, int n)
{
    remote_client_t *c = self;
    uint64_t len;
    char *buf = ask(c, K_COMMAND, line, strlen(line), &len);
    if (!buf || len < 4) {
        free(buf);
        snprintf(reply_text, (size_t)n, "%s", c->lost ? c->why : "a malformed reply");
        return GS_EFAIL;
    }
    int32_t rc;
    memcpy(&rc, buf, 4);
    snprintf(reply_text, (size_t)n, "%.*s", (int)(len - 4), buf + 4);
    free(buf);
    return rc;
}

static void c_pending(void *self, const char *knob, char *out, size_t n)
{
    uint64_t len;
    char *buf = ask(self, K_PENDING, knob, strlen(knob), &len);
    snprintf(out, n, "%s", buf ? buf : "");
    free(buf);
}

static int c_history(void *self, prof_event_t *out, int max)
{
    remote_client_t *c = self;
    uint64_t len;
    char *buf = ask(c, K_EVENTS, &c->seq, sizeof c->seq, &len);
    if (buf && len >= 12) {
        uint32_t k;
        memcpy(&c->seq, buf, 8), memcpy(&k, buf + 8, 4);
        if (len == 12 + (uint64_t)k * sizeof(prof_event_t) && k <= PROF_HISTORY)
            for (uint32_t i = 0; i < k; i++) memcpy(&c->cache[c->cached++ % PROF_HISTORY], buf + 12 + i * sizeof(prof_event_t), sizeof(prof_event_t));
    }
    free(buf);
    uint64_t n = c->cached < PROF_HISTORY ? c->cached : PROF_HISTORY;
    if ((uint64_t)max < n) n = (uint64_t)max;
    for (uint64_t i = 0; i < n; i++) out[i] = c->cache[(c->cached - n + i) % PROF_HISTORY];
    return (int)n;
}

static void c_window(void *self, prof_window_t *out)
{
    uint64_t len;
    char *buf = ask(self, K_WINDOW, NULL, 0, &len);
    if (buf && len == sizeof *out) memcpy(out, buf, sizeof *out);
    else memset(out, 0, sizeof *out);
    free(buf);
}

static uint64_t c_latest(void *self)
{
    uint64_t len, t = 0;
    char *buf = ask(self, K_LATEST, NULL, 0, &len);
    if (buf && len == sizeof t) memcpy(&t, buf, sizeof t);
    free(buf);
    return t;
}

int remote_connect(remote_client_t **out, const char *path, double wait_s, int (*alive)(void *user), void *user,
                   gs_err_t *err)
{
    struct sockaddr_un a;
    int rc = socket_address(path, &a, err);
    if (rc) return rc;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISSOCK(st.st_mode))
        return gs_fail(err, GS_EINPUT, "%s: not a socket (attach takes the PATH a run was started with --serve PATH)", path);
    remote_client_t *c = calloc(1, sizeof *c);
    if (!c || !(c->cache = malloc(sizeof(prof_event_t) * PROF_HISTORY))) {
        free(c);
        return gs_fail(err, GS_EFAIL, "out of memory");
    }
    c->fd = -1;
    for (double waited = 0;; waited += 0.1) {
        c->fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (c->fd >= 0 && connect(c->fd, (struct sockaddr *)&a, sizeof a) == 0) break;
        int e = errno;
        if (c->fd >= 0) close(c->fd);
        c->fd = -1;
        if (waited >= wait_s || (alive && !alive(user)) || (e != ENOENT && e != ECONNREFUSED)) {
            free(c->cache), free(c);
            return gs_fail(err, GS_EINPUT, "%s: no run serves there (%s)", path, strerror(e));
        }
        struct timespec nap = {0, 100000000};
        nanosleep(&nap, NULL);
    }
    /* the hello is read even when sending it failed: a server that is
     * taken answers at once and hangs up */
    uint64_t mine = abi(), theirs = 1, len;
    uint32_t kind;
    char *buf = NULL;
    send_frame(c->fd, K_HELLO, &mine, sizeof mine, NULL, 0);
    if (recv_frame(c->fd, &kind, &buf, &len) == 0 && kind == K_HELLO && len == sizeof theirs) memcpy(&theirs, buf, sizeof theirs);
    free(buf);
    if (theirs != mine) {
        remote_close(c);
        return gs_fail(err, GS_EINPUT, theirs == 0 ? "%s: another workbench is attached to that run (one at a time)"
                                                   : "%s: the run there is another gnnscope build", path);
    }
    *out = c;
    return GS_OK;
}

session_if_t remote_if(remote_client_t *c) { return (session_if_t){c, c_snapshot, c_command, c_pending, c_history, c_window, c_latest}; }

void remote_close(remote_client_t *c)
{
    if (!c) return;
    if (c->fd >= 0) close(c->fd);
    free(c->cache);
    free(c);
}
