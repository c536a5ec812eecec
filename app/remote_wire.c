/* remote_wire.c - see remote_wire.h. */
#include "remote_wire.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/mono_clock.h"
#include "base/rng.h"
#include "snapshot.h"

#define MAGIC 0x47535250u /* "GSRP" */
#define HEAD_BYTES 16
#define POLL_SLICE_MS 100 /* how often a wait looks at the stop flag */

uint64_t wire_abi(void)
{
    return gs_hash5(2, sizeof(session_snapshot_t), sizeof(prof_event_t), sizeof(prof_window_t), sizeof(epoch_stats_t));
}

uint64_t wire_max_payload(wire_dir_t dir, uint32_t kind)
{
    switch (kind) {
    case K_HELLO: return sizeof(uint64_t);
    case K_SNAPSHOT: return dir == WIRE_REQUEST ? 0 : sizeof(session_snapshot_t);
    case K_COMMAND: return dir == WIRE_REQUEST ? WIRE_MAX_COMMAND : sizeof(int32_t) + 512;
    case K_PENDING: return dir == WIRE_REQUEST ? WIRE_MAX_PENDING_NAME : 96;
    case K_EVENTS: return dir == WIRE_REQUEST ? sizeof(uint64_t) : 12 + (uint64_t)PROF_HISTORY * sizeof(prof_event_t);
    case K_WINDOW: return dir == WIRE_REQUEST ? 0 : sizeof(prof_window_t);
    case K_LATEST: return dir == WIRE_REQUEST ? 0 : sizeof(uint64_t);
    }
    return 0;
}

void wire_rx_init(wire_rx_t *rx, wire_dir_t dir)
{
    memset(rx, 0, sizeof *rx);
    rx->dir = dir;
}

size_t wire_rx_want(const wire_rx_t *rx)
{
    if (rx->have < HEAD_BYTES) return HEAD_BYTES - rx->have;
    uint64_t left = HEAD_BYTES + rx->len - rx->have;
    return left ? (size_t)left : 1;
}

int wire_rx_started(const wire_rx_t *rx) { return rx->have > 0; }

/* Checks the header just completed and allocates its payload. */
static int take_head(wire_rx_t *rx, char *why, size_t nwhy)
{
    uint32_t magic;
    memcpy(&magic, rx->head, 4), memcpy(&rx->kind, rx->head + 4, 4), memcpy(&rx->len, rx->head + 8, 8);
    if (magic != MAGIC) return snprintf(why, nwhy, "not a gnnscope frame (magic %08x)", magic), WIRE_BAD;
    if (rx->kind >= K__COUNT) return snprintf(why, nwhy, "an unknown frame kind %u", rx->kind), WIRE_BAD;
    uint64_t max = wire_max_payload(rx->dir, rx->kind);
    if (rx->len > max)
        return snprintf(why, nwhy, "a frame of kind %u claims %llu bytes (at most %llu)", rx->kind, (unsigned long long)rx->len,
                        (unsigned long long)max),
               WIRE_BAD;
    rx->payload = malloc(rx->len + 1);
    if (!rx->payload) return snprintf(why, nwhy, "out of memory for a frame of %llu bytes", (unsigned long long)rx->len), WIRE_BAD;
    rx->payload[rx->len] = '\0';
    return WIRE_MORE;
}

int wire_rx_feed(wire_rx_t *rx, const void *data, size_t n, size_t *used, char *why, size_t nwhy)
{
    const unsigned char *in = data;
    *used = 0;
    if (rx->have < HEAD_BYTES) {
        size_t k = HEAD_BYTES - rx->have < n ? HEAD_BYTES - rx->have : n;
        memcpy(rx->head + rx->have, in, k);
        rx->have += k, *used += k;
        if (rx->have < HEAD_BYTES) return WIRE_MORE;
        if (take_head(rx, why, nwhy) == WIRE_BAD) return WIRE_BAD;
    }
    uint64_t at = rx->have - HEAD_BYTES, left = rx->len - at;
    size_t k = (size_t)(left < n - *used ? left : n - *used);
    memcpy(rx->payload + at, in + *used, k);
    rx->have += k, *used += k;
    return rx->have == HEAD_BYTES + rx->len ? WIRE_FRAME : WIRE_MORE;
}

void wire_rx_next(wire_rx_t *rx)
{
    free(rx->payload);
    wire_rx_init(rx, rx->dir);
}

void wire_rx_free(wire_rx_t *rx) { wire_rx_next(rx); }

/* Waits for fd to be ready for events by deadline, looking at *stop each
 * slice: 0 when ready, -1 when the time is up or stop is set. */
static int wait_ready(int fd, short events, double deadline, const atomic_int *stop)
{
    for (;;) {
        if (stop && atomic_load(stop)) return -1;
        double left = deadline - gs_mono_s();
        if (left <= 0) return -1;
        int ms = left * 1e3 < POLL_SLICE_MS ? (int)(left * 1e3) + 1 : POLL_SLICE_MS;
        struct pollfd p = {fd, events, 0};
        int k = poll(&p, 1, ms);
        if (k < 0 && errno != EINTR) return -1;
        if (k > 0) return 0;
    }
}

static int send_all(int fd, const void *p, size_t n, double deadline, const atomic_int *stop)
{
    const char *c = p;
    while (n > 0) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_ready(fd, POLLOUT, deadline, stop)) return -1;
            continue;
        }
        if (k <= 0) return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

int wire_send(int fd, uint32_t kind, const void *a, size_t na, const void *b, size_t nb, double deadline,
              const atomic_int *stop)
{
    unsigned char head[HEAD_BYTES];
    uint32_t magic = MAGIC;
    uint64_t len = (uint64_t)(na + nb);
    memcpy(head, &magic, 4), memcpy(head + 4, &kind, 4), memcpy(head + 8, &len, 8);
    if (send_all(fd, head, sizeof head, deadline, stop)) return -1;
    if (na && send_all(fd, a, na, deadline, stop)) return -1;
    if (nb && send_all(fd, b, nb, deadline, stop)) return -1;
    return 0;
}

int wire_recv(int fd, wire_rx_t *rx, double deadline, char *why, size_t nwhy)
{
    char buf[1 << 16];
    for (;;) {
        if (wait_ready(fd, POLLIN, deadline, NULL)) return snprintf(why, nwhy, "no answer in time"), -1;
        size_t want = wire_rx_want(rx) < sizeof buf ? wire_rx_want(rx) : sizeof buf;
        ssize_t k = recv(fd, buf, want, MSG_DONTWAIT);
        if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (k <= 0) return snprintf(why, nwhy, "the connection closed"), -1;
        size_t used;
        int st = wire_rx_feed(rx, buf, (size_t)k, &used, why, nwhy);
        if (st == WIRE_BAD) return -1;
        if (st == WIRE_FRAME) return 0;
    }
}

int wire_address(const char *path, struct sockaddr_un *a, gs_err_t *err)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a->sun_path)
        return gs_fail(err, GS_EINPUT, "%s: a socket path may have at most %zu characters", path, sizeof a->sun_path - 1);
    memcpy(a->sun_path, path, strlen(path) + 1);
    return GS_OK;
}
