/* remote_client.c - the client side of remote.h (the workbench on a run
 * in another process). Every reply is read against a deadline
 * (REPLY_WITHIN_S) and checked (remote_check.h) before anything in it is
 * used. A run that stops answering, or whose connection closes, is lost:
 * the snapshot shows what was last known, marked as failed and finished.
 * A reply that breaks the protocol makes the client broken: the snapshot
 * shows nothing from that run, only the reason, and the caller exits 2.
 * The first snapshot is fetched and checked while connecting, so a run
 * that sends malformed ones is refused before the screen is taken. */
#include "remote.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/mono_clock.h"
#include "remote_check.h"
#include "remote_wire.h"

#define REPLY_WITHIN_S 10.0

struct remote_client {
    int fd, lost, broken;
    char path[108];
    char why[400];
    uint64_t seq;             /* the server's events we have */
    prof_event_t *cache;      /* the latest PROF_HISTORY, a ring */
    prof_event_t *scratch;    /* a reply's events, checked before they join the ring */
    uint64_t cached;          /* events ever put in the ring */
    session_snapshot_t last;  /* the last snapshot received */
    wire_rx_t rx;
};

static void lose(remote_client_t *c, const char *what)
{
    if (c->lost) return;
    c->lost = 1;
    snprintf(c->why, sizeof c->why, "%s: lost the connection to the run (%s; its rank 0 ended or failed)", c->path, what);
}

static void broke(remote_client_t *c, const char *what)
{
    if (c->lost) return;
    c->lost = c->broken = 1;
    snprintf(c->why, sizeof c->why, "%s: the run broke the protocol: %s", c->path, what);
}

/* A request and its reply (in c->rx until the next ask); NULL when the
 * client is lost (or becomes so now). */
static const char *ask(remote_client_t *c, uint32_t kind, const void *in, size_t n, uint64_t *len)
{
    if (c->lost) return NULL;
    wire_rx_next(&c->rx);
    char why[200];
    double deadline = gs_mono_s() + REPLY_WITHIN_S;
    if (wire_send(c->fd, kind, in, n, NULL, 0, deadline, NULL)) return lose(c, "a request could not be sent"), NULL;
    if (wire_recv(c->fd, &c->rx, deadline, why, sizeof why)) {
        char what[240];
        snprintf(what, sizeof what, "a reply cut short or malformed: %s", why);
        if (wire_rx_started(&c->rx)) broke(c, what); /* a frame begun and not finished, or a header out of bounds */
        else lose(c, why);
        return NULL;
    }
    if (c->rx.kind != kind) {
        snprintf(why, sizeof why, "a reply of kind %u to a request of kind %u", c->rx.kind, kind);
        return broke(c, why), NULL;
    }
    *len = c->rx.len;
    return c->rx.payload;
}

static void c_snapshot(void *self, session_snapshot_t *out)
{
    remote_client_t *c = self;
    uint64_t len;
    const char *p = ask(c, K_SNAPSHOT, NULL, 0, &len);
    char why[300];
    if (p && remote_decode_snapshot(p, len, out, why, sizeof why) == 0) c->last = *out;
    else if (p) broke(c, why);
    *out = c->last;
    if (c->broken) memset(out, 0, sizeof *out); /* nothing from a run that breaks the protocol */
    if (c->lost) { /* what was last known, marked as over */
        out->failed = out->finished = 1;
        snprintf(out->error, sizeof out->error, "%s", c->why);
    }
}

static int c_command(void *self, const char *line, char *reply_text, int n)
{
    remote_client_t *c = self;
    uint64_t len;
    int32_t rc = GS_EFAIL;
    char why[200];
    const char *p = ask(c, K_COMMAND, line, strlen(line), &len);
    if (p && remote_decode_command(p, len, &rc, reply_text, (size_t)n, why, sizeof why)) broke(c, why);
    if (c->lost) {
        snprintf(reply_text, (size_t)n, "%s", c->why);
        return GS_EFAIL;
    }
    return rc;
}

static void c_pending(void *self, const char *knob, char *out, size_t n)
{
    remote_client_t *c = self;
    uint64_t len;
    char why[200];
    const char *p = ask(c, K_PENDING, knob, strlen(knob), &len);
    out[0] = '\0';
    if (p && remote_decode_text(p, len, out, n, why, sizeof why)) broke(c, why), out[0] = '\0';
}

static int c_history(void *self, prof_event_t *out, int max)
{
    remote_client_t *c = self;
    uint64_t len, seq;
    uint32_t k;
    char why[200];
    const char *p = ask(c, K_EVENTS, &c->seq, sizeof c->seq, &len);
    if (p && remote_decode_events(p, len, &seq, c->scratch, &k, why, sizeof why)) broke(c, why);
    else if (p) {
        c->seq = seq;
        for (uint32_t i = 0; i < k; i++) c->cache[c->cached++ % PROF_HISTORY] = c->scratch[i];
    }
    if (c->broken) return 0;
    uint64_t n = c->cached < PROF_HISTORY ? c->cached : PROF_HISTORY;
    if ((uint64_t)max < n) n = (uint64_t)max;
    for (uint64_t i = 0; i < n; i++) out[i] = c->cache[(c->cached - n + i) % PROF_HISTORY];
    return (int)n;
}

static void c_window(void *self, prof_window_t *out)
{
    remote_client_t *c = self;
    uint64_t len;
    char why[200];
    const char *p = ask(c, K_WINDOW, NULL, 0, &len);
    if (!p || remote_decode_window(p, len, out, why, sizeof why)) {
        if (p) broke(c, why);
        memset(out, 0, sizeof *out);
    }
}

static uint64_t c_latest(void *self)
{
    remote_client_t *c = self;
    uint64_t len, t = 0;
    char why[200];
    const char *p = ask(c, K_LATEST, NULL, 0, &len);
    if (p && remote_decode_u64(p, len, &t, why, sizeof why)) broke(c, why), t = 0;
    return t;
}

/* Connects to path, retrying while nothing serves there yet. */
static int connect_socket(remote_client_t *c, const struct sockaddr_un *a, double wait_s, int (*alive)(void *user),
                          void *user, gs_err_t *err)
{
    for (double waited = 0;; waited += 0.1) {
        c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (c->fd >= 0 && connect(c->fd, (const struct sockaddr *)a, sizeof *a) == 0) return GS_OK;
        int e = errno;
        if (c->fd >= 0) close(c->fd);
        c->fd = -1;
        if (waited >= wait_s || (alive && !alive(user)) || (e != ENOENT && e != ECONNREFUSED))
            return gs_fail(err, GS_EINPUT, "%s: no run serves there (%s)", c->path, strerror(e));
        struct timespec nap = {0, 100000000};
        nanosleep(&nap, NULL);
    }
}

/* The hello (same build? taken?) and the first snapshot, checked. */
static int greet(remote_client_t *c, gs_err_t *err)
{
    uint64_t mine = wire_abi(), theirs = 1;
    char why[200];
    /* the answer is read even when sending failed: a server that is taken answers at once and hangs up */
    wire_send(c->fd, K_HELLO, &mine, sizeof mine, NULL, 0, gs_mono_s() + REPLY_WITHIN_S, NULL);
    if (wire_recv(c->fd, &c->rx, gs_mono_s() + REPLY_WITHIN_S, why, sizeof why))
        return gs_fail(err, GS_EINPUT, "%s: the run did not say hello (%s)", c->path, why);
    if (c->rx.kind != K_HELLO || remote_decode_u64(c->rx.payload, c->rx.len, &theirs, why, sizeof why))
        return gs_fail(err, GS_EINPUT, "%s: the run's hello is malformed", c->path);
    if (theirs != mine)
        return gs_fail(err, GS_EINPUT, theirs == 0 ? "%s: another workbench is attached to that run (one at a time)"
                                                   : "%s: the run there is another gnnscope build", c->path);
    session_snapshot_t *first = malloc(sizeof *first);
    if (!first) return gs_fail(err, GS_EFAIL, "out of memory");
    c_snapshot(c, first);
    free(first);
    return c->lost ? gs_fail(err, GS_EINPUT, "%s", c->why) : GS_OK;
}

int remote_connect(remote_client_t **out, const char *path, double wait_s, int (*alive)(void *user), void *user,
                   gs_err_t *err)
{
    struct sockaddr_un a;
    int rc = wire_address(path, &a, err);
    if (rc) return rc;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISSOCK(st.st_mode))
        return gs_fail(err, GS_EINPUT, "%s: not a socket (attach takes the PATH a run was started with --serve PATH)", path);
    remote_client_t *c = calloc(1, sizeof *c);
    if (!c || !(c->cache = malloc(sizeof(prof_event_t) * PROF_HISTORY)) ||
        !(c->scratch = malloc(sizeof(prof_event_t) * PROF_HISTORY))) {
        if (c) free(c->cache);
        free(c);
        return gs_fail(err, GS_EFAIL, "out of memory");
    }
    c->fd = -1;
    snprintf(c->path, sizeof c->path, "%s", path);
    wire_rx_init(&c->rx, WIRE_REPLY);
    if ((rc = connect_socket(c, &a, wait_s, alive, user, err)) || (rc = greet(c, err))) {
        remote_close(c);
        return rc;
    }
    *out = c;
    return GS_OK;
}

int remote_broken(const remote_client_t *c) { return c->broken; }

session_if_t remote_if(remote_client_t *c) { return (session_if_t){c, c_snapshot, c_command, c_pending, c_history, c_window, c_latest}; }

void remote_close(remote_client_t *c)
{
    if (!c) return;
    if (c->fd >= 0) close(c->fd);
    wire_rx_free(&c->rx);
    free(c->cache), free(c->scratch);
    free(c);
}
