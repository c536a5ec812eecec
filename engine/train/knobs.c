/* knobs.c - see knobs.h. The table below is the one place a run option's
 * name, range, help, key and `when` are written. Pending values live in
 * t->pending (a copy of the configuration) until the next epoch boundary. */
#include "knobs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/machine/netmodel.h"
#include "base/membudget.h"
#include "driver_dist.h"

#define F(field) offsetof(train_cfg_t, field), sizeof(((train_cfg_t *)0)->field)

static const opt_t table[] = {
    {"dataset", OPT_STR, F(dataset), NULL, NULL, 0, 0, "cora|DIR|FILE", "shipped name, OGB raw directory or SNAP edge list", NULL, WHEN_START, SCOPE_ANY, 0, 0},
    {"model", OPT_STR, F(model), NULL, NULL, 0, 0, "NAME", "the GNN model", model_names, WHEN_START, SCOPE_ANY, 0, 0},
    {"layers", OPT_INT, F(layers), NULL, NULL, 1, 64, "L", "number of GNN layers (GG-NN: propagation steps)", NULL, WHEN_START, SCOPE_ANY, 0, 0},
    {"hidden", OPT_I64, F(hidden), NULL, NULL, 1, 65536, "H", "hidden width (per head for GAT)", NULL, WHEN_START, SCOPE_ANY, 0, 0},
    {"heads", OPT_INT, F(heads), NULL, NULL, 1, 64, "K", "attention heads (GAT hidden layers)", NULL, WHEN_START, SCOPE_ANY, 0, 0},
    {"epochs", OPT_INT, F(epochs), NULL, NULL, 0, 1e7, "E", "total epochs (a resumed run continues up to E)", NULL, WHEN_START, SCOPE_ANY, 0, 0},
    {"lr", OPT_FLOAT, F(lr), NULL, NULL, 1e-9, 10, "X", "Adam learning rate", NULL, WHEN_EPOCH, SCOPE_ANY, 0, 0},
    {"weight-decay", OPT_FLOAT, F(weight_decay), NULL, NULL, 0, 10, "X", "L2 weight decay added to gradients", NULL, WHEN_START, SCOPE_ANY, 0, 0},
    {"dropout", OPT_FLOAT, F(dropout), NULL, NULL, 0, 0.99, "X", "dropout probability", NULL, WHEN_START, SCOPE_ANY, 0, 0},
    {"seed", OPT_U64, F(seed), NULL, NULL, 0, 9e18, "S", "seed for initialisation and dropout masks", NULL, WHEN_START, SCOPE_ANY, 0, 0},
    {"threads", OPT_INT, F(threads), NULL, "all", 0, 1024, "T", "worker threads (all: one per core)", NULL, WHEN_START, SCOPE_ANY, 0, 0},
    {"dkp", OPT_CHOICE, F(dkp), "off|on|auto", NULL, 0, 0, "MODE", "reorder aggregation and combination (auto: by GraphTensor's cost model, per layer, for a sampled run's block sizes too)", NULL, WHEN_PROGRAM, SCOPE_ANY, '7', 0},
    {"fuse", OPT_CHOICE, F(fuse), "off|on", NULL, 0, 0, "MODE", "NeuGraph 3.4: hoist src/dst-only ops out of ApplyEdge, fuse elementwise edge stages into one gather (off: the plain SAGA program)", NULL, WHEN_PROGRAM, SCOPE_ANY, '0', 0},
    {"batch-size", OPT_I64, F(batch_size), NULL, "full", 1, 1e12, "B", "sampled mini-batch training: B training vertices a step (full: full-batch; more than the training set: one batch)", NULL, WHEN_EPOCH, SCOPE_ANY, 0, 0},
    {"fanout", OPT_LIST, F(fanout), NULL, NULL, 1, 100000, "K1,K2,..", "--batch-size: neighbours sampled per vertex and hop, the targets' own first (one value: every hop)", NULL, WHEN_EPOCH, SCOPE_ANY, 0, 0},
    {"prepro", OPT_CHOICE, F(prepro), "serial|pipelined", NULL, 0, 0, "MODE", "--batch-size: preprocessing in order, or GraphTensor's scheduler (subtasks overlapped, one batch ahead of training)", NULL, WHEN_EPOCH, SCOPE_ANY, 0, 0},
    {"feat-norm", OPT_CHOICE, F(feat_norm), "auto|row|none", NULL, 0, 0, "MODE", "row-normalise features (auto: if non-negative)", NULL, WHEN_START, SCOPE_ANY, 0, 0},
    {"no-cache", OPT_BOOL, F(no_cache), NULL, NULL, 0, 0, "", "do not read or write the binary dataset cache", NULL, WHEN_START, SCOPE_ANY, 0, 0},
    {"devices", OPT_INT, F(devices), NULL, NULL, 1, TOPO_MAX_DEV, "N", "emulated or logical devices", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0},
    {"device-mem", OPT_SIZE, F(device_mem), NULL, "none", 1024, 1099511627776.0, "BYTES", "memory cap per device", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0},
    {"topology", OPT_STR, F(topology), NULL, NULL, 0, 0, "NAME", "interconnect model (gnnscope topologies)", topology_names_joined, WHEN_REOPEN, SCOPE_STREAM, 0, 0},
    {"link-scale", OPT_DOUBLE, F(link_scale), NULL, "auto", 0.01, 1e6, "X", "link bandwidth factor (auto: 1 on the virtual clock, host/GPU FLOP/s on the wall clock)", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0},
    {"links", OPT_CHOICE, F(links_native), "model|native", NULL, 0, 0, "MODE", "native: copies are plain memcpys", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0},
    {"clock", OPT_CHOICE, F(clock), "virtual|wall", NULL, 0, 0, "CLOCK", "emulated time: the modeled machine's (virtual) or the host's", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0},
    {"kernel-time", OPT_CHOICE, F(ktime), "roofline|measured", NULL, 0, 0, "MODEL", "virtual clock: device kernels by the GPU's roofline (deterministic) or by measured CPU time", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0},
    {"chunks", OPT_INT, F(chunks), NULL, "auto", 1, 4096, "P", "vertex intervals (auto: the fewest that fit --device-mem)", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0},
    {"order", OPT_CHOICE, F(order), "none|random|metis", NULL, 0, 0, "ORDER", "vertex order before chunking", NULL, WHEN_REOPEN, SCOPE_STREAM, '5', 0},
    {"partitioner", OPT_CHOICE, F(partitioner), "equal-vertex|equal-edge|roc", NULL, 0, 0, "NAME", "where the intervals (or the ranks' ranges) are cut (roc: ROC's cost model, refit every epoch)", NULL, WHEN_REOPEN, SCOPE_SPLIT, '9', 0},
    {"selective", OPT_CHOICE, F(knobs.selective), "off|on|auto", NULL, 0, 0, "MODE", "filter source rows on the host (NeuGraph 3.2)", NULL, WHEN_EPOCH, SCOPE_STREAM, '1', 0},
    {"pipeline", OPT_CHOICE, F(knobs.pipeline), "off|on", NULL, 0, 0, "MODE", "double-buffer copies against compute", NULL, WHEN_EPOCH, SCOPE_STREAM, '2', 0},
    {"subchunks", OPT_INT, F(knobs.subchunks), NULL, NULL, 1, 64, "K", "blocks per source interval", NULL, WHEN_REOPEN, SCOPE_STREAM, 0, 0},
    {"swap", OPT_CHOICE, F(knobs.swap), "off|on", NULL, 0, 0, "MODE", "reorder blocks by profiled times (NeuGraph Fig. 6; with multidev naive)", NULL, WHEN_EPOCH, SCOPE_STREAM, '3', 0},
    {"multidev", OPT_CHOICE, F(knobs.multidev), "naive|chain|ring", NULL, 0, 0, "MODE", "how devices share source blocks", NULL, WHEN_EPOCH, SCOPE_STREAM, '4', 0},
    {"memplan", OPT_CHOICE, F(knobs.memplan), "stream|lru|roc", NULL, 0, 0, "PLAN", "tensors kept on the devices between ops (roc: ROC's DP)", NULL, WHEN_EPOCH, SCOPE_STREAM, '6', 0},
    {"dep", OPT_CHOICE, F(dep), "cache|comm|hybrid", NULL, 0, 0, "MODE", "--ranks: remote dependencies cached (DepCache), communicated (DepComm) or split by Algorithm 4 (NeutronStar 3)", NULL, WHEN_EPOCH, SCOPE_DIST, '8', 0},
    {"dep-ratio", OPT_DOUBLE, F(dep_ratio), NULL, "auto", 0, 1, "X", "--dep hybrid: the fraction of each layer's remote dependencies cached (auto: Algorithm 4)", NULL, WHEN_EPOCH, SCOPE_DIST, 0, -1},
    {"dep-mem", OPT_SIZE, F(dep_mem), NULL, "none", 1024, 1099511627776.0, "BYTES", "--dep hybrid: memory limit S for cached dependencies", NULL, WHEN_EPOCH, SCOPE_DIST, 0, 0},
    {"ring", OPT_CHOICE, F(ring), "off|on", NULL, 0, 0, "MODE", "--ranks: rank i sends its j-th chunk to (i+j+1) % m (NeutronStar 4.3)", NULL, WHEN_EPOCH, SCOPE_DIST, 0, 0},
    {"overlap", OPT_CHOICE, F(overlap), "off|on", NULL, 0, 0, "MODE", "--ranks: compute local and cached rows while mirrors arrive", NULL, WHEN_EPOCH, SCOPE_DIST, 0, 0},
    {"network", OPT_STR, F(network), NULL, NULL, 0, 0, "NAME", "--ranks: emulated cluster network (gnnscope topologies)", network_names, WHEN_EPOCH, SCOPE_DIST, 0, 0},
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

knob_facts_t knob_facts(const trainer_t *t)
{
    knob_facts_t f = {t->data.g.n, t->data.g.m, 0, t->dist != NULL, t->ex.nhops};
    if (t->data.g.n > 0) {
        int k = t->cfg.knobs.subchunks < 1 ? 1 : t->cfg.knobs.subchunks;
        f.min_device_mem = stream_working_set(&t->model.prog, t->data.g.n, (int)t->data.g.n, k);
    }
    return f;
}

int knob_applies(const opt_t *o, const knob_facts_t *facts)
{
    return facts->distributed ? o->scope != SCOPE_STREAM : o->scope != SCOPE_DIST;
}

int knob_parse(train_cfg_t *c, const char *name, const char *value, const knob_facts_t *facts, gs_err_t *err)
{
    const opt_t *o = knob_find(name);
    if (!o) return gs_fail(err, GS_EINPUT, "set: unknown knob '%s' (see 'knobs')", name);
    if (o->when == WHEN_START) return gs_fail(err, GS_EINPUT, "set: %s is fixed for the run (restart with --%s)", name, name);
    if (facts && !knob_applies(o, facts))
        return gs_fail(err, GS_EINPUT, facts->distributed ? "set %s: a streaming knob; the ranks of a distributed run train in host memory"
                                                         : "set %s: applies to distributed runs (restart with --ranks N)", name);
    char why[256];
    train_cfg_t next = *c;
    if (opt_parse(o, &next, value, why, sizeof why)) return gs_fail(err, GS_EINPUT, "set %s: %s", name, why);
    if (facts && !strcmp(name, "chunks") && next.chunks > facts->vertices)
        return gs_fail(err, GS_EINPUT, "set chunks: %d is more than the graph's %lld vertices", next.chunks,
                       (long long)facts->vertices);
    if (facts && (!strcmp(name, "chunks") || !strcmp(name, "subchunks")) && next.chunks > 0) {
        char what[96];
        int k = next.knobs.subchunks < 1 ? 1 : next.knobs.subchunks;
        snprintf(what, sizeof what, "set %s: %d chunks of %d sub-chunks", name, next.chunks, k);
        int rc = gs_mem_check(streamer_memory_bytes(facts->vertices, facts->edges, next.chunks, k), what, err);
        if (rc) return rc;
    }
    if (facts && !strcmp(name, "device-mem") && next.device_mem && next.device_mem < facts->min_device_mem)
        return gs_fail(err, GS_EINPUT, "set device-mem: %s is below the %llu bytes this model needs at any chunk count", value,
                       (unsigned long long)facts->min_device_mem);
    if (o->scope == SCOPE_STREAM || (o->scope == SCOPE_SPLIT && !(facts && facts->distributed)))
        next.stream = 1; /* a device knob turns streaming on */
    if (!strcmp(name, "devices")) { /* more devices than the topology has: the smallest shipped one that fits */
        topology_t tp;
        const char *fit = topology_for_devices(next.devices);
        if (topology_get(next.topology, &tp) == 0 && tp.ndev < next.devices && fit)
            snprintf(next.topology, sizeof next.topology, "%s", fit);
    }
    if (facts) {
        int rc = trainer_sampled_check(&next, facts->hops, err);
        if (rc) return rc;
    }
    *c = next;
    return GS_OK;
}

int knob_set(trainer_t *t, const char *name, const char *value, gs_err_t *err)
{
    train_cfg_t c = t->has_pending ? t->pending : t->cfg;
    knob_facts_t facts = knob_facts(t);
    int rc = knob_parse(&c, name, value, &facts, err);
    if (!rc) knob_set_all(t, &c);
    return rc;
}

void knob_set_all(trainer_t *t, const train_cfg_t *want)
{
    t->pending = *want;
    t->has_pending = 1;
}

void knob_text(const trainer_t *t, const train_cfg_t *c, const opt_t *o, char *out, size_t n)
{
    int running = c == &t->cfg && t->streaming;
    if (running && !strcmp(o->name, "chunks")) snprintf(out, n, "%d%s", t->stream.chunks, c->chunks ? "" : " (auto)");
    else if (running && !strcmp(o->name, "link-scale") && c->link_scale == 0) snprintf(out, n, "auto (%.4g)", t->stream.link_scale);
    else opt_format(o, c, out, n);
}

int knob_get(const trainer_t *t, const char *name, int pending, char *out, size_t outsz, gs_err_t *err)
{
    const opt_t *o = knob_find(name);
    if (!o) {
        gs_fail(err, GS_EINPUT, "get: unknown knob '%s' (see 'knobs')", name);
        return -1;
    }
    if (pending && !t->has_pending) return 0;
    char now[96], then[96];
    knob_text(t, &t->cfg, o, now, sizeof now);
    if (!pending) {
        snprintf(out, outsz, "%s", now);
        return 1;
    }
    knob_text(t, &t->pending, o, then, sizeof then);
    if (strcmp(now, then) == 0) return 0;
    snprintf(out, outsz, "%s", then);
    return 1;
}

/* Whether a knob that reopens the devices differs between a and b. */
static int needs_reopen(const train_cfg_t *a, const train_cfg_t *b)
{
    if (a->stream != b->stream) return 1;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (table[i].when != WHEN_REOPEN) continue;
        char x[4200], y[4200];
        opt_format(&table[i], a, x, sizeof x), opt_format(&table[i], b, y, sizeof y);
        if (strcmp(x, y) != 0) return 1;
    }
    return 0;
}

/* Closes the streaming engine and opens it again under t->cfg; on failure
 * the engine is closed. */
static int reopen(trainer_t *t, gs_err_t *err)
{
    trainer_stream_close(t);
    int rc = trainer_stream_open(t, err);
    if (rc) trainer_stream_close(t);
    return rc;
}

int knob_apply(trainer_t *t, gs_err_t *err)
{
    if (!t->has_pending) return GS_OK;
    train_cfg_t old = t->cfg, want = t->pending;
    t->has_pending = 0;
    int rebuild = want.dkp != old.dkp || want.fuse != old.fuse; /* new gathers: a streamed run re-plans its chunks too */
    if (t->dist) { /* a rank: its engine takes the distributed knobs and the partitioner; streaming ones do not apply */
        train_cfg_t same_split = want;
        same_split.partitioner = old.partitioner;
        if (needs_reopen(&old, &same_split)) return gs_fail(err, GS_EINPUT, "device and streaming knobs do not apply to distributed runs");
        t->cfg = want;
        int rc = rebuild ? trainer_rebuild_program(t, err) : GS_OK;
        if (!rc) rc = trainer_dist_apply(t, &old, err);
        if (rc) t->cfg = old;
        return rc;
    }
    if (!needs_reopen(&old, &want) && !(rebuild && want.stream)) {
        t->cfg = want;
        int rc = rebuild ? trainer_rebuild_program(t, err) : GS_OK;
        if (rc) t->cfg = old;
        if (t->streaming) streamer_set_knobs(&t->stream.streamer, &t->cfg.knobs);
        return rc;
    }
    if (t->kp.K->device) /* tensors on a GPU: the streamed engine keeps them on the host */
        return gs_fail(err, GS_EINPUT, "streaming knobs apply to streamed runs; this run trains in GPU memory "
                                       "(restart with --backend cuda and --device-mem or --chunks)");
    t->cfg = want;
    int rc = rebuild ? trainer_rebuild_program(t, err) : GS_OK;
    if (!rc) rc = reopen(t, err);
    if (rc) { /* put the previous configuration back */
        gs_err_t ignored;
        t->cfg = old;
        if (rebuild) trainer_rebuild_program(t, &ignored);
        if (reopen(t, &ignored)) t->cfg.stream = 0; /* the old devices no longer open: train in memory */
    }
    return rc;
}
