/* staging.cu - one copy lane's staged transfers between pageable host
 * memory and a GPU (backend_cuda.cu): NSTAGE pinned buffers that a copy
 * passes through in pieces of STAGE_BYTES. Each piece has a host side
 * (an H2D's fill of the buffer from its source, or a D2H's drain of the
 * buffer into its destination: host functions split over stage_fill.cu's
 * threads) and a DMA. The lane's stream runs each piece's first half (H2D:
 * the fill; D2H: the DMA) and, for copies of more than one piece, a side
 * stream runs the second half, so the host side of piece k+1 overlaps the
 * DMA of piece k (on one stream they took turns: an H200 moved 16 MiB in
 * ~0.45 ms, then waited ~0.55 ms for the next fill). A copy of one piece
 * stays on the lane's stream: the hand-over between streams costs more
 * than such a copy (a streamed Cora epoch on an H200 took 2x as long when
 * every copy crossed). Waits queued on the lane's stream still come before
 * every piece queued after them; cu_stage_join makes the lane's stream
 * wait for the side stream's pieces before an event is recorded on it.
 * Limits: a buffer's next use waits on the host (stage_take) until its
 * previous piece has finished. */
#include "cuda_common.h"
#include "base/mono_clock.h"

int cu_stage_init(cu_stage_t *s, int to_device)
{
    s->to_device = to_device;
    if (cudaStreamCreateWithFlags(&s->side, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&s->side_done, cudaEventDisableTiming) != cudaSuccess)
        return -1;
    for (int i = 0; i < NSTAGE; i++)
        if (cudaHostAlloc((void **)&s->buf[i], STAGE_BYTES, cudaHostAllocPortable) != cudaSuccess ||
            cudaEventCreateWithFlags(&s->free_ev[i], cudaEventDisableTiming) != cudaSuccess ||
            cudaEventCreateWithFlags(&s->ready_ev[i], cudaEventDisableTiming) != cudaSuccess)
            return -1;
    return 0;
}

void cu_stage_free(cu_stage_t *s)
{
    if (s->side) cudaStreamSynchronize(s->side);
    for (int i = 0; i < NSTAGE; i++) {
        if (s->buf[i]) cudaFreeHost(s->buf[i]);
        if (s->free_ev[i]) cudaEventDestroy(s->free_ev[i]);
        if (s->ready_ev[i]) cudaEventDestroy(s->ready_ev[i]);
    }
    if (s->side_done) cudaEventDestroy(s->side_done);
    if (s->side) cudaStreamDestroy(s->side);
}

/* The host's side of a piece, when its stream reaches it: bytes, or listed
 * rows (their host time added to the job's filter clock). */
static void CUDART_CB host_side(void *p)
{
    cu_stage_job_t *j = (cu_stage_job_t *)p;
    if (!j->fill.rows) {
        cu_fill(&j->fill);
        return;
    }
    double t0 = gs_mono_s();
    cu_fill(&j->fill);
    double t = gs_mono_s() - t0;
    pthread_mutex_lock(j->filter_lock);
    *j->filter_s += t;
    pthread_mutex_unlock(j->filter_lock);
}

/* The next buffer, once its previous piece has finished. */
static int stage_take(cu_stage_t *s, cu_errors_t *e)
{
    int i = s->next;
    s->next = (i + 1) % NSTAGE;
    cu_note(e, cudaEventSynchronize(s->free_ev[i]), "staging");
    return i;
}

void cu_stage_piece(cu_stage_t *s, cudaStream_t lane, cu_errors_t *e, const cu_stage_job_t *job, void *dev_ptr, size_t n,
                    int pipelined, const char *what)
{
    int i = stage_take(s, e);
    cu_stage_job_t *j = &s->job[i];
    *j = *job;
    cudaStream_t second = pipelined ? s->side : lane;
    if (s->to_device) {
        j->fill.dst = s->buf[i];
        cu_note(e, cudaLaunchHostFunc(lane, host_side, j), what);
    } else {
        j->fill.src = s->buf[i];
        cu_note(e, cudaMemcpyAsync(s->buf[i], dev_ptr, n, cudaMemcpyDeviceToHost, lane), what);
    }
    if (pipelined) {
        cu_note(e, cudaEventRecord(s->ready_ev[i], lane), "event");
        cu_note(e, cudaStreamWaitEvent(s->side, s->ready_ev[i], 0), "event wait");
    }
    if (s->to_device) cu_note(e, cudaMemcpyAsync(dev_ptr, s->buf[i], n, cudaMemcpyHostToDevice, second), what);
    else cu_note(e, cudaLaunchHostFunc(second, host_side, j), what);
    cu_note(e, cudaEventRecord(s->free_ev[i], second), "event");
    if (pipelined) cu_note(e, cudaEventRecord(s->side_done, s->side), "event"), s->side_pending = 1;
}

void cu_stage_bytes(cu_stage_t *s, cudaStream_t lane, cu_errors_t *e, const cu_stage_job_t *job, void *dev_ptr, size_t bytes,
                    const char *what)
{
    for (size_t off = 0; off < bytes; off += STAGE_BYTES) {
        cu_stage_job_t piece = *job;
        size_t n = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
        piece.fill.n = n;
        if (s->to_device) piece.fill.src = (const char *)job->fill.src + off;
        else piece.fill.dst = (char *)job->fill.dst + off;
        cu_stage_piece(s, lane, e, &piece, (char *)dev_ptr + off, n, bytes > STAGE_BYTES, what);
    }
}

void cu_stage_join(cu_stage_t *s, cudaStream_t lane, cu_errors_t *e)
{
    if (!s->side_pending) return;
    cu_note(e, cudaStreamWaitEvent(lane, s->side_done, 0), "event wait");
    s->side_pending = 0;
}
