/* train_opts.c - see train_opts.h. The run options come from the knob
 * table (engine/train/knob_table.c); the tables below add the commands' own flags. */
#include "train_opts.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "engine/device/cuda_plugin.h"
#include "engine/train/knobs.h"
#include "cli.h"
#include "cora_setting.h"

#define F(field) offsetof(train_opts_t, field), sizeof(((train_opts_t *)0)->field)

static const opt_t run_flags[] = {
    {"backend", OPT_CHOICE, F(backend), "memory|cpu|cuda|auto", NULL, 0, 0, "NAME",
     "memory: host only; cpu: emulated devices (implied by the device flags); cuda: the GPU; auto: cuda if a GPU answers",
     NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"checkpoint", OPT_STR, F(checkpoint), NULL, NULL, 0, 0, "FILE", "save a checkpoint after every epoch", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"resume", OPT_STR, F(resume), NULL, NULL, 0, 0, "FILE", "continue the run saved in FILE", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"quiet", OPT_BOOL, F(quiet), NULL, NULL, 0, 0, "", "no per-epoch lines (the final result line stays)", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"json", OPT_BOOL, F(json), NULL, NULL, 0, 0, "", "print a JSON summary as the last line", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"trace", OPT_STR, F(trace), NULL, NULL, 0, 0, "FILE.json", "write a Chrome/Perfetto trace of every chunk", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"trace-max", OPT_SIZE, F(trace_max), NULL, "none", 1048576, 1099511627776.0, "BYTES",
     "cap a trace's size: at half of it the trace rotates to FILE.json.1, dropping the older part (none: no cap)", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"metrics", OPT_STR, F(metrics), NULL, NULL, 0, 0, "FILE.csv", "write one CSV row per epoch", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"profile", OPT_CHOICE, F(profile), "off|on|ops", NULL, 0, 0, "MODE", "record profiler events (on with --trace/--metrics); ops: instead, each op's time, FLOPs and bytes in the training steps (epochs after the first, host work) in the JSON", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"ranks", OPT_INT, F(ranks), NULL, "none", 1, 256, "N", "train over N MPI ranks (starts mpirun; NeutronStar's dependency management)", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"hostfile", OPT_STR, F(hostfile), NULL, NULL, 0, 0, "FILE", "with --ranks: the machines mpirun starts ranks on", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"dist", OPT_BOOL, F(dist), NULL, NULL, 0, 0, "", "run as one rank of an MPI job (under your own mpirun)", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
};

static const opt_t tui_flags[] = {
    {"max-epochs", OPT_I64, F(max_epochs), NULL, "never", 0, 1e9, "N", "quit after N epochs", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"script", OPT_STR, F(script), NULL, NULL, 0, 0, "FILE", "run console commands from FILE", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"pace", OPT_STR, F(pace), NULL, NULL, 0, 0, "key|auto[=S]",
     "in a terminal, each say of a script waits for space (key, the default) or S seconds (auto: 4)", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"serve", OPT_STR, F(serve), NULL, NULL, 0, 0, "PATH", "serve the run on a Unix socket instead of drawing it (gnnscope attach PATH)", NULL,
     WHEN_START, 0, 0, 0, 0, NULL, NULL},
};
#undef F

static void defaults(opts_cmd_t cmd, train_opts_t *o)
{
    memset(o, 0, sizeof *o);
    train_cfg_defaults(&o->cfg);
    o->trace_max = (uint64_t)1 << 30;
    o->backend = BACKEND_MEMORY;
    if (cmd == OPTS_TRAIN) return;
    /* the workbench and the demos stream through 2 devices under one switch */
    o->backend = BACKEND_CPU;
    o->cfg.devices = 2;
    snprintf(o->cfg.topology, sizeof o->cfg.topology, "pcie-4gpu-2switch");
    if (cmd == OPTS_DEMO) o->cfg.device_mem = 512 * 1024;
    o->cfg.knobs.multidev = MD_NAIVE; /* key 4 cycles chain, ring */
}

static int groups(opts_cmd_t cmd, train_opts_t *o, opt_group_t *g)
{
    int n;
    const opt_t *knobs = knob_table(&n);
    g[0] = (opt_group_t){knobs, n, &o->cfg};
    g[1] = (opt_group_t){run_flags, (int)(sizeof run_flags / sizeof run_flags[0]), o};
    if (cmd == OPTS_TRAIN) return 2;
    g[2] = (opt_group_t){tui_flags, (int)(sizeof tui_flags / sizeof tui_flags[0]), o};
    return 3;
}

static const char *cmd_name(opts_cmd_t cmd)
{
    return cmd == OPTS_TUI ? "gnnscope tui" : cmd == OPTS_DEMO ? "gnnscope demo" : "gnnscope train";
}

/* Whether a flag of the streaming engine was given (with `shared` 0, not
 * counting those a distributed run's ranks use too: the clock flags, the
 * vertex order and the partitioner). A sampled run's --topology names the
 * machine its steps run on: it does not ask for streaming. */
static int streaming_given(int argc, char **argv, int shared)
{
    int n, sampled = cli_given(argc, argv, "batch-size");
    const opt_t *knobs = knob_table(&n);
    for (int i = 0; i < n; i++) {
        const char *name = knobs[i].name;
        if (sampled && (strcmp(name, "topology") == 0 || strcmp(name, "kernel-time") == 0)) continue; /* the sampled clock's */
        int common = (knobs[i].flags & OPTF_RANKS) || knobs[i].scope == SCOPE_SPLIT;
        int streams = knobs[i].scope == SCOPE_STREAM || knobs[i].scope == SCOPE_SPLIT;
        if (streams && (shared || !common) && cli_given(argc, argv, name)) return 1;
    }
    return 0;
}

/* --simulate runs on the emulated devices' virtual clock with roofline
 * times: a full-batch run without a sampler or ranks streams (the cpu
 * backend), as a device flag would make it. */
static int simulate_rules(opts_cmd_t cmd, int argc, char **argv, train_opts_t *o, gs_err_t *err)
{
    const train_cfg_t *c = &o->cfg;
    if (!c->simulate) return GS_OK;
    int rc = knob_check_simulate(c, err);
    if (rc) return rc;
    if (cli_given(argc, argv, "backend") && o->backend != BACKEND_CPU && !(o->backend == BACKEND_MEMORY && c->batch_size > 0))
        return gs_fail(err, GS_EINPUT, "%s: --simulate runs on the cpu backend's emulated devices (--backend cpu)", cmd_name(cmd));
    if (!o->ranks && !o->dist && c->batch_size == 0) o->backend = BACKEND_CPU;
    return GS_OK;
}

static int resolve_backend(opts_cmd_t cmd, int argc, char **argv, train_opts_t *o, gs_err_t *err)
{
    const char *name = cmd_name(cmd);
    int streaming = streaming_given(argc, argv, 1), given = cli_given(argc, argv, "backend");
    int rc = simulate_rules(cmd, argc, argv, o, err);
    if (rc) return rc;
    if (!given && streaming) o->backend = BACKEND_CPU;
    else if (!given && cli_given(argc, argv, "batch-size")) o->backend = BACKEND_MEMORY; /* sampled training: in memory */
    if (o->backend == BACKEND_MEMORY && streaming)
        return gs_fail(err, GS_EINPUT, "%s: --backend memory does not take device or streaming flags", name);
    train_cfg_t *c = &o->cfg;
    topology_t tp;
    rc = topology_load(c->topology, &tp, err);
    if (rc) return rc;
    if (o->ranks || o->dist) { /* each rank trains in host memory; its devices are not emulated */
        if (streaming_given(argc, argv, 0) || given)
            return gs_fail(err, GS_EINPUT, "%s: --ranks trains in host memory on every rank; device and backend flags do not apply", name);
        c->stream = 0, c->device = DEVICE_HOST;
        if (tp.network[0] && !cli_given(argc, argv, "network")) snprintf(c->network, sizeof c->network, "%s", tp.network);
        return GS_OK;
    }
    if (cmd != OPTS_TRAIN && cli_given(argc, argv, "topology") && !cli_given(argc, argv, "devices") && tp.ndev < c->devices)
        c->devices = tp.ndev; /* the workbench's 2 devices, on a named machine with fewer */
    c->stream = o->backend == BACKEND_CPU || (o->backend != BACKEND_MEMORY && streaming);
    c->device = o->backend == BACKEND_CUDA ? DEVICE_CUDA : DEVICE_HOST;
    if (o->backend == BACKEND_AUTO) {
        gs_err_t why;
        if (gs_cuda_get(&why)) c->device = DEVICE_CUDA;
        else fprintf(stderr, "gnnscope: --backend auto: %s; running on the cpu\n", why.msg);
    }
    if (c->stream && c->device == DEVICE_HOST && !cli_given(argc, argv, "topology") && tp.ndev < c->devices) {
        const char *fit = topology_for_devices(c->devices);
        if (!fit) return gs_fail(err, GS_EINPUT, "%s: --devices %d: no shipped topology has that many", name, c->devices);
        snprintf(c->topology, sizeof c->topology, "%s", fit);
        fprintf(stderr, "gnnscope: --devices %d: using topology %s, the smallest with %d devices\n", c->devices, fit,
                c->devices);
    }
    return GS_OK;
}

/* The files the run will write or read, checked before any work: an
 * output must be a regular file or absent in a writable directory (never
 * a device, link or directory); --resume and --hostfile must be readable
 * regular files. */
static int check_files(const train_opts_t *o, gs_err_t *err)
{
    const char *outputs[][2] = {{"checkpoint", o->checkpoint}, {"trace", o->trace}, {"metrics", o->metrics},
                                {"partition-model", o->cfg.partition_model}}; /* read when present, and written */
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
        gs_err_t why;
        if (outputs[i][1][0] && atomic_target_ok(outputs[i][1], &why))
            return gs_fail(err, GS_EINPUT, "--%s %s", outputs[i][0], why.msg);
    }
    const char *inputs[][3] = {{"resume", o->resume, "a checkpoint is one"}, {"hostfile", o->hostfile, "mpirun reads one"}};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        struct stat st;
        const char *path = inputs[i][1];
        if (!path[0]) continue;
        if (stat(path, &st) != 0) return gs_fail(err, GS_EINPUT, "--%s %s: no such file", inputs[i][0], path);
        if (!S_ISREG(st.st_mode)) return gs_fail(err, GS_EINPUT, "--%s %s: not a regular file (%s)", inputs[i][0], path, inputs[i][2]);
        if (access(path, R_OK) != 0) return gs_fail(err, GS_EINPUT, "--%s %s: not readable", inputs[i][0], path);
    }
    if (o->hostfile[0] && !o->ranks) return gs_fail(err, GS_EINPUT, "--hostfile: give --ranks N too (it says where the ranks run)");
    return GS_OK;
}

int train_opts_parse(opts_cmd_t cmd, int argc, char **argv, train_opts_t *o, int *help, gs_err_t *err)
{
    opt_group_t g[3];
    defaults(cmd, o);
    int rc = cli_parse(cmd_name(cmd), g, groups(cmd, o, g), argc, argv, help, err);
    if (rc || *help) return rc;
    if (cmd == OPTS_TUI) {
        o->cora_owned = cora_setting_owned(argc, argv);
        cora_setting_apply(&o->cfg, o->cora_owned);
    }
    if ((rc = check_files(o, err))) return rc;
    return resolve_backend(cmd, argc, argv, o, err);
}

void train_opts_help(opts_cmd_t cmd, const char *usage)
{
    static train_opts_t o;
    opt_group_t g[3];
    defaults(cmd, &o);
    if (cmd == OPTS_TUI) cora_setting_apply(&o.cfg, cora_setting_owned(0, NULL));
    cli_print_help(usage, g, groups(cmd, &o, g));
}
