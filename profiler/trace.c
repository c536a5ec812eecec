/* trace.c - see trace.h. */
#include "trace.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "base/atomic_file.h"

const char *prof_lane_name(prof_lane_t l)
{
    static const char *n[PL__COUNT] = {"H2D", "D2H", "D2D", "COMPUTE", "HOSTFILTER", "NETSEND", "NETRECV", "SAMPLE", "REINDEX", "LOOKUP"};
    return l < PL__COUNT ? n[l] : "?";
}

const char *prof_phase_name(prof_phase_t p)
{
    static const char *n[PH__COUNT] = {"FWD", "BWD", "OPT", "LOAD", "SAMPLE"};
    return p < PH__COUNT ? n[p] : "?";
}

/* Writes to the part, counting its bytes (the cap's measure). */
static void emit(trace_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(trace_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vfprintf(t->f, fmt, ap);
    va_end(ap);
    if (k > 0) t->bytes += (uint64_t)k;
}

/* Begins a part: a temporary file for t->path, the JSON's head, the host named. */
static int begin_part(trace_t *t, gs_err_t *err)
{
    t->f = atomic_fopen(t->path, t->tmp, sizeof t->tmp, err);
    if (!t->f) return err->code;
    memset(t->named, 0, sizeof t->named), memset(t->pid_named, 0, sizeof t->pid_named);
    t->events = 0, t->bytes = 0;
    emit(t, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    emit(t, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"host\"}}");
    t->pid_named[0] = 1;
    return GS_OK;
}

/* Ends the part being written, into path. */
static int end_part(trace_t *t, const char *path, gs_err_t *err)
{
    emit(t, "\n]}\n");
    int rc = atomic_fclose(t->f, t->tmp, path, err);
    t->f = NULL;
    return rc;
}

int trace_open(trace_t *t, const char *path, uint64_t t_base, uint64_t max_bytes, gs_err_t *err)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    t->t_base = t_base;
    t->max_bytes = max_bytes;
    return begin_part(t, err);
}

/* At half the cap: the part becomes PATH.1 and a new one begins. */
static void rotate_if_full(trace_t *t)
{
    if (!t->max_bytes || t->bytes < t->max_bytes / 2) return;
    char older[4200];
    snprintf(older, sizeof older, "%s.1", t->path);
    uint64_t events = t->events;
    if (atomic_target_ok(older, &t->failed) || end_part(t, older, &t->failed) || begin_part(t, &t->failed)) {
        if (t->f) fclose(t->f), unlink(t->tmp), t->f = NULL;
        t->broken = 1;
        return;
    }
    t->dropped += t->kept, t->kept = events, t->rotations++;
}

/* A process per device (or per rank of a distributed run: rank >= 0). */
static void name_pid(trace_t *t, int pid, int rank)
{
    if (t->pid_named[pid]) return;
    t->pid_named[pid] = 1;
    emit(t, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"%s %d\"}}", pid,
            rank >= 0 ? "rank" : "device", pid - 1);
    emit(t, ",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}}", pid, pid);
}

void trace_span(trace_t *t, const prof_event_t *e)
{
    int pid = e->device + 1;
    if (!t->f || pid < 0 || pid >= TRACE_MAX_PID || e->lane >= PL__COUNT) return;
    name_pid(t, pid, e->rank);
    if (!t->named[pid][e->lane]) {
        t->named[pid][e->lane] = 1;
        emit(t, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}", pid,
                e->lane, prof_lane_name((prof_lane_t)e->lane));
    }
    double ts = (double)(e->t0 - t->t_base) / 1e3, dur = (double)(e->t1 - e->t0) / 1e3;
    emit(t,
            ",\n{\"name\":\"%.16s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%d,"
            "\"args\":{\"layer\":%d,\"phase\":\"%s\",\"row\":%d,\"col\":%d,\"sub\":%d,\"bytes\":%.0f,\"flops\":%.0f}}",
            e->op, prof_phase_name((prof_phase_t)e->phase), ts, dur, pid, e->lane, e->layer,
            prof_phase_name((prof_phase_t)e->phase), e->row, e->col, e->sub, e->bytes, e->flops);
    t->events++;
    rotate_if_full(t);
}

void trace_counter(trace_t *t, const char *name, int pid, uint64_t ts_ns, double value)
{
    if (!t->f || pid < 0 || pid >= TRACE_MAX_PID) return;
    name_pid(t, pid, -1);
    emit(t, ",\n{\"name\":\"%s\",\"ph\":\"C\",\"ts\":%.3f,\"pid\":%d,\"args\":{\"value\":%.6g}}", name,
            (double)(ts_ns - t->t_base) / 1e3, pid, value);
    t->events++;
    rotate_if_full(t);
}

void trace_instant(trace_t *t, const char *name, uint64_t ts_ns)
{
    if (!t->f) return;
    emit(t, ",\n{\"name\":\"%s\",\"ph\":\"i\",\"s\":\"g\",\"ts\":%.3f,\"pid\":0}", name, (double)(ts_ns - t->t_base) / 1e3);
    t->events++;
    rotate_if_full(t);
}

int trace_close(trace_t *t, gs_err_t *err)
{
    if (t->broken) return gs_fail(err, t->failed.code, "trace %s: rotating it failed: %s", t->path, t->failed.msg);
    if (!t->f) return GS_OK;
    return end_part(t, t->path, err);
}

void trace_summary(const trace_t *t, char *out, size_t n)
{
    if (!t->rotations) {
        snprintf(out, n, "%s", t->path);
        return;
    }
    snprintf(out, n, "%s (its newest %llu events; the %llu before them in %s.1; %llu older ones dropped to stay under --trace-max)",
             t->path, (unsigned long long)t->events, (unsigned long long)t->kept, t->path, (unsigned long long)t->dropped);
}
