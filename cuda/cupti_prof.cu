/* cupti_prof.cu - CUPTI activity collection for the plugin (docs/ARCHITECTURE.md, "Profiler and views").
 * Records: concurrent kernels, memcpy, memcpy2 (peer), memset, runtime API
 * calls and external correlations. Every piece of work the plugin issues
 * is bracketed by an external correlation id (CUSTOM0) that names its
 * logical device, chunk, op and the sink its spans go to, so each record
 * becomes a span with chunk coordinates. A flusher thread delivers the
 * completed records every 100 ms (live views), and every metrics call
 * flushes first. GPU busy is the union of kernel intervals over a window
 * (the last second, or a caller's interval such as an epoch); PCIe rates
 * come from the memcpy records. Limits: a tag table of 65536 entries, a
 * correlation table of 2^20 entries and the last 65536 kernels and copies
 * for the windows (a window older than that is reported invalid); a
 * record whose tag was overwritten meanwhile is reported untagged.
 * $GNNSCOPE_CUPTI_TRACE=FILE logs each metrics window (trace_window). */
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_common.h"

#define TAGS 65536
#define CORRS (1 << 20)
#define KWIN 65536
#define BUF_BYTES (4u << 20)

typedef struct {
    uint64_t id;
    int dev;
    chunk_tag_t tag;
    char name[24];
    gpu_span_hook_t sink;
    void *user;
} tag_entry_t;

typedef struct {
    uint32_t corr;
    uint64_t ext;
} corr_entry_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int enabled, failed;
static char fail_why[200];
static tag_entry_t tags[TAGS];
static uint64_t next_tag = 1;
static corr_entry_t *corrs;
static gpu_span_hook_t app_hook;
static void *app_user;
static int64_t clock_offset_ns; /* CLOCK_MONOTONIC - CUPTI timestamp */
static __thread int pushed;

/* windowed metrics: recent kernel intervals and copy bytes */
static double kwin[KWIN][2];
static uint64_t kwin_n;
typedef struct {
    double t1, bytes;
    int lane;
} copy_rec_t;
static copy_rec_t cwin[KWIN];
static uint64_t cwin_n;
static uint64_t buffers_done; /* activity buffers CUPTI has handed back */
static uint64_t api_calls;

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double to_s(uint64_t ts) { return (double)((int64_t)ts + clock_offset_ns) * 1e-9; }

void cu_prof_tag(int dev, chunk_tag_t tag, const char *name, gpu_span_hook_t sink, void *user)
{
    if (!enabled) return;
    if (pushed) cu_prof_untag();
    pthread_mutex_lock(&lock);
    uint64_t id = next_tag++;
    tag_entry_t *e = &tags[id % TAGS];
    e->id = id, e->dev = dev, e->tag = tag, e->sink = sink, e->user = user;
    strncpy(e->name, name ? name : "", sizeof e->name - 1);
    e->name[sizeof e->name - 1] = '\0';
    pthread_mutex_unlock(&lock);
    if (cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id) == CUPTI_SUCCESS) pushed = 1;
}

void cu_prof_untag(void)
{
    if (!pushed) return;
    uint64_t last;
    cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
    pushed = 0;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = (uint8_t *)aligned_alloc(8, BUF_BYTES);
    *size = *buffer ? BUF_BYTES : 0;
    *max_records = 0;
}

/* Turns one record into a span for its sink (caller holds lock for the tables). */
static void emit(uint32_t corr, lane_t lane, uint64_t start, uint64_t end, double bytes, const char *kname)
{
    corr_entry_t *c = &corrs[corr % CORRS];
    uint64_t ext = c->corr == corr ? c->ext : 0;
    tag_entry_t *t = ext ? &tags[ext % TAGS] : NULL;
    if (t && t->id != ext) t = NULL;
    gpu_span_t s;
    memset(&s, 0, sizeof s);
    s.dev = t ? t->dev : 0;
    s.lane = lane;
    s.tag = t ? t->tag : (chunk_tag_t){-1, 0, -1, -1, -1};
    s.t0 = to_s(start), s.t1 = to_s(end), s.bytes = bytes;
    snprintf(s.name, sizeof s.name, "%s", t && t->name[0] ? t->name : kname);
    if (lane == LANE_COMPUTE && bytes == 0) {
        kwin[kwin_n % KWIN][0] = s.t0, kwin[kwin_n % KWIN][1] = s.t1;
        kwin_n++;
    } else {
        cwin[cwin_n % KWIN] = (copy_rec_t){s.t1, bytes, (int)lane};
        cwin_n++;
    }
    gpu_span_hook_t sink = t && t->sink ? t->sink : app_hook;
    void *user = t && t->sink ? t->user : app_user;
    if (sink) {
        pthread_mutex_unlock(&lock); /* sinks may take their own locks */
        sink(user, &s);
        pthread_mutex_lock(&lock);
    }
}

static lane_t copy_lane(uint8_t kind)
{
    return kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? LANE_H2D : kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ? LANE_D2H : LANE_D2D;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *r = NULL;
    pthread_mutex_lock(&lock);
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
        switch (r->kind) {
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
            CUpti_ActivityExternalCorrelation *x = (CUpti_ActivityExternalCorrelation *)r;
            corrs[x->correlationId % CORRS] = (corr_entry_t){x->correlationId, x->externalId};
            break;
        }
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
            CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)r;
            emit(k->correlationId, LANE_COMPUTE, k->start, k->end, 0, "kernel");
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            CUpti_ActivityMemcpy6 *m = (CUpti_ActivityMemcpy6 *)r;
            emit(m->correlationId, copy_lane(m->copyKind), m->start, m->end, (double)m->bytes, "memcpy");
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY2: {
            CUpti_ActivityMemcpyPtoP4 *m = (CUpti_ActivityMemcpyPtoP4 *)r;
            emit(m->correlationId, LANE_D2D, m->start, m->end, (double)m->bytes, "peer");
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            CUpti_ActivityMemset4 *m = (CUpti_ActivityMemset4 *)r;
            emit(m->correlationId, LANE_COMPUTE, m->start, m->end, 0, "memset");
            break;
        }
        case CUPTI_ACTIVITY_KIND_RUNTIME: api_calls++; break;
        default: break;
        }
    }
    buffers_done++;
    pthread_mutex_unlock(&lock);
    free(buffer);
}

int cu_prof_enable(char *why, size_t n)
{
    pthread_mutex_lock(&lock);
    if (enabled || failed) {
        int rc = failed ? -1 : 0;
        if (failed) snprintf(why, n, "%s", fail_why);
        pthread_mutex_unlock(&lock);
        return rc;
    }
    corrs = (corr_entry_t *)calloc(CORRS, sizeof *corrs);
    CUptiResult r = corrs ? cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) : CUPTI_ERROR_OUT_OF_MEMORY;
    const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                        CUPTI_ACTIVITY_KIND_MEMCPY2,          CUPTI_ACTIVITY_KIND_MEMSET,
                                        CUPTI_ACTIVITY_KIND_RUNTIME,          CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
    for (size_t i = 0; r == CUPTI_SUCCESS && i < sizeof kinds / sizeof kinds[0]; i++) r = cuptiActivityEnable(kinds[i]);
    if (r != CUPTI_SUCCESS) {
        const char *s = NULL;
        cuptiGetResultString(r, &s);
        snprintf(fail_why, sizeof fail_why, "activity API unavailable (%s)", s ? s : "unknown error");
        snprintf(why, n, "%s", fail_why);
        failed = 1;
        pthread_mutex_unlock(&lock);
        return -1;
    }
    uint64_t ts = 0;
    cuptiGetTimestamp(&ts);
    clock_offset_ns = mono_ns() - (int64_t)ts;
    cuptiActivityFlushPeriod(100);
    enabled = 1;
    pthread_mutex_unlock(&lock);
    return 0;
}

/* CUPTI's periodic flush hands back only full buffers (4 MB: thousands of
 * records), so a live view would see spans seconds late; while an app
 * hook is attached this thread delivers the completed records every 100 ms. */
static pthread_t flusher;
static int flusher_on, flusher_stop;
static pthread_cond_t flusher_cv = PTHREAD_COND_INITIALIZER;

static void *flusher_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!flusher_stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100000000;
        if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&flusher_cv, &lock, &until);
        if (flusher_stop) break;
        pthread_mutex_unlock(&lock); /* the buffer callback takes the lock */
        cuptiActivityFlushAll(0);
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

int cu_prof_start(gpu_span_hook_t hook, void *user, char *why, size_t n)
{
    if (cu_prof_enable(why, n) != 0) return -1;
    pthread_mutex_lock(&lock);
    app_hook = hook, app_user = user;
    if (!flusher_on) flusher_stop = 0, flusher_on = pthread_create(&flusher, NULL, flusher_main, NULL) == 0;
    pthread_mutex_unlock(&lock);
    return 0;
}

int cu_prof_enabled(void)
{
    pthread_mutex_lock(&lock);
    int on = enabled;
    pthread_mutex_unlock(&lock);
    return on;
}

void cu_prof_flush(void)
{
    if (enabled) cuptiActivityFlushAll(0);
}

void cu_prof_stop(void)
{
    pthread_mutex_lock(&lock);
    int joining = flusher_on;
    flusher_stop = 1, flusher_on = 0;
    pthread_cond_signal(&flusher_cv);
    pthread_mutex_unlock(&lock);
    if (joining) pthread_join(flusher, NULL);
    cu_prof_flush();
    pthread_mutex_lock(&lock);
    app_hook = NULL, app_user = NULL;
    pthread_mutex_unlock(&lock);
}

static int cmp_start(const void *a, const void *b)
{
    double x = ((const double *)a)[0], y = ((const double *)b)[0];
    return x < y ? -1 : x > y;
}

/* $GNNSCOPE_CUPTI_TRACE=FILE: one line per metrics call with the window
 * and the newest records, to see why a window comes out empty (records
 * arriving later than the window, or stamped on another clock). */
static void trace_window(double now, int in_window, const gpu_metrics_t *m)
{
    static FILE *f;
    static int opened;
    if (!opened) {
        const char *path = getenv("GNNSCOPE_CUPTI_TRACE");
        f = path && *path ? fopen(path, "a") : NULL;
        opened = 1;
    }
    if (!f) return;
    pthread_mutex_lock(&lock);
    double kend = kwin_n ? kwin[(kwin_n - 1) % KWIN][1] : 0, cend = cwin_n ? cwin[(cwin_n - 1) % KWIN].t1 : 0;
    unsigned long long nk = kwin_n, nc = cwin_n, nb = buffers_done;
    pthread_mutex_unlock(&lock);
    fprintf(f, "wall %.3f window [%.3f, %.3f] kernels %llu (%d in the window, newest ends %.3f) copies %llu (newest ends %.3f) "
               "buffers %llu busy %.3f h2d %.0f B/s\n",
            (double)mono_ns() * 1e-9, now - 1.0, now, nk, in_window, kend, nc, cend, nb, m->busy, m->h2d_Bps);
    fflush(f);
}

/* Busy share and copy rates over [w0, w1] (CLOCK_MONOTONIC seconds) from
 * the records delivered so far; valid only when the rings still hold every
 * record that ended in the window. Returns the kernels counted. */
static int window_metrics(double w0, double w1, gpu_metrics_t *out)
{
    static double iv[KWIN][2];
    int n = 0;
    pthread_mutex_lock(&lock);
    out->window_s = w1 - w0;
    uint64_t first = kwin_n > KWIN ? kwin_n - KWIN : 0;
    int covered = first == 0 || kwin[first % KWIN][1] <= w0;
    for (uint64_t i = first; i < kwin_n; i++) {
        double a = kwin[i % KWIN][0], b = kwin[i % KWIN][1];
        if (b <= w0 || a >= w1) continue;
        iv[n][0] = a < w0 ? w0 : a, iv[n][1] = b > w1 ? w1 : b;
        n++;
    }
    double bytes[LANE__COUNT] = {0};
    first = cwin_n > KWIN ? cwin_n - KWIN : 0;
    covered = covered && (first == 0 || cwin[first % KWIN].t1 <= w0);
    for (uint64_t i = first; i < cwin_n; i++)
        if (cwin[i % KWIN].t1 > w0 && cwin[i % KWIN].t1 <= w1) bytes[cwin[i % KWIN].lane] += cwin[i % KWIN].bytes;
    out->busy_valid = out->pcie_valid = enabled && covered && w1 > w0;
    qsort(iv, (size_t)n, sizeof iv[0], cmp_start); /* iv is shared: under the lock */
    double busy = 0, cur0 = 0, cur1 = -1;
    for (int i = 0; i < n; i++) {
        if (iv[i][0] > cur1) {
            if (cur1 > cur0) busy += cur1 - cur0;
            cur0 = iv[i][0], cur1 = iv[i][1];
        } else if (iv[i][1] > cur1) {
            cur1 = iv[i][1];
        }
    }
    if (cur1 > cur0) busy += cur1 - cur0;
    pthread_mutex_unlock(&lock);
    double w = w1 > w0 ? w1 - w0 : 1;
    out->busy = busy / w;
    out->h2d_Bps = bytes[LANE_H2D] / w, out->d2h_Bps = bytes[LANE_D2H] / w, out->d2d_Bps = bytes[LANE_D2D] / w;
    return n;
}

void cu_prof_metrics(gpu_metrics_t *out)
{
    /* CUPTI's periodic flush hands back only full buffers, so deliver the
     * completed records now; the window still ends a little in the past,
     * for records whose kernels were still running at the flush */
    cu_prof_flush();
    double now = (double)mono_ns() * 1e-9 - 0.2;
    int n = window_metrics(now - 1.0, now, out);
    trace_window(now, n, out);
}

void cu_prof_metrics_between(double t0, double t1, gpu_metrics_t *out)
{
    cu_prof_flush();
    window_metrics(t0, t1, out);
}
