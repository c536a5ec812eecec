/* check_calls.cu - GNNSCOPE_CUDA_CHECK=1: the streaming backend checks its
 * own work on the GPU, for hunting a device fault (an illegal address)
 * that only a GPU shows. Each H2D transfer is read back once it has landed
 * and compared with its host source (a staged copy that delivered other
 * bytes is named with its chunk), and each chunk gather's offsets and
 * indices are read back before it runs and checked against the device
 * allocations its input and output rows lie in. The first violation is
 * printed on stderr with its numbers and the process aborts.
 * Limits: every checked call synchronises the device and copies its data
 * back, so a checked run is many times slower and its timing is not a
 * real run's (a race between streams may hide under it); allocations are
 * those made through cb_alloc (at most CHECK_MAX_BLOCKS live at once). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.h"

#define CHECK_MAX_BLOCKS 4096

typedef struct {
    uintptr_t at;
    size_t bytes;
} check_block_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static check_block_t blocks[CHECK_MAX_BLOCKS];
static int nblocks;

int cu_check_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("GNNSCOPE_CUDA_CHECK");
        on = v && !strcmp(v, "1");
    }
    return on;
}

void cu_check_alloc(void *p, size_t bytes)
{
    pthread_mutex_lock(&lock);
    if (nblocks < CHECK_MAX_BLOCKS) blocks[nblocks++] = (check_block_t){(uintptr_t)p, bytes};
    pthread_mutex_unlock(&lock);
}

void cu_check_free(void *p)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nblocks; i++)
        if (blocks[i].at == (uintptr_t)p) blocks[i] = blocks[--nblocks];
    pthread_mutex_unlock(&lock);
}

/* Bytes from p to the end of the allocation holding it; -1 outside every one. */
static long long bytes_after(const void *p)
{
    long long left = -1;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nblocks; i++)
        if ((uintptr_t)p >= blocks[i].at && (uintptr_t)p < blocks[i].at + blocks[i].bytes)
            left = (long long)(blocks[i].at + blocks[i].bytes - (uintptr_t)p);
    pthread_mutex_unlock(&lock);
    return left;
}

static void fail(chunk_tag_t tag, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fail(chunk_tag_t tag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "GNNSCOPE_CUDA_CHECK: layer %d phase %d row %d col %d sub %d: ", tag.layer, tag.phase, tag.row, tag.col,
            tag.sub);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static void *read_back(const void *dev, size_t n, chunk_tag_t tag, const char *what)
{
    void *h = malloc(n ? n : 1);
    if (!h) fail(tag, "%s: out of host memory for %zu bytes", what, n);
    cudaError_t rc = cudaDeviceSynchronize();
    if (rc == cudaSuccess) rc = cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost);
    if (rc != cudaSuccess) fail(tag, "%s: reading %zu bytes back at %p: %s", what, n, dev, cudaGetErrorString(rc));
    return h;
}

void cu_check_h2d(const void *dev, const void *host, size_t n, chunk_tag_t tag, const char *what)
{
    unsigned char *h = (unsigned char *)read_back(dev, n, tag, what);
    const unsigned char *want = (const unsigned char *)host;
    for (size_t i = 0; i < n; i++)
        if (h[i] != want[i]) fail(tag, "%s of %zu bytes: byte %zu arrived as %u, the host has %u", what, n, i, h[i], want[i]);
    free(h);
}

void cu_check_h2d_rows(const void *dev, const void *src, const int32_t *rows, int64_t n, size_t row_bytes, chunk_tag_t tag)
{
    char *h = (char *)read_back(dev, row_bytes * (size_t)n, tag, "h2d rows");
    for (int64_t r = 0; r < n; r++)
        if (memcmp(h + (size_t)r * row_bytes, (const char *)src + (size_t)rows[r] * row_bytes, row_bytes))
            fail(tag, "h2d rows: listed row %lld of %lld (host row %d) arrived changed", (long long)r, (long long)n, rows[r]);
    free(h);
}

/* A product's or an add's operands lie inside their allocations. */
static void check_dense(const kernel_call_t *c, chunk_tag_t tag)
{
    const void *p[3] = {c->a, c->b, c->out};
    long long need[3] = {4LL * c->m * c->k, 4LL * c->k * c->n, 4LL * c->m * c->n};
    const char *name[3] = {"gemm a", "gemm b", "gemm out"};
    if (c->id == KERN_ADD) p[0] = c->in, p[1] = NULL, p[2] = c->out, need[0] = need[2] = 4LL * c->m, name[0] = "add in", name[2] = "add out";
    for (int i = 0; i < 3; i++) {
        long long room = p[i] ? bytes_after(p[i]) : need[i];
        if (room < need[i]) fail(tag, "%s: %lld bytes needed, %lld in its allocation (m %lld n %lld k %lld)", name[i], need[i], room,
                                 (long long)c->m, (long long)c->n, (long long)c->k);
    }
}

void cu_check_chunk_call(const kernel_call_t *c, chunk_tag_t tag)
{
    if (c->id == KERN_GEMM || c->id == KERN_ADD) return check_dense(c, tag);
    if ((c->id != KERN_CHUNK_GATHER && c->id != KERN_CHUNK_ATTN) || c->nd * c->f == 0) return;
    int64_t *ptr = (int64_t *)read_back(c->ptr, sizeof(int64_t) * (size_t)(c->nd + 1), tag, "ptr");
    for (int64_t r = 0; r < c->nd; r++)
        if (ptr[r + 1] < ptr[r]) fail(tag, "ptr[%lld] = %lld < ptr[%lld] = %lld", (long long)r + 1, (long long)ptr[r + 1], (long long)r, (long long)ptr[r]);
    if (ptr[0] != 0 || ptr[c->nd] != c->nnz)
        fail(tag, "ptr spans edges %lld..%lld of a sub-chunk of %lld", (long long)ptr[0], (long long)ptr[c->nd], (long long)c->nnz);
    long long lidx_room = bytes_after(c->lidx), in_room = bytes_after(c->in), out_room = bytes_after(c->out);
    if (lidx_room < (long long)(4 * c->nnz)) fail(tag, "lidx: %lld edges, %lld bytes left in its allocation", (long long)c->nnz, lidx_room);
    if (c->att && bytes_after(c->att) < (long long)(4 * c->nnz * c->att_k))
        fail(tag, "att: %lld edges of %lld heads, %lld bytes left in its allocation", (long long)c->nnz, (long long)c->att_k,
             bytes_after(c->att));
    int32_t *lidx = (int32_t *)read_back(c->lidx, sizeof(int32_t) * (size_t)c->nnz, tag, "lidx");
    int32_t *orow = c->orow ? (int32_t *)read_back(c->orow, sizeof(int32_t) * (size_t)c->nd, tag, "orow") : NULL;
    int64_t *eid = c->eid ? (int64_t *)read_back(c->eid, sizeof(int64_t) * (size_t)c->nnz, tag, "eid") : NULL;
    cu_reach_t r = cu_gather_reach(c, ptr, orow, lidx, eid);
    free(ptr), free(lidx), free(orow), free(eid);
    if (r.lowest < 0) fail(tag, "a negative index of in or out (%lld)", (long long)r.lowest);
    if (in_room < r.in_bytes)
        fail(tag, "in: its indices reach %lld bytes (%lld columns a row), its allocation has %lld after in (nd %lld, nnz %lld)", r.in_bytes,
             (long long)c->in_cols, in_room, (long long)c->nd, (long long)c->nnz);
    if (out_room < r.out_bytes)
        fail(tag, "out: its rows reach %lld bytes (%lld columns a row), its allocation has %lld after out", r.out_bytes,
             (long long)c->out_cols, out_room);
    if (c->typed && r.etype_bytes && bytes_after(c->etype) < r.etype_bytes) fail(tag, "etype: its edges reach %lld bytes", r.etype_bytes);
}
