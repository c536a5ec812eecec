/* knob_table.c - see knob_table.h. The table below is the one place a run
 * option's name, range, help, key, scope, rule and `when` are written. */
#include "knob_table.h"

#include <stdio.h>
#include <string.h>

#include "base/membudget.h"
#include "engine/machine/netmodel.h"
#include "engine/machine/topology.h"
#include "engine/program/models/model.h"
#include "engine/stream/streamer.h"

/* ---------------- the rows' own rules ---------------- */

/* The chunk grid of next's chunks and sub-chunks within the memory rule. */
static int check_grid(const train_cfg_t *c, const knob_facts_t *f, const char *name, gs_err_t *err)
{
    if (!f || c->chunks <= 0) return GS_OK;
    char what[96];
    int k = c->knobs.subchunks < 1 ? 1 : c->knobs.subchunks;
    snprintf(what, sizeof what, "set %s: %d chunks of %d sub-chunks", name, c->chunks, k);
    return gs_mem_check(streamer_memory_bytes(f->vertices, f->edges, c->chunks, k, !c->simulate), what, err);
}

static int check_chunks(void *next, const void *facts, gs_err_t *err)
{
    const train_cfg_t *c = next;
    const knob_facts_t *f = facts;
    if (f && c->chunks > f->vertices)
        return gs_fail(err, GS_EINPUT, "set chunks: %d is more than the graph's %lld vertices", c->chunks, (long long)f->vertices);
    return check_grid(c, f, "chunks", err);
}

static int check_subchunks(void *next, const void *facts, gs_err_t *err) { return check_grid(next, facts, "subchunks", err); }

static int check_device_mem(void *next, const void *facts, gs_err_t *err)
{
    const train_cfg_t *c = next;
    const knob_facts_t *f = facts;
    if (!f || !c->device_mem || c->device_mem >= f->min_device_mem) return GS_OK;
    return gs_fail(err, GS_EINPUT, "set device-mem: %llu bytes is below the %llu bytes this model needs at any chunk count",
                   (unsigned long long)c->device_mem, (unsigned long long)f->min_device_mem);
}

/* More devices than the topology has: the smallest shipped one that fits. */
static int check_devices(void *next, const void *facts, gs_err_t *err)
{
    (void)facts, (void)err;
    train_cfg_t *c = next;
    topology_t tp;
    const char *fit = topology_for_devices(c->devices);
    if (topology_get(c->topology, &tp) == 0 && tp.ndev < c->devices && fit) snprintf(c->topology, sizeof c->topology, "%s", fit);
    return GS_OK;
}

/* A machine file is read now, so a bad one is refused with its line and field. */
static int check_topology(void *next, const void *facts, gs_err_t *err)
{
    (void)facts;
    topology_t tp;
    return topology_load(((train_cfg_t *)next)->topology, &tp, err);
}

/* A simulated run's times are roofline times on the virtual clock: nothing ran to be measured. */
int knob_check_simulate(const train_cfg_t *c, gs_err_t *err)
{
    if (c->simulate && (c->clock != CLOCK_VIRTUAL || c->ktime != KTIME_ROOFLINE))
        return gs_fail(err, GS_EINPUT, "--simulate needs --clock virtual and --kernel-time roofline: a simulated run measures nothing");
    return GS_OK;
}

static int check_simulated_clock(void *next, const void *facts, gs_err_t *err)
{
    (void)facts;
    return knob_check_simulate(next, err);
}

/* Sampled training runs in host memory (its steps on the topology's GPU):
 * a batch size set on a run streamed through the emulated devices leaves
 * them (set devices N streams again). */
static int check_batch_size(void *next, const void *facts, gs_err_t *err)
{
    (void)facts, (void)err;
    train_cfg_t *c = next;
    if (c->batch_size > 0 && c->stream && c->device == DEVICE_HOST) c->stream = 0;
    return GS_OK;
}

static int streaming(const knob_facts_t *live) { return live && live->kind.engine == ENGINE_STREAM; }

static int text_chunks(const void *base, const void *live, char *out, size_t n)
{
    const train_cfg_t *c = base;
    if (!streaming(live)) return 0;
    snprintf(out, n, "%d%s", ((const knob_facts_t *)live)->chunks, c->chunks ? "" : " (auto)");
    return 1;
}

static int text_link_scale(const void *base, const void *live, char *out, size_t n)
{
    const train_cfg_t *c = base;
    if (!streaming(live) || c->link_scale != 0) return 0;
    snprintf(out, n, "auto (%.4g)", ((const knob_facts_t *)live)->link_scale);
    return 1;
}

/* ---------------- the table ---------------- */

#define F(field) offsetof(train_cfg_t, field), sizeof(((train_cfg_t *)0)->field)

static const opt_t table[] = {
    {"dataset", OPT_STR, F(dataset), NULL, NULL, 0, 0, "cora|DIR|FILE", "shipped name, OGB raw directory or SNAP edge list", NULL, WHEN_START, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"model", OPT_STR, F(model), NULL, NULL, 0, 0, "NAME", "the GNN model", model_names, WHEN_START, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"layers", OPT_INT, F(layers), NULL, NULL, 1, 64, "L", "number of GNN layers (GG-NN: propagation steps)", NULL, WHEN_START, SCOPE_ANY, 0, 0, .flags = OPTF_MODEL},
    {"hidden", OPT_I64, F(hidden), NULL, NULL, 1, 65536, "H", "hidden width (per head for GAT)", NULL, WHEN_START, SCOPE_ANY, 0, 0, .flags = OPTF_MODEL},
    {"heads", OPT_INT, F(heads), NULL, NULL, 1, 64, "K", "attention heads (GAT hidden layers)", NULL, WHEN_START, SCOPE_ANY, 0, 0, .flags = OPTF_MODEL},
    {"epochs", OPT_INT, F(epochs), NULL, NULL, 0, 1e7, "E", "total epochs (a resumed run continues up to E)", NULL, WHEN_START, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"lr", OPT_FLOAT, F(lr), NULL, NULL, 1e-9, 10, "X", "Adam learning rate", NULL, WHEN_EPOCH, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"weight-decay", OPT_FLOAT, F(weight_decay), NULL, NULL, 0, 10, "X", "L2 weight decay added to gradients", NULL, WHEN_START, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"dropout", OPT_FLOAT, F(dropout), NULL, NULL, 0, 0.99, "X", "dropout probability", NULL, WHEN_START, SCOPE_ANY, 0, 0, .flags = OPTF_MODEL},
    {"seed", OPT_U64, F(seed), NULL, NULL, 0, 9e18, "S", "seed for initialisation and dropout masks", NULL, WHEN_START, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"threads", OPT_INT, F(threads), NULL, "all", 0, 1024, "T", "worker threads, OpenBLAS's too unless OPENBLAS_NUM_THREADS is set (all: one per core)", NULL, WHEN_START, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"dkp", OPT_CHOICE, F(dkp), "off|on|auto", NULL, 0, 0, "MODE", "reorder aggregation and combination (auto: by GraphTensor's cost model, per layer, for a sampled run's block sizes too)", NULL, WHEN_PROGRAM, SCOPE_ANY, '7', 0, 0, NULL, NULL},
    {"fuse", OPT_CHOICE, F(fuse), "off|on", NULL, 0, 0, "MODE", "NeuGraph 3.4: hoist src/dst-only ops out of ApplyEdge, fuse elementwise edge stages into one gather (off: the plain SAGA program)", NULL, WHEN_PROGRAM, SCOPE_ANY, '0', 0, 0, NULL, NULL},
    {"batch-size", OPT_I64, F(batch_size), NULL, "full", 1, 1e12, "B", "sampled mini-batch training: B training vertices a step (full: full-batch; more than the training set: one batch)", NULL, WHEN_EPOCH, SCOPE_ANY, 0, 0, 0, .check = check_batch_size},
    {"fanout", OPT_LIST, F(fanout), NULL, NULL, 1, 100000, "K1,K2,..", "--batch-size: neighbours sampled per vertex and hop, the targets' own first (fewer values than hops: the last one repeats)", NULL, WHEN_EPOCH, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"prepro", OPT_CHOICE, F(prepro), "serial|pipelined|blocking|basic", NULL, 0, 0, "MODE", "--batch-size: serial: Dynamic-GT's (each batch's subtasks in order, the next batch prepared during this one's step); pipelined: GraphTensor's scheduler (the subtasks overlapped too); blocking: no overlap at all (PyG's loader); basic: the scheduler without its contention relief (threads share a locked id map, R overlaps S)", NULL, WHEN_EPOCH, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"prepro-threads", OPT_INT, F(prepro_threads), NULL, NULL, 2, 256, "T", "--batch-size: the modeled host's preprocessing threads; more of them draw faster, but under --prepro basic they contend for a locked id map (GraphTensor Fig. 14a)", NULL, WHEN_EPOCH, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"feat-norm", OPT_CHOICE, F(feat_norm), "auto|row|none", NULL, 0, 0, "MODE", "row-normalise features (auto: if non-negative)", NULL, WHEN_START, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"no-cache", OPT_BOOL, F(no_cache), NULL, NULL, 0, 0, "", "do not read or write the binary dataset cache", NULL, WHEN_START, SCOPE_ANY, 0, 0, 0, NULL, NULL},
    {"devices", OPT_INT, F(devices), NULL, NULL, 1, TOPO_MAX_DEV, "N", "emulated or logical devices", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0, .check = check_devices},
    {"device-mem", OPT_SIZE, F(device_mem), NULL, "none", 1024, 1099511627776.0, "BYTES", "memory cap per device", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0, .check = check_device_mem},
    {"topology", OPT_STR, F(topology), NULL, NULL, 0, 0, "NAME|FILE", "the modeled machine: a shipped one (gnnscope topologies) or a machine file", topology_names_joined, WHEN_REOPEN, SCOPE_STREAM, 0, 0, OPTF_PATH | OPTF_RANKS | OPTF_SAMPLED, .check = check_topology},
    {"link-scale", OPT_DOUBLE, F(link_scale), NULL, "auto", 0.01, 1e6, "X", "link bandwidth factor (auto: 1 on the virtual clock, host/GPU FLOP/s on the wall clock)", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0, .text = text_link_scale},
    {"links", OPT_CHOICE, F(links_native), "model|native", NULL, 0, 0, "MODE", "native: copies are plain memcpys", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0, 0, NULL, NULL},
    {"clock", OPT_CHOICE, F(clock), "virtual|wall", NULL, 0, 0, "CLOCK", "emulated time: the modeled machine's (virtual) or the host's", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0, .flags = OPTF_RANKS, .check = check_simulated_clock},
    {"kernel-time", OPT_CHOICE, F(ktime), "roofline|measured", NULL, 0, 0, "MODEL", "virtual clock: device kernels (a sampled run's steps too) by the GPU's roofline (deterministic) or by measured CPU time; measured times fit DKP's cost model", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0, .flags = OPTF_RANKS | OPTF_SAMPLED, .check = check_simulated_clock},
    {"simulate", OPT_BOOL, F(simulate), NULL, NULL, 0, 0, "", "the real schedule on the virtual clock with kernels and copies skipped: emulated times, no losses, paper-size graphs", NULL, WHEN_START, SCOPE_ANY, 0, 0, OPTF_RANKS, NULL, NULL},
    {"chunks", OPT_INT, F(chunks), NULL, "auto", 1, 4096, "P", "vertex intervals (auto: the fewest that fit --device-mem, more where host memory needs them)", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0, .check = check_chunks, .text = text_chunks},
    {"order", OPT_CHOICE, F(order), "none|random|metis", NULL, 0, 0, "ORDER", "vertex order before chunking", NULL, WHEN_REOPEN, SCOPE_STREAM, '5', 0, .flags = OPTF_RANKS},
    {"partitioner", OPT_CHOICE, F(partitioner), "equal-vertex|equal-edge|roc", NULL, 0, 0, "NAME", "where the intervals (or the ranks' ranges) are cut (roc: ROC's cost model, refit every epoch)", NULL, WHEN_REOPEN, SCOPE_SPLIT, '9', 0, 0, NULL, NULL},
    {"partition-model", OPT_STR, F(partition_model), NULL, NULL, 0, 0, "FILE", "roc's learned cost model (ROC Fig. 9): read at the start when FILE exists (its cut from the first epoch), written after each epoch that refits it", NULL, WHEN_START, SCOPE_SPLIT, 0, 0, 0, NULL, NULL},
    {"selective", OPT_CHOICE, F(knobs.selective), "off|on|auto", NULL, 0, 0, "MODE", "filter source rows on the host (NeuGraph 3.2)", NULL, WHEN_EPOCH, SCOPE_STREAM, '1', 0, 0, NULL, NULL},
    {"pipeline", OPT_CHOICE, F(knobs.pipeline), "off|on", NULL, 0, 0, "MODE", "double-buffer copies against compute", NULL, WHEN_EPOCH, SCOPE_STREAM, '2', 0, 0, NULL, NULL},
    {"subchunks", OPT_INT, F(knobs.subchunks), NULL, NULL, 1, 64, "K", "blocks per source interval", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0, .check = check_subchunks},
    {"swap", OPT_CHOICE, F(knobs.swap), "off|on", NULL, 0, 0, "MODE", "reorder blocks by profiled times (NeuGraph Fig. 6; with multidev naive)", NULL, WHEN_EPOCH, SCOPE_STREAM, '3', 0, 0, NULL, NULL},
    {"multidev", OPT_CHOICE, F(knobs.multidev), "naive|chain|ring", NULL, 0, 0, "MODE", "how devices share source blocks", NULL, WHEN_EPOCH, SCOPE_STREAM, '4', 0, 0, NULL, NULL},
    {"stream-order", OPT_CHOICE, F(knobs.stream_order), "column|row|stage", NULL, 0, 0, "ORDER", "column: each output interval's sums stay on the device while the input blocks stream, and the ApplyVertex ops that read them (product, bias, activation) run there (NeuGraph, NGra); row: each input interval loads once and partial sums go to the host and back (NeuGraph Fig. 16, NGra Fig. 14's dest-order); stage: the column order with ApplyVertex a stage of its own, each accumulator swapped home and back between the stages (NGra Fig. 14's stage-based)", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0, 0, NULL, NULL},
    {"edge-chunks", OPT_CHOICE, F(knobs.edge_chunks), "auto|stream|resident", NULL, 0, 0, "MODE", "sub-chunks' edge structure: copied to the devices every pass (stream), once and kept (resident), or kept while the cap holds them (auto) (NeuGraph 3.1)", NULL, WHEN_EPOCH, SCOPE_STREAM, 0, 0, 0, NULL, NULL},
    {"memplan", OPT_CHOICE, F(knobs.memplan), "stream|lru|roc", NULL, 0, 0, "PLAN", "tensors kept on the devices between ops (roc: ROC's DP)", NULL, WHEN_EPOCH, SCOPE_STREAM, '6', 0, 0, NULL, NULL},
    {"dep", OPT_CHOICE, F(dep), "cache|comm|hybrid", NULL, 0, 0, "MODE", "--ranks: remote dependencies cached (DepCache), communicated (DepComm) or split by Algorithm 4 (NeutronStar 3)", NULL, WHEN_EPOCH, SCOPE_DIST, '8', 0, 0, NULL, NULL},
    {"dep-ratio", OPT_DOUBLE, F(dep_ratio), NULL, "auto", 0, 1, "X", "--dep hybrid: the fraction of each layer's remote dependencies cached (auto: Algorithm 4)", NULL, WHEN_EPOCH, SCOPE_DIST, 0, -1, 0, NULL, NULL},
    {"dep-mem", OPT_SIZE, F(dep_mem), NULL, "none", 1024, 1099511627776.0, "BYTES", "--dep hybrid: memory limit S for cached dependencies", NULL, WHEN_EPOCH, SCOPE_DIST, 0, 0, 0, NULL, NULL},
    {"ring", OPT_CHOICE, F(ring), "off|on", NULL, 0, 0, "MODE", "--ranks: rank i sends its j-th chunk to (i+j+1) % m (NeutronStar 4.3)", NULL, WHEN_EPOCH, SCOPE_DIST, 0, 0, 0, NULL, NULL},
    {"overlap", OPT_CHOICE, F(overlap), "off|on", NULL, 0, 0, "MODE", "--ranks: compute local and cached rows while mirrors arrive", NULL, WHEN_EPOCH, SCOPE_DIST, 0, 0, 0, NULL, NULL},
    {"rank-compute", OPT_CHOICE, F(rank_gpu), "host|gpu", NULL, 0, 0, "WHERE", "--ranks: each rank computes on its node's GPU (the --topology's, messages staged over its PCIe link) or on its host CPU (virtual clock)", NULL, WHEN_START, SCOPE_DIST, 0, 0, 0, NULL, NULL},
    {"queue", OPT_CHOICE, F(queue_locked), "lockfree|locked", NULL, 0, 0, "MODE", "--ranks: host threads write messages at precomputed positions (NeutronStar 4.3) or append them under one lock (the baseline); its cost is on the virtual clock", NULL, WHEN_EPOCH, SCOPE_DIST, 0, 0, 0, NULL, NULL},
    {"network", OPT_STR, F(network), NULL, NULL, 0, 0, "NAME", "--ranks: emulated cluster network (gnnscope topologies)", network_names, WHEN_EPOCH, SCOPE_DIST, 0, 0, 0, NULL, NULL},
    {"rank-timeout", OPT_DOUBLE, F(rank_timeout), NULL, NULL, 1, 86400, "SECONDS", "--ranks: the longest a rank waits for the others (an exchange, a collective, the epoch boundary) before the job ends, naming the rank not heard from", NULL, WHEN_START, SCOPE_DIST, 0, 0, 0, NULL, NULL},
};
#undef F

const opt_t *knob_table(int *n)
{
    *n = (int)(sizeof table / sizeof table[0]);
    return table;
}

const opt_t *knob_find(const char *name)
{
    int n;
    const opt_t *t = knob_table(&n);
    return opt_find(t, n, name, strlen(name));
}

int knob_applies(const opt_t *o, const run_kind_t *k)
{
    return k->driver == DRIVER_DIST ? o->scope != SCOPE_STREAM : o->scope != SCOPE_DIST;
}

const char *knob_refusal(const opt_t *o, const run_kind_t *k)
{
    if (knob_applies(o, k)) return NULL;
    return k->driver == DRIVER_DIST ? "a streaming knob; the ranks of a distributed run train in host memory"
                                    : "applies to distributed runs (restart with --ranks N)";
}

int knob_in_force(const opt_t *o, const run_kind_t *k)
{
    if (k->driver == DRIVER_SAMPLED && (o->flags & OPTF_SAMPLED)) return 1;
    int streams = o->scope == SCOPE_STREAM || (o->scope == SCOPE_SPLIT && k->driver != DRIVER_DIST);
    return knob_applies(o, k) && !(streams && k->engine != ENGINE_STREAM);
}

int knob_parse(train_cfg_t *c, const char *name, const char *value, const knob_facts_t *facts, gs_err_t *err)
{
    const opt_t *o = knob_find(name);
    if (!o) return gs_fail(err, GS_EINPUT, "set: unknown knob '%s' (see 'knobs')", name);
    if (o->when == WHEN_START) return gs_fail(err, GS_EINPUT, "set: %s is fixed for the run (restart with --%s)", name, name);
    int dist = facts && facts->kind.driver == DRIVER_DIST;
    const char *refused = facts ? knob_refusal(o, &facts->kind) : NULL;
    if (refused) return gs_fail(err, GS_EINPUT, "set %s: %s", name, refused);
    int streams = o->scope == SCOPE_STREAM || (o->scope == SCOPE_SPLIT && !dist);
    if (streams && c->batch_size > 0)
        return gs_fail(err, GS_EINPUT, "set %s: a streaming knob, and this run trains sampled batches in host memory "
                                       "(set batch-size full to stream again)", name);
    char why[448];
    train_cfg_t next = *c;
    if (opt_parse(o, &next, value, why, sizeof why)) return gs_fail(err, GS_EINPUT, "set %s: %s", name, why);
    int rc = o->check ? o->check(&next, facts, err) : GS_OK;
    if (rc) return rc;
    if (streams) next.stream = 1; /* a device knob turns streaming on */
    *c = next;
    return GS_OK;
}

/* Whether a knob of the table that `pick` takes (with its argument) differs between a and b. */
static int changed(const train_cfg_t *a, const train_cfg_t *b, int (*pick)(const opt_t *o, const void *arg), const void *arg)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (!pick(&table[i], arg)) continue;
        char x[4200], y[4200];
        opt_format(&table[i], a, x, sizeof x), opt_format(&table[i], b, y, sizeof y);
        if (strcmp(x, y) != 0) return 1;
    }
    return 0;
}

static int applies_when(const opt_t *o, const void *when) { return o->when == *(const opt_when_t *)when; }
static int outside(const opt_t *o, const void *kind) { return o->when != WHEN_START && !knob_applies(o, kind); }

int knob_changed(const train_cfg_t *a, const train_cfg_t *b, opt_when_t when) { return changed(a, b, applies_when, &when); }

int knob_changed_outside(const train_cfg_t *a, const train_cfg_t *b, const run_kind_t *k) { return changed(a, b, outside, k); }

void knob_text(const opt_t *o, const train_cfg_t *c, const knob_facts_t *live, char *out, size_t n)
{
    if (!o->text || !o->text(c, live, out, n)) opt_format(o, c, out, n);
}
