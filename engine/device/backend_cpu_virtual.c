/* backend_cpu_virtual.c - the cpu backend on the virtual clock (--clock
 * virtual, engine/machine/vclock.h): a task runs for real as soon as it is issued,
 * on the issuing thread (issue order is a valid order, see engine/machine/vsim.h),
 * and is logged with its issue time and modeled cost. A sync replays the
 * log on the modeled machine, reports each task's span on the virtual
 * timeline to the hook, adds the counters, and moves the clock to the
 * batch's end. No stream threads and no sleeping: the host's cores all go
 * to the real work, and the timeline is the modeled machine's whatever the
 * host is. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cpu.h"
#include "engine/machine/vclock.h"

/* A chunk gather's bytes: per edge, the source row's f values, its index,
 * id and weight; per row, the accumulator read and written. The host
 * knows the counts: the structure in device memory is not read here. */
static double kernel_bytes_gather(const kernel_call_t *c)
{
    double nnz = (double)c->nnz;
    return nnz * (4.0 * (double)c->f + 4 + 8 + (c->w ? 4 : 0)) + 8.0 * (double)(c->nd * c->f) + 8.0 * (double)c->nd;
}

/* A fused gather's sub-chunk (KERN_CHUNK_FUSED): per edge, the other
 * side's operand rows, its index and weight; per listed row, the own
 * side's operand rows read and its outputs read and written. */
static double kernel_bytes_fused(const kernel_call_t *c)
{
    const fused_args_t *a = &c->fused;
    double f4 = 4.0 * (double)c->f, per_edge = 4.0 + (c->w ? 4 : 0), per_row = 8.0;
    int outs = !c->backward;
    for (int k = 0; k < a->e->nleaf; k++) {
        if (a->own_mask >> k & 1) per_row += f4;
        else per_edge += f4;
        outs += c->backward && a->out[k];
    }
    if (c->backward && a->dy_own) per_row += f4;
    else if (c->backward) per_edge += f4;
    return (double)c->nnz * per_edge + (double)c->nd * (per_row + 2.0 * f4 * outs);
}

/* Bytes a chunk kernel reads and writes (the roofline's memory side). */
static double kernel_bytes(const kernel_call_t *c)
{
    switch (c->id) {
    case KERN_ZERO: return 4.0 * (double)(c->nd * c->out_cols);
    case KERN_ADD: return 12.0 * (double)c->m;
    case KERN_GEMM: return 4.0 * (double)(c->m * c->k + c->k * c->n + c->m * c->n * (c->acc ? 2 : 1));
    case KERN_CHUNK_ATTN: /* a chunk gather that reads each edge's head scales too */
        return kernel_bytes_gather(c) + 4.0 * (double)(c->nnz * c->att_k);
    case KERN_CHUNK_GATHER:
    case KERN_CHUNK_EDGE_GATHER: return kernel_bytes_gather(c);
    case KERN_CHUNK_SCATTER: /* per edge: its input row read, its edge row written (and read when adding), id and index */
        return (double)c->nnz * (4.0 * (double)c->f * (c->acc ? 3 : 2) + 8 + (c->w ? 4 : 0)) + 8.0 * (double)c->nd;
    case KERN_CHUNK_FUSED: return kernel_bytes_fused(c);
    case KERN_EW: /* its input read and its output written; a bias's row read once */
        return 8.0 * (double)(c->ew.rows * c->ew.cols) + 4.0 * (double)(c->ew.b ? c->ew.cols : 0);
    case KERN_MAX_INIT: return 8.0 * (double)(c->nd * c->out_cols);
    case KERN_MAX_FINISH: return 12.0 * (double)(c->nd * c->out_cols);
    case KERN_CHUNK_MAX: /* per edge: the row's values, its input row and id; per row: max and winner read and written */
        return (double)c->nnz * (4.0 * (double)c->f + 8) + 16.0 * (double)(c->nd * c->f) + 8.0 * (double)c->nd;
    case KERN_CHUNK_MAX_BWD: /* per edge: the gradient's and winners' rows; per row: the sum read and written */
        return (double)c->nnz * (8.0 * (double)c->f + 4) + 8.0 * (double)(c->nd * c->f) + 8.0 * (double)c->nd;
    case KERN__COUNT: break;
    }
    return 0;
}

static int grow(struct backend *b)
{
    int cap = b->caplog ? 2 * b->caplog : 4096;
    vs_task_t *l = realloc(b->log, sizeof *l * (size_t)cap);
    if (!l) return -1;
    b->log = l;
    vlog_meta_t *m = realloc(b->meta, sizeof *m * (size_t)cap);
    if (!m) return -1;
    b->meta = m, b->caplog = cap;
    return 0;
}

void virt_issue(struct backend *b, int dev, lane_t lane, const task_t *t)
{
    vclock_t *clk = b->cfg.clock;
    double c0 = clk->ktime == KTIME_MEASURED && t->kind == TASK_KERNEL ? vclock_cpu_s() : 0;
    int runs = (t->kind == TASK_COPY || t->kind == TASK_KERNEL) && !b->cfg.simulate; /* simulated: timed, not run */
    double filter = runs ? cpu_run_task(t) : 0;
    if (b->nlog == b->caplog && grow(b)) { /* no memory to log: the task ran, its time is lost */
        virt_sync(b);
        return;
    }
    vs_task_t *v = &b->log[b->nlog];
    vlog_meta_t *m = &b->meta[b->nlog++];
    *v = (vs_task_t){.stream = dev * LANE__COUNT + (int)lane, .issue = clk->now, .event = t->event};
    *m = (vlog_meta_t){.tag = t->tag};
    switch (t->kind) {
    case TASK_COPY:
        v->kind = VS_COPY, v->bytes = m->bytes = (double)t->bytes, v->path = b->use_links ? t->path : NULL;
        /* the filter reads each row and writes it packed: roofline at the host's bandwidth, which the
         * devices' filters share (NeuGraph §3.3: each gets 1/ndev of it), or as it took */
        if (t->rows)
            v->dur = m->filter_s = clk->ktime == KTIME_MEASURED ? filter : 2.0 * (double)t->bytes * b->cfg.ndev / clk->host_bw;
        break;
    case TASK_KERNEL:
        v->kind = VS_KERNEL, m->flops = t->call.flops;
        v->dur = vclock_kernel_s(clk, t->call.flops, kernel_bytes(&t->call), clk->ktime == KTIME_MEASURED ? vclock_cpu_s() - c0 : 0);
        break;
    case TASK_RECORD: v->kind = VS_RECORD; break;
    case TASK_WAIT: v->kind = VS_WAIT; break;
    }
}

/* Splits the batch [start, end) into time some device computes, time only
 * copies move, and time neither does. */
static void split_time(struct backend *b, double start, double end)
{
    double *iv = malloc(sizeof(double) * 2 * (size_t)b->nlog);
    if (!iv) return;
    int nc = 0, n = 0;
    for (int pass = 0; pass < 2; pass++) /* compute intervals first, then copies */
        for (int i = 0; i < b->nlog; i++) {
            const vs_task_t *v = &b->log[i];
            if (v->kind != (pass ? VS_COPY : VS_KERNEL) || v->t1 <= v->t0) continue;
            iv[2 * n] = v->t0, iv[2 * n + 1] = v->t1, n++;
        }
    for (int i = 0; i < b->nlog; i++) nc += b->log[i].kind == VS_KERNEL && b->log[i].t1 > b->log[i].t0;
    double compute = vsim_union(iv, nc); /* the kernels (the first nc), then everything */
    double both = vsim_union(iv, n);
    free(iv);
    pthread_mutex_lock(&b->st_lock);
    b->st.compute_s += compute, b->st.exposed_s += both - compute, b->st.idle_s += (end - start) - both;
    pthread_mutex_unlock(&b->st_lock);
}

void virt_sync(struct backend *b)
{
    vclock_t *clk = b->cfg.clock;
    if (b->nlog == 0) return;
    double start = clk->now;
    double end = vsim_run(b->use_links ? &b->topo : NULL, b->cfg.copy_bw > 0 ? b->cfg.copy_bw : clk->host_bw, b->log,
                          b->nlog, b->cfg.ndev * LANE__COUNT, b->nev, clk->now, b->link_bytes);
    split_time(b, start, end);
    for (int i = 0; i < b->nlog; i++) {
        const vs_task_t *v = &b->log[i];
        const vlog_meta_t *m = &b->meta[i];
        if (v->kind != VS_COPY && v->kind != VS_KERNEL) continue;
        int dev = v->stream / LANE__COUNT;
        lane_t lane = (lane_t)(v->stream % LANE__COUNT);
        if (b->cfg.on_task) b->cfg.on_task(b->cfg.hook_user, dev, lane, m->tag, v->t0, v->t1, m->bytes);
        pthread_mutex_lock(&b->st_lock);
        b->st.busy_s[dev][lane] += v->t1 - v->t0;
        b->st.bytes[dev][lane] += m->bytes;
        b->st.flops[dev] += m->flops;
        b->st.filter_s[dev] += m->filter_s;
        pthread_mutex_unlock(&b->st_lock);
    }
    if (end > clk->now) clk->now = end;
    b->nlog = 0;
    b->nev = 0; /* every event has been replayed; ids can be reused */
}

void virt_free(struct backend *b)
{
    free(b->log), free(b->meta);
    b->log = NULL, b->meta = NULL, b->nlog = b->caplog = 0;
}
