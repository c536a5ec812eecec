/* remote_wire.h - the frames of the remote protocol (remote.h): a header
 * (magic, kind, payload length) and its payload. A frame is taken by a
 * state machine that checks the header before it allocates anything: each
 * kind has its own largest payload in each direction (a request's is at
 * most a few KiB, a reply's the size of what it carries), so a length
 * prefix of 64 MiB is a broken frame, not an allocation. Frames are
 * written and read against a deadline (and a stop flag), so a peer that
 * stalls mid-frame or stops reading is given up on, never waited on for
 * ever. Limits: one frame in flight per direction; the state machine reads
 * no byte past the frame it is taking. */
#ifndef GS_REMOTE_WIRE_H
#define GS_REMOTE_WIRE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

#include "base/error.h"

enum { K_HELLO, K_SNAPSHOT, K_COMMAND, K_PENDING, K_EVENTS, K_WINDOW, K_LATEST, K__COUNT };
typedef enum { WIRE_REQUEST, WIRE_REPLY } wire_dir_t;
/* wire_rx_feed's outcomes */
enum { WIRE_MORE, WIRE_FRAME, WIRE_BAD };

/* The longest command a request may carry (the session refuses those of
 * 1024 characters or more with a reply; longer ones break the protocol). */
#define WIRE_MAX_COMMAND 4096
#define WIRE_MAX_PENDING_NAME 256

typedef struct {
    wire_dir_t dir;
    unsigned char head[16]; /* magic, kind, length as they arrived */
    size_t have;            /* bytes of the frame taken (header, then payload) */
    uint32_t kind;
    uint64_t len;
    char *payload;          /* len + 1 bytes, NUL-terminated, once the header is in */
} wire_rx_t;

/* Both ends must be one build: the records' layouts, hashed. */
uint64_t wire_abi(void);
/* The largest payload of kind in direction dir. */
uint64_t wire_max_payload(wire_dir_t dir, uint32_t kind);

void wire_rx_init(wire_rx_t *rx, wire_dir_t dir);
/* Bytes the frame in progress still needs (at least 1). */
size_t wire_rx_want(const wire_rx_t *rx);
/* Whether a frame is partly in. */
int wire_rx_started(const wire_rx_t *rx);
/* Takes bytes from data[0..n), *used of them (never past the frame):
 * WIRE_FRAME when a frame is complete (rx->kind, rx->len, rx->payload,
 * until wire_rx_next), WIRE_MORE when it needs more, WIRE_BAD with why
 * when the header breaks the protocol (or its payload cannot be held). */
int wire_rx_feed(wire_rx_t *rx, const void *data, size_t n, size_t *used, char *why, size_t nwhy);
/* Frees the frame taken, ready for the next. */
void wire_rx_next(wire_rx_t *rx);
void wire_rx_free(wire_rx_t *rx);

/* The socket address of path (GS_EINPUT when it is too long for one). */
int wire_address(const char *path, struct sockaddr_un *a, gs_err_t *err);
/* Writes a frame of kind with payload a then b by deadline (gs_mono_s()
 * seconds), giving up when *stop (if given) becomes non-zero. 0, or -1. */
int wire_send(int fd, uint32_t kind, const void *a, size_t na, const void *b, size_t nb, double deadline,
              const atomic_int *stop);
/* Reads one frame into rx by deadline: 0, or -1 with why (the peer
 * closed, did not answer in time, or broke the protocol). */
int wire_recv(int fd, wire_rx_t *rx, double deadline, char *why, size_t nwhy);

#endif
