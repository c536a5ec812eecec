/* gpu_util.h - what the GPU tests (tests/gpu/test_gpu_*.c) share: the
 * plugin and its kernel table, opened once per binary (exit 77, "skipped",
 * when no GPU answers); a power-law fixture graph with hubs wider than one
 * work item, on the host and mirrored; random inputs, uploads, NaN
 * poisoning of outputs, comparison against the CPU reference; and 5-epoch
 * loss runs on the cpu and cuda backends. The same binaries run on a GPU
 * (make test-gpu) and on the CPU test double of the CUDA runtime (make
 * test-cuda-cpu), so sizes are kept small enough for sanitizers. */
#ifndef GS_TEST_GPU_UTIL_H
#define GS_TEST_GPU_UTIL_H

#include "tests/unit/test_util.h"

#include <math.h>

#include "engine/device/cuda_plugin.h"
#include "engine/program/op_table.h"
#include "engine/train/train.h"

#define GPU_UNUSED __attribute__((unused))
static const gs_cuda_t *cu GPU_UNUSED;
static const kops_t *K GPU_UNUSED;
static kops_ctx_t *CX GPU_UNUSED; /* K's context */
static tu_gen_t gen GPU_UNUSED;
static dataset_t ds GPU_UNUSED;
static graph_t hg GPU_UNUSED, dg GPU_UNUSED; /* the fixture graph on the host and mirrored */

/* Opens the plugin and a kernel context; exits 77 when no GPU answers. */
static inline void gpu_open_or_skip(void)
{
    gs_err_t err;
    if (!(cu = gs_cuda_get(&err))) {
        printf("skipped: %s\n", err.msg);
        exit(77);
    }
    K = cu->kops;
    if (!(CX = K->open(&err))) {
        printf("GPU context: %s\n", err.msg);
        exit(1);
    }
}

/* The context of table k: the GPU's, or the host's (none). */
static inline kops_ctx_t *kcx(const kops_t *k) { return k == K ? CX : NULL; }

static inline float *rnd(int64_t n, uint64_t seed)
{
    float *p = malloc(sizeof(float) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) p[i] = 2.0f * gs_uniform(gs_hash2(seed, (uint64_t)i)) - 1.0f;
    return p;
}

static inline void *up(const void *h, size_t bytes)
{
    void *d = K->alloc(CX, bytes);
    assert_non_null(d);
    K->upload(CX, d, h, bytes);
    return d;
}

/* Fills device memory with NaN so unwritten outputs show. */
static inline void poison(float *d, int64_t n)
{
    float *h = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) h[i] = NAN;
    K->upload(CX, d, h, sizeof(float) * (size_t)n);
    free(h);
}

/* ||host - ref|| / ||ref|| <= tol, every element finite. */
static inline void check_host_close(const char *what, const float *ref, const float *got, int64_t n, double tol)
{
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(got[i])) fail_msg("%s: element %lld is %g (unwritten or overflow)", what, (long long)i, got[i]);
        num += ((double)got[i] - ref[i]) * ((double)got[i] - ref[i]);
        den += (double)ref[i] * ref[i];
    }
    double rel = den > 0 ? sqrt(num / den) : sqrt(num);
    if (rel > tol) fail_msg("%s: relative error %.3g > %.3g", what, rel, tol);
}

/* The same, for n floats of device memory dev. */
static inline void check_close(const char *what, const float *ref, const float *dev, int64_t n, double tol)
{
    float *got = malloc(sizeof(float) * (size_t)(n ? n : 1));
    K->download(CX, got, dev, sizeof(float) * (size_t)n);
    gs_err_t err;
    if (K->sync(CX, &err)) fail_msg("%s: %s", what, err.msg);
    check_host_close(what, ref, got, n, tol);
    free(got);
}

/* cmocka group setup: the fixture graph (6000 vertices, ~48K edges, hubs
 * of more than 512 in-edges), mirrored on the GPU. */
static inline int gpu_graph_setup(void **state)
{
    (void)state;
    gen_params_t p = {.nodes = 6000, .avg_degree = 16, .feats = 16, .classes = 5, .seed = 11};
    if (tu_gen_setup(&gen, &p)) return -1;
    gs_err_t err;
    if (dataset_load(&ds, gen.data_dir, 0, NULL, &err) || graph_build(&hg, &ds, &err)) return -1;
    return K->graph_mirror(CX, &hg, &dg, &err);
}

static inline int gpu_graph_teardown(void **state)
{
    (void)state;
    K->graph_release(CX, &dg);
    graph_free(&hg);
    dataset_free(&ds);
    tu_gen_cleanup(&gen);
    K->close(CX);
    return 0;
}

/* ---------------- training runs ---------------- */

typedef struct {
    int spans, tagged, kernels, copies;
} span_count_t;

static inline void count_task(void *user, int dev, lane_t lane, chunk_tag_t tag, double t0, double t1, double bytes)
{
    (void)dev, (void)bytes;
    span_count_t *c = user;
    c->spans++;
    c->tagged += tag.row >= 0 && tag.col >= 0;
    c->kernels += lane == LANE_COMPUTE;
    c->copies += lane != LANE_COMPUTE;
    if (!(t1 >= t0)) fail_msg("span ends before it starts");
}

/* A run's shape: streamed with these knobs on `devices` logical devices
 * (0: trained in memory). */
typedef struct {
    int devices, chunks; /* devices 0: in memory */
    stream_knobs_t knobs;
    uint64_t dev_mem;
} gpu_run_t;

/* Opens a trainer on dev for the run; GS_OK or the error. */
static inline int gpu_trainer(trainer_t *t, const char *dataset, const char *model, device_kind_t dev, const gpu_run_t *run,
                              span_count_t *spans, gs_err_t *err)
{
    train_cfg_t c;
    train_cfg_defaults(&c);
    snprintf(c.dataset, sizeof c.dataset, "%s", dataset);
    snprintf(c.model, sizeof c.model, "%s", model);
    c.threads = 2, c.device = dev, c.stream = run && run->devices > 0;
    if (c.stream) {
        c.devices = run->devices, c.chunks = run->chunks, c.links_native = 1, c.link_scale = 1, c.knobs = run->knobs;
        c.device_mem = run->dev_mem;
        snprintf(c.topology, sizeof c.topology, "pcie-4gpu-2switch"); /* the cpu run's devices; a GPU run ignores it */
    }
    train_env_t env = {.on_task = spans ? count_task : NULL, .observer = spans};
    return trainer_open(t, &c, &env, err);
}

static inline void gpu_losses(const char *dataset, const char *model, device_kind_t dev, const gpu_run_t *run, double *out,
                              span_count_t *spans)
{
    trainer_t t;
    gs_err_t err;
    if (gpu_trainer(&t, dataset, model, dev, run, spans, &err)) {
        trainer_close(&t); /* a failed open is left for close */
        fail_msg("%s: %s", dataset, err.msg);
    }
    for (int i = 0; i < 5; i++) {
        epoch_stats_t st;
        if (trainer_epoch(&t, &st, &err)) {
            trainer_close(&t);
            fail_msg("%s epoch %d: %s", dataset, i + 1, err.msg);
        }
        out[i] = st.loss;
    }
    trainer_close(&t);
}

/* 5 epochs on the GPU give the cpu backend's losses within 1e-4 relative;
 * a streamed run's spans reach the task hook, with chunk coordinates. */
static inline void same_losses(const char *dataset, const char *model, const gpu_run_t *run)
{
    double ref[5], got[5];
    span_count_t spans = {0};
    int stream = run && run->devices > 0;
    gpu_losses(dataset, model, DEVICE_HOST, run, ref, NULL);
    gpu_losses(dataset, model, DEVICE_CUDA, run, got, stream ? &spans : NULL);
    for (int i = 0; i < 5; i++)
        if (fabs(got[i] - ref[i]) > 1e-4 * fabs(ref[i]))
            fail_msg("%s %s %s epoch %d: cuda %.9g vs cpu %.9g", dataset, model, stream ? "streamed" : "in memory", i + 1, got[i],
                     ref[i]);
    if (stream) {
        if (spans.kernels == 0 || spans.copies == 0 || spans.tagged == 0)
            fail_msg("spans: %d (%d kernels, %d copies, %d tagged)", spans.spans, spans.kernels, spans.copies, spans.tagged);
        print_message("%s %s streamed: %d spans, %d with chunk coordinates\n", dataset, model, spans.spans, spans.tagged);
    }
}

#endif
