/* backend_cpu.h - the cpu backend's insides, shared by its files (not a
 * public interface: backend.h is). backend_cpu.c has the ops table, the
 * device arenas and the real work of a task; backend_cpu_wall.c runs the
 * streams as threads in real time (--clock wall); backend_cpu_virtual.c
 * runs each task when it is issued and replays the log on the virtual
 * clock at a sync (--clock virtual, engine/machine/vsim.h). */
#ifndef GS_BACKEND_CPU_H
#define GS_BACKEND_CPU_H

#include <pthread.h>

#include "backend.h"
#include "engine/machine/linkmodel.h"
#include "engine/machine/vsim.h"

typedef enum { TASK_COPY, TASK_KERNEL, TASK_RECORD, TASK_WAIT } task_kind_t;

typedef struct {
    task_kind_t kind;
    void *dst;
    const void *src;
    size_t bytes;
    const int32_t *rows; /* gathered copy: rows of row_bytes each (scattered: into these rows of dst) */
    int scatter;
    size_t row_bytes;
    copy_part_t parts[GS_COPY_MAX_PARTS]; /* packed copy: its arrays (nparts > 0) */
    int nparts;
    chunk_tag_t tag;
    const topo_path_t *path;
    kernel_call_t call;
    int event;
} task_t;

typedef struct {
    struct backend *b;
    int dev;
    lane_t lane;
    pthread_t thread;
    task_t *q;
    int head, count, cap, busy, stop;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pthread_cond_t ev_cv; /* with the backend's ev_lock: signalled when waiting_ev fires */
    int waiting_ev;       /* the event this stream is blocked on, -1 none */
} stream_t;

/* A logged task's own facts beside its simulation record. */
typedef struct {
    chunk_tag_t tag;
    double bytes, flops, filter_s;
} vlog_meta_t;

struct backend {
    backend_cfg_t cfg;
    topology_t topo;
    int use_links;
    lm_t links;                /* wall clock: the online link model */
    pthread_mutex_t mem_lock;
    uint64_t used[TOPO_MAX_DEV];
    stream_t streams[TOPO_MAX_DEV][LANE__COUNT];
    pthread_mutex_t ev_lock;
    uint8_t *ev_done;
    int nev, cap_ev;
    pthread_mutex_t st_lock;
    backend_stats_t st;
    /* virtual clock: the tasks since the last sync */
    vs_task_t *log;
    vlog_meta_t *meta;
    int nlog, caplog;
    double link_bytes[TOPO_MAX_LINKS];
};

/* Does task t's work (a memcpy, a filtered copy, a kernel); returns the
 * seconds the host-side filter took (0 for others). */
double cpu_run_task(const task_t *t);
/* A new event id, or -1 when none can be had. */
int cpu_event_new(struct backend *b);

/* backend_cpu_wall.c */
int wall_start(struct backend *b, gs_err_t *err);
void wall_stop(struct backend *b);
void wall_enqueue(struct backend *b, int dev, lane_t lane, const task_t *t);
void wall_drain(struct backend *b, int dev, lane_t lane);

/* backend_cpu_virtual.c */
void virt_issue(struct backend *b, int dev, lane_t lane, const task_t *t);
void virt_sync(struct backend *b);
void virt_free(struct backend *b);

#endif
