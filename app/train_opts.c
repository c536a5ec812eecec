/* train_opts.c - see train_opts.h. The table below is the one place the
 * train flags, their help and their ranges are written. */
#include "train_opts.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "stream_cli.h"

/* Flag values that need resolving after parsing. */
typedef struct {
    int dkp, feat_norm, no_cache, backend, links, order, selective, pipeline, swap, multidev, memplan;
    char device_mem[32], chunks[16], link_scale[16];
    int64_t max_epochs;
} raw_t;

#define MAX_FLAGS 48

static int table(train_opts_t *o, raw_t *x, flag_t *out)
{
    const flag_t flags[] = {
        {"dataset", FLAG_STR, o->cfg.dataset, sizeof o->cfg.dataset, NULL, "cora|DIR|FILE", "shipped name, OGB raw directory or SNAP edge list", 1, 0},
        {"model", FLAG_STR, o->cfg.model, sizeof o->cfg.model, NULL, "NAME", "gcn|gin|commnet|gat|ggcn|mpgcn|ggnn|resgcn", 1, 0},
        {"layers", FLAG_INT, &o->cfg.layers, 0, NULL, "L", "number of GNN layers (GG-NN: propagation steps)", 1, 64},
        {"hidden", FLAG_I64, &o->cfg.hidden, 0, NULL, "H", "hidden width (per head for GAT)", 1, 65536},
        {"heads", FLAG_INT, &o->cfg.heads, 0, NULL, "K", "attention heads (GAT hidden layers)", 1, 64},
        {"epochs", FLAG_INT, &o->cfg.epochs, 0, NULL, "E", "total epochs (a resumed run continues up to E)", 0, 1e7},
        {"lr", FLAG_FLOAT, &o->cfg.lr, 0, NULL, "X", "Adam learning rate", 1e-9, 10},
        {"weight-decay", FLAG_FLOAT, &o->cfg.weight_decay, 0, NULL, "X", "L2 weight decay added to gradients", 0, 10},
        {"dropout", FLAG_FLOAT, &o->cfg.dropout, 0, NULL, "X", "dropout probability", 0, 0.99},
        {"seed", FLAG_U64, &o->cfg.seed, 0, NULL, "S", "seed for initialisation and dropout masks", 0, 9e18},
        {"threads", FLAG_INT, &o->cfg.threads, 0, NULL, "T", "worker threads, 0 = all cores", 0, 1024},
        {"checkpoint", FLAG_STR, o->checkpoint, sizeof o->checkpoint, NULL, "FILE", "save a checkpoint after every epoch", 1, 0},
        {"resume", FLAG_STR, o->resume, sizeof o->resume, NULL, "FILE", "continue the run saved in FILE", 1, 0},
        {"dkp", FLAG_CHOICE, &x->dkp, 0, "off|on|auto", "MODE", "reorder aggregation and combination (auto: by cost)", 1, 0},
        {"feat-norm", FLAG_CHOICE, &x->feat_norm, 0, "auto|row|none", "MODE", "row-normalise features (auto: if non-negative)", 1, 0},
        {"no-cache", FLAG_BOOL, &x->no_cache, 0, NULL, "", "do not read or write the binary dataset cache", 1, 0},
        {"quiet", FLAG_BOOL, &o->quiet, 0, NULL, "", "no per-epoch lines", 1, 0},
        {"backend", FLAG_CHOICE, &x->backend, 0, "memory|cpu|cuda|auto", "NAME", "memory: host only; cpu: virtual devices (implied by the flags below); cuda: the GPU; auto: cuda if a GPU answers", 1, 0},
        {"devices", FLAG_INT, &o->cfg.devices, 0, NULL, "N", "virtual devices", 1, TOPO_MAX_DEV},
        {"device-mem", FLAG_STR, x->device_mem, sizeof x->device_mem, NULL, "BYTES", "memory cap per device, e.g. 512M or 2G", 1, 0},
        {"topology", FLAG_STR, o->cfg.topology, sizeof o->cfg.topology, NULL, "NAME", "interconnect model (gnnscope topologies)", 1, 0},
        {"link-scale", FLAG_STR, x->link_scale, sizeof x->link_scale, NULL, "auto|X", "link bandwidth factor; auto = host/GPU FLOP/s", 1, 0},
        {"links", FLAG_CHOICE, &x->links, 0, "model|native", "MODE", "native: copies are plain memcpys", 1, 0},
        {"chunks", FLAG_STR, x->chunks, sizeof x->chunks, NULL, "P|auto", "vertex intervals; auto = smallest that fits --device-mem", 1, 0},
        {"order", FLAG_CHOICE, &x->order, 0, "none|random|metis", "ORDER", "vertex order before chunking", 1, 0},
        {"selective", FLAG_CHOICE, &x->selective, 0, "off|on|auto", "MODE", "filter source rows on the host", 1, 0},
        {"pipeline", FLAG_CHOICE, &x->pipeline, 0, "off|on", "MODE", "double-buffer copies against compute", 1, 0},
        {"subchunks", FLAG_INT, &o->cfg.knobs.subchunks, 0, NULL, "K", "blocks per source interval", 1, 64},
        {"swap", FLAG_CHOICE, &x->swap, 0, "off|on", "MODE", "reorder blocks by profiled times (NeuGraph Fig. 6)", 1, 0},
        {"multidev", FLAG_CHOICE, &x->multidev, 0, "naive|chain|ring", "MODE", "how devices share source blocks", 1, 0},
        {"memplan", FLAG_CHOICE, &x->memplan, 0, "stream|lru|roc", "PLAN", "tensors kept on the devices between ops (roc: ROC's DP)", 1, 0},
        {"json", FLAG_BOOL, &o->json, 0, NULL, "", "print a JSON summary as the last line", 1, 0},
        {"trace", FLAG_STR, o->trace, sizeof o->trace, NULL, "FILE.json", "write a Chrome/Perfetto trace of every chunk", 1, 0},
        {"metrics", FLAG_STR, o->metrics, sizeof o->metrics, NULL, "FILE.csv", "write one CSV row per epoch", 1, 0},
        {"profile", FLAG_CHOICE, &o->profile, 0, "off|on", "MODE", "record profiler events (on with --trace/--metrics)", 1, 0},
        {"max-epochs", FLAG_I64, &x->max_epochs, 0, NULL, "N", "tui: quit after N epochs (0 = never)", 0, 1e9},
        {"script", FLAG_STR, o->script, sizeof o->script, NULL, "FILE", "tui: run console commands from FILE", 1, 0},
    };
    int n = (int)(sizeof flags / sizeof flags[0]);
    memcpy(out, flags, sizeof flags);
    return n;
}

static void defaults(train_opts_t *o, raw_t *x)
{
    memset(o, 0, sizeof *o);
    memset(x, 0, sizeof *x);
    train_cfg_defaults(&o->cfg);
    x->dkp = (int)o->cfg.dkp, x->feat_norm = (int)o->cfg.feat_norm, x->backend = BACKEND_UNSET, x->order = (int)o->cfg.order;
    x->selective = (int)o->cfg.knobs.selective, x->pipeline = o->cfg.knobs.pipeline, x->swap = o->cfg.knobs.swap;
    x->multidev = (int)o->cfg.knobs.multidev, x->memplan = (int)o->cfg.knobs.memplan;
    snprintf(x->chunks, sizeof x->chunks, "auto");
    snprintf(x->link_scale, sizeof x->link_scale, "auto");
}

int train_opts_parse(const char *cmd, int argc, char **argv, train_opts_t *o, int *help, gs_err_t *err)
{
    raw_t x;
    flag_t flags[MAX_FLAGS];
    defaults(o, &x);
    int n = table(o, &x, flags), rc = cli_parse(cmd, flags, n, argc, argv, help, err);
    if (rc || *help) return rc;
    train_cfg_t *c = &o->cfg;
    c->dkp = (dkp_mode_t)x.dkp;
    c->feat_norm = (feat_norm_t)x.feat_norm;
    c->use_cache = !x.no_cache;
    if ((rc = apply_stream_flags(c, argc, argv, x.backend, x.device_mem, x.chunks, x.link_scale, err))) return rc;
    c->links_native = x.links;
    c->order = (order_kind_t)x.order;
    c->knobs.selective = (selective_t)x.selective;
    c->knobs.pipeline = x.pipeline, c->knobs.swap = x.swap, c->knobs.multidev = (multidev_t)x.multidev;
    c->knobs.memplan = (memplan_kind_t)x.memplan;
    o->max_epochs = (long)x.max_epochs;
    return GS_OK;
}

void train_opts_help(const char *usage)
{
    static train_opts_t o;
    raw_t x;
    flag_t flags[MAX_FLAGS];
    defaults(&o, &x);
    cli_print_help(usage, flags, table(&o, &x, flags));
}
