/* stream_cli.c - the streaming-engine side of `gnnscope train`: resolving
 * its flags (sizes, "auto" values, which flags imply the cpu backend) and
 * the streaming part of the JSON summary (counters, knobs in force, and the
 * note that times are emulated). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/cuda_plugin.h"
#include "../engine/parse.h"
#include "cli.h"
#include "stream_cli.h"

static int given(int argc, char **argv, const char *flag)
{
    size_t n = strlen(flag);
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], flag, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '=')) return 1;
    return 0;
}

/* Resolves the streaming flags that need more than a table entry. */
int apply_stream_flags(train_cfg_t *cfg, int argc, char **argv, int backend, const char *device_mem,
                              const char *chunks, const char *link_scale, gs_err_t *err)
{
    static const char *implies[] = {"--devices", "--device-mem", "--topology", "--link-scale", "--links", "--chunks",
                                    "--order", "--selective", "--pipeline", "--subchunks", "--swap", "--multidev",
                                    "--memplan"};
    int implied = 0;
    for (size_t i = 0; i < sizeof implies / sizeof implies[0]; i++) implied |= given(argc, argv, implies[i]);
    cfg->stream = backend == BACKEND_CPU || (backend != BACKEND_MEMORY && implied);
    if (backend == BACKEND_MEMORY && implied)
        return gs_fail(err, GS_EINPUT, "gnnscope train: --backend memory does not take device or streaming flags");
    cfg->device = backend == BACKEND_CUDA ? DEVICE_CUDA : DEVICE_HOST;
    if (backend == BACKEND_AUTO) {
        gs_err_t why;
        if (gs_cuda_get(&why)) cfg->device = DEVICE_CUDA;
        else fprintf(stderr, "gnnscope: --backend auto: %s; running on the cpu\n", why.msg);
    }
    if (device_mem[0] && gs_parse_bytes(device_mem, &cfg->device_mem))
        return gs_fail(err, GS_EINPUT, "gnnscope train: --device-mem: '%s' is not a size (e.g. 512M, 2G)", device_mem);
    if (strcmp(chunks, "auto") == 0) cfg->chunks = 0;
    else {
        char *end;
        long v = strtol(chunks, &end, 10);
        if (!*chunks || *end || v < 1 || v > 4096)
            return gs_fail(err, GS_EINPUT, "gnnscope train: --chunks: '%s' is not auto or an integer in [1, 4096]", chunks);
        cfg->chunks = (int)v;
    }
    if (strcmp(link_scale, "auto") == 0) cfg->link_scale = 0;
    else {
        char *end;
        double v = strtod(link_scale, &end);
        if (!*link_scale || *end || !(v > 0) || v > 1e6)
            return gs_fail(err, GS_EINPUT, "gnnscope train: --link-scale: '%s' is not auto or a number in (0, 1e6]", link_scale);
        cfg->link_scale = v;
    }
    return GS_OK;
}

static const char *choice(const char *list, int k)
{
    static char buf[8][32];
    static int next;
    char *out = buf[next++ % 8];
    gs_choice_name(list, k, out, sizeof buf[0]);
    return out;
}

void print_stream_json(const trainer_t *t, const epoch_stats_t *last, double epoch_s)
{
    const train_cfg_t *c = &t->cfg;
    const streamer_t *s = &t->streamer;
    int emulated = t->bops == &backend_cpu;
    printf(",\"engine\":\"stream\",\"backend\":\"%s\",\"emulated\":%s,\"topology\":\"%s\",\"links\":\"%s\"",
           t->bops->name, emulated ? "true" : "false", emulated ? c->topology : "real",
           !emulated ? "real" : c->links_native ? "native" : "model");
    printf(",\"link_scale\":%.6g,\"host_gflops\":%.3f,\"devices\":%d,\"chunks\":%d,\"device_mem\":%llu", t->link_scale,
           t->host_flops / 1e9, c->devices, t->chunks, (unsigned long long)c->device_mem);
    printf(",\"knobs\":{\"order\":\"%s\",\"selective\":\"%s\",\"pipeline\":\"%s\",\"subchunks\":%d,\"swap\":\"%s\","
           "\"multidev\":\"%s\",\"memplan\":\"%s\",\"dkp\":\"%s\"}",
           choice("none|random|metis", c->order), choice("off|on|auto", c->knobs.selective),
           choice("off|on", c->knobs.pipeline), s->k, choice("off|on", c->knobs.swap),
           choice("naive|chain|ring", c->knobs.multidev), choice("stream|lru|roc", c->knobs.memplan),
           choice("off|on|auto", c->dkp));
    const memplan_rt_t *mp = &s->mp;
    printf(",\"memplan\":{\"planned\":%s,\"budget_bytes\":%.0f,\"plan_h2d_bytes\":%.0f,\"stream_h2d_bytes\":%.0f,"
           "\"kept_bytes\":%.0f,\"steps\":%d,\"plan_ms\":%.1f}",
           mp->planned ? "true" : "false", mp->planned ? (double)mp->plan.budget : 0, mp->planned ? mp->plan.cost : 0,
           mp->planned ? mp->plan.stream_cost : 0, last->kept_bytes, mp->trace.nstep, mp->plan_ms);
    printf(",\"t_copy_bytes_per_s\":%.6g,\"t_trans_bytes_per_s\":%.6g,\"theta_threshold\":%.4f", s->t_copy, s->t_trans,
           s->theta_threshold);
    printf(",\"h2d_bytes\":%.0f,\"d2h_bytes\":%.0f,\"d2d_bytes\":%.0f,\"overlap\":%.4f", last->h2d_bytes, last->d2h_bytes,
           last->d2d_bytes, last->overlap);
    printf(",\"filtered_blocks\":%.0f,\"full_blocks\":%.0f,\"gather_h2d_bytes\":%.0f", s->ctr.filtered_blocks,
           s->ctr.full_blocks, s->ctr.gather_h2d_bytes);
    printf(",\"link_bytes\":{");
    for (int l = 0; l < t->topo.nlinks; l++)
        printf("%s\"%s\":%.0f", l ? "," : "", t->topo.links[l].name, t->last_stats.link_bytes[l]);
    printf("},\"busy\":[");
    static const char *lanes[LANE__COUNT] = {"h2d", "d2h", "d2d", "compute"};
    for (int d = 0; d < c->devices; d++) {
        printf("%s{", d ? "," : "");
        for (int l = 0; l < LANE__COUNT; l++)
            printf("%s\"%s\":%.4f", l ? "," : "", lanes[l], epoch_s > 0 ? t->last_stats.busy_s[d][l] / epoch_s : 0.0);
        printf("}");
    }
    printf("]");
}

