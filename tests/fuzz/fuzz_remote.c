/* fuzz_remote.c - libFuzzer harness for the remote protocol's decoding
 * (app/remote_wire.h, app/remote_check.h), both ends. Byte 0 picks:
 *   0  the server's side: the rest is a byte stream from a client, fed to
 *      the frame reader in pieces whose sizes the input also gives; every
 *      frame is checked as a request;
 *   1  the client's side: the same for a server's replies, each frame
 *      decoded as its kind's reply;
 *   2  a snapshot: the rest (a 4-byte offset, then bytes) overwrites a
 *      valid snapshot there, which is decoded;
 *   3  events: the same over a reply of valid events.
 * Whatever is accepted is used as the workbench uses it (the newest epoch,
 * each link and knob, each option's text, each event's lane), so ASan and
 * UBSan see any field the checks let through out of bounds. */
#include "app/remote_check.h"
#include "app/remote_wire.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static session_snapshot_t base_snap, snap;
static prof_event_t events[PROF_HISTORY];
static char scratch[sizeof(session_snapshot_t) + 16];

/* Uses an accepted snapshot as the workbench does. */
static size_t use_snapshot(const session_snapshot_t *s)
{
    size_t sum = strlen(s->error) + strlen(s->dataset) + strlen(s->model) + strlen(s->topology) + strlen(s->gpu_note);
    if (s->nepochs) sum += (size_t)s->epochs[s->nepochs - 1].epoch;
    for (int l = 0; l < s->nlinks; l++) sum += strlen(s->link_name[l]);
    for (int i = 0; i < s->nknobs; i++) sum += strlen(s->knobs[i].name) + strlen(s->knobs[i].value);
    for (int j = 0; j <= s->parts.shown; j++) sum += (size_t)s->parts.bounds[j];
    int count;
    const opt_t *t = knob_table(&count);
    char text[128];
    for (int i = 0; i < count; i++) opt_format(&t[i], &s->cfg, text, sizeof text), sum += strlen(text);
    return sum;
}

static size_t use_events(const prof_event_t *e, uint32_t k)
{
    size_t sum = 0;
    double busy[PROF_MAX_DEV][PL__COUNT] = {{0}};
    for (uint32_t i = 0; i < k; i++) busy[e[i].device + 1][e[i].lane] += (double)(e[i].t1 - e[i].t0), sum += strlen(e[i].op);
    return sum + (busy[0][0] > 0);
}

static void decode_reply(uint32_t kind, const char *p, uint64_t len)
{
    char why[300], text[512];
    uint64_t u, seq;
    uint32_t k;
    int32_t rc;
    prof_window_t w;
    volatile size_t sink = 0;
    switch (kind) {
    case K_HELLO:
    case K_LATEST: sink += (size_t)(remote_decode_u64(p, len, &u, why, sizeof why) == 0); break;
    case K_SNAPSHOT:
        if (remote_decode_snapshot(p, len, &snap, why, sizeof why) == 0) sink += use_snapshot(&snap);
        break;
    case K_COMMAND: sink += (size_t)(remote_decode_command(p, len, &rc, text, sizeof text, why, sizeof why) == 0); break;
    case K_PENDING: sink += (size_t)(remote_decode_text(p, len, text, sizeof text, why, sizeof why) == 0); break;
    case K_EVENTS:
        if (remote_decode_events(p, len, &seq, events, &k, why, sizeof why) == 0) sink += use_events(events, k);
        break;
    case K_WINDOW: sink += (size_t)(remote_decode_window(p, len, &w, why, sizeof why) == 0); break;
    }
    (void)sink;
}

/* Feeds the stream in pieces of 1 + (a byte's value) bytes. */
static void feed_stream(wire_dir_t dir, const uint8_t *data, size_t size)
{
    wire_rx_t rx;
    char why[200];
    wire_rx_init(&rx, dir);
    size_t at = 0;
    while (at < size) {
        size_t piece = 1 + data[at] % 64, used;
        if (piece > size - at) piece = size - at;
        int st = wire_rx_feed(&rx, data + at, piece, &used, why, sizeof why);
        if (used > piece) abort();
        at += used ? used : piece;
        if (st == WIRE_BAD) break;
        if (st != WIRE_FRAME) continue;
        if (rx.len > wire_max_payload(dir, rx.kind)) abort();
        if (dir == WIRE_REQUEST) (void)remote_check_request(rx.kind, rx.payload, rx.len, why, sizeof why);
        else decode_reply(rx.kind, rx.payload, rx.len);
        wire_rx_next(&rx);
    }
    wire_rx_free(&rx);
}

/* Writes data[4..] at the offset data[0..4) names into a copy of what (n bytes). */
static void overlay(char *out, const void *what, size_t n, const uint8_t *data, size_t size)
{
    memcpy(out, what, n);
    if (size < 4) return;
    uint32_t off;
    memcpy(&off, data, 4);
    off %= (uint32_t)n;
    size_t k = size - 4 < n - off ? size - 4 : n - off;
    memcpy(out + off, data + 4, k);
}

static void init_bases(void)
{
    static int done;
    if (done) return;
    done = 1;
    train_cfg_defaults(&base_snap.cfg);
    base_snap.nepochs = 3, base_snap.nknobs = 2, base_snap.nlinks = 2;
    for (int i = 0; i < 3; i++) base_snap.epochs[i].epoch = i + 1, base_snap.epochs[i].epoch_ms = 1;
    snprintf(base_snap.knobs[0].name, sizeof base_snap.knobs[0].name, "chunks");
    snprintf(base_snap.knobs[1].value, sizeof base_snap.knobs[1].value, "auto");
    snprintf(base_snap.link_name[1], sizeof base_snap.link_name[1], "pcie0");
    base_snap.parts.p = 2, base_snap.parts.shown = 2;
    char why[300];
    if (snapshot_check(&base_snap, why, sizeof why)) abort(); /* the overlays start from a valid snapshot */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init_bases();
    if (size < 1) return 0;
    uint8_t mode = data[0] % 4;
    data++, size--;
    char why[300];
    if (mode == 0 || mode == 1) {
        feed_stream(mode == 0 ? WIRE_REQUEST : WIRE_REPLY, data, size);
    } else if (mode == 2) {
        overlay(scratch, &base_snap, sizeof base_snap, data, size);
        decode_reply(K_SNAPSHOT, scratch, sizeof base_snap);
    } else {
        static char reply[12 + 8 * sizeof(prof_event_t)];
        static prof_event_t good[8];
        uint32_t k = 8;
        for (int i = 0; i < 8; i++) good[i] = (prof_event_t){.t0 = 1, .t1 = 2, .device = (int16_t)(i - 1), .lane = (uint8_t)i, .op = "gemm"};
        memset(reply, 0, 8), memcpy(reply + 8, &k, 4), memcpy(reply + 12, good, sizeof good);
        overlay(scratch, reply, sizeof reply, data, size);
        decode_reply(K_EVENTS, scratch, sizeof reply);
    }
    (void)why;
    return 0;
}
