/* machine_file.c - see machine_file.h. */
#include "machine_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "catalog.h"
#include "machine_build.h"
#include "machines_shipped.h"
#include "netmodel.h"

#define MAX_TOKENS 16
#define MAX_FILE (64 * 1024)

typedef struct {
    mb_t b;
    const char *src;
    int line;
    gs_err_t *err;
    int have_host, have_gpu;
    char **tok;
    int ntok;
} parser_t;

static int bad(parser_t *p, const char *field, const char *fmt, const char *what)
{
    char why[200];
    snprintf(why, sizeof why, fmt, what);
    return gs_fail(p->err, GS_EINPUT, "%s:%d: %s: %s", p->src, p->line, field, why);
}

/* A number > 0 (bytes with K/M/G/T for mem); -1 with the error set. */
static int number(parser_t *p, const char *field, const char *s, int bytes, double *out)
{
    uint64_t v;
    char *end;
    errno = 0;
    double x = bytes ? (gs_parse_bytes(s, &v) == 0 ? (double)v : -1) : strtod(s, &end);
    if (!bytes && (errno || end == s || *end)) x = -1;
    if (!isfinite(x) || x <= 0) {
        bad(p, field, "'%s' is not a positive number", s);
        return -1;
    }
    *out = x;
    return 0;
}

/* An integer in [lo, hi]; -1 with the error set. */
static int whole(parser_t *p, const char *field, const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi) {
        char why[96];
        snprintf(why, sizeof why, "'%%s' is not an integer in [%d, %d]", lo, hi);
        bad(p, field, why, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* Optional "key value" pairs from token `from`: each key in keys ("bw",
 * "lat", ...) stores into vals[i] (bytes for the key "mem"). */
static int options(parser_t *p, int from, const char *const *keys, double *vals)
{
    for (int i = from; i < p->ntok; i += 2) {
        int k = 0;
        while (keys[k] && strcmp(keys[k], p->tok[i]) != 0)
            k++;
        if (!keys[k]) return bad(p, p->tok[0], "unknown field '%s'", p->tok[i]);
        if (i + 1 >= p->ntok) return bad(p, p->tok[i], "%s", "needs a value");
        if (number(p, p->tok[i], p->tok[i + 1], strcmp(keys[k], "mem") == 0, &vals[k])) return GS_EINPUT;
    }
    return GS_OK;
}

static int too_many_links(parser_t *p) { return bad(p, p->tok[0], "more than %s directed links", "64"); }

static int expect(parser_t *p, int n, const char *form)
{
    if (p->ntok < n) return bad(p, p->tok[0], "expected '%s'", form);
    return GS_OK;
}

static int st_machine(parser_t *p)
{
    if (expect(p, 2, "machine NAME") || p->ntok > 2)
        return p->ntok > 2 ? bad(p, "machine", "%s", "one name, no spaces") : GS_EINPUT;
    const char *s = p->tok[1];
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
            return bad(p, "machine", "'%s': letters, digits, '.', '_' and '-' only", s);
    if (strlen(s) >= sizeof p->b.t->name) return bad(p, "machine", "'%s' is too long", s);
    snprintf(p->b.t->name, sizeof p->b.t->name, "%s", s);
    return GS_OK;
}

static int st_host(parser_t *p)
{
    static const char *const keys[] = {"sockets", "flops", "bw", NULL};
    if (expect(p, 2, "host CPU [sockets N] [flops F] [bw B]")) return GS_EINPUT;
    if (p->have_host) return bad(p, "host", "%s", "given twice");
    const cpu_model_t *c = cpu_model_find(p->tok[1]);
    if (!c) return bad(p, "host", "unknown CPU '%s' (see gnnscope topologies --parts)", p->tok[1]);
    double v[3] = {1, cpu_socket_flops(c), cpu_socket_bw(c)};
    if (options(p, 2, keys, v)) return GS_EINPUT;
    if (v[0] != 1 && v[0] != 2) return bad(p, "sockets", "%s", "must be 1 or 2");
    topology_t *t = p->b.t;
    snprintf(t->host_model, sizeof t->host_model, "%s", c->name);
    t->sockets = (int)v[0], t->host_flops = v[1] * v[0], t->host_bw = v[2] * v[0];
    for (int k = 0; k < t->sockets; k++) {
        mb_node_t *s = &p->b.node[p->b.nnodes++];
        snprintf(s->label, sizeof s->label, "host");
        snprintf(s->name, sizeof s->name, "socket%d", k);
        s->parent = -1, s->socket = k, s->down = s->up = -1;
    }
    p->have_host = 1;
    return GS_OK;
}

static int st_gpu(parser_t *p)
{
    static const char *const keys[] = {"flops", "bw", "mem", "launch", NULL};
    if (expect(p, 2, "gpu MODEL [flops F] [bw B] [mem BYTES] [launch S]")) return GS_EINPUT;
    if (p->have_gpu) return bad(p, "gpu", "%s", "given twice (every GPU of a machine is one model)");
    const gpu_model_t *g = gpu_model_find(p->tok[1]);
    if (!g) return bad(p, "gpu", "unknown model '%s' (see gnnscope topologies --parts)", p->tok[1]);
    double v[4] = {gpu_model_flops(g), gpu_model_bw(g), g->mem, g->launch_s};
    if (options(p, 2, keys, v)) return GS_EINPUT;
    topology_t *t = p->b.t;
    snprintf(t->gpu_model, sizeof t->gpu_model, "%s", g->name);
    t->gpu_flops = v[0], t->gpu_bw = v[1], t->gpu_mem = v[2], t->launch_s = v[3];
    p->have_gpu = 1;
    return GS_OK;
}

/* A link kind at token i with optional bw/lat after it. */
static int link_spec(parser_t *p, int i, double *bw, double *lat)
{
    static const char *const keys[] = {"bw", "lat", NULL};
    link_kind_t k;
    if (link_kind_find(p->tok[i], &k))
        return bad(p, "link", "unknown kind '%s' (pcie3x16, pcie4x8, nvlink2, qpi, upi, ...)", p->tok[i]);
    double v[2] = {k.bw, k.latency};
    if (options(p, i + 1, keys, v)) return GS_EINPUT;
    *bw = v[0], *lat = v[1];
    return GS_OK;
}

static int st_socket_link(parser_t *p)
{
    double bw = 0, lat = 0;
    if (expect(p, 2, "socket-link KIND [bw B] [lat S]") || link_spec(p, 1, &bw, &lat)) return GS_EINPUT;
    if (!p->have_host || p->b.t->sockets != 2)
        return bad(p, "socket-link", "%s", "needs an earlier 'host ... sockets 2'");
    if (p->b.socket_link[0] >= 0) return bad(p, "socket-link", "%s", "given twice");
    char from[16];
    snprintf(from, sizeof from, "%.8s0", p->tok[1]);
    p->b.socket_link[0] = mb_link(&p->b, from, "1", bw, lat);
    snprintf(from, sizeof from, "%.8s1", p->tok[1]);
    p->b.socket_link[1] = mb_link(&p->b, from, "0", bw, lat);
    return p->b.socket_link[1] < 0 ? too_many_links(p) : GS_OK;
}

/* The node a statement names as PARENT ("socket0", a switch), or -1. */
static int parent_node(parser_t *p, const char *name)
{
    for (int i = 0; i < p->b.nnodes; i++)
        if (strcmp(p->b.node[i].name, name) == 0 && strncmp(p->b.node[i].label, "gpu", 3) != 0) return i;
    bad(p, "on", "'%s' is not a socket or an earlier switch", name);
    return -1;
}

/* A node under `parent`, joined by a duplex link. */
static int add_node(parser_t *p, int parent, const char *label, const char *name, double bw, double lat)
{
    mb_t *b = &p->b;
    if (b->nnodes >= MB_MAX_NODES) return bad(p, p->tok[0], "more than %s switches and GPUs", "40");
    mb_node_t *v = &b->node[b->nnodes];
    snprintf(v->label, sizeof v->label, "%s", label);
    snprintf(v->name, sizeof v->name, "%s", name);
    v->parent = parent, v->socket = b->node[parent].socket;
    v->down = mb_link(b, b->node[parent].label, label, bw, lat);
    v->up = mb_link(b, label, b->node[parent].label, bw, lat);
    if (v->up < 0) return too_many_links(p);
    b->nnodes++;
    return GS_OK;
}

/* "switch NAME on PARENT link KIND ..." or "gpus N on PARENT link KIND ...". */
static int st_attach(parser_t *p, int gpus)
{
    double bw = 0, lat = 0;
    const char *form = gpus ? "gpus N on PARENT link KIND" : "switch NAME on PARENT link KIND";
    if (expect(p, 6, form)) return GS_EINPUT;
    if (strcmp(p->tok[2], "on") || strcmp(p->tok[4], "link")) return bad(p, p->tok[0], "expected '%s'", form);
    if (!p->have_host) return bad(p, p->tok[0], "%s", "needs an earlier 'host' line (it makes the sockets)");
    int parent = parent_node(p, p->tok[3]), n = 1;
    if (parent < 0 || link_spec(p, 5, &bw, &lat)) return GS_EINPUT;
    topology_t *t = p->b.t;
    if (!gpus) {
        if (strlen(p->tok[1]) >= 12 || strncmp(p->tok[1], "gpu", 3) == 0 || strncmp(p->tok[1], "socket", 6) == 0)
            return bad(p, "switch", "'%s': a name under 12 characters, not gpuN or socketN", p->tok[1]);
        for (int i = 0; i < p->b.nnodes; i++)
            if (strcmp(p->b.node[i].name, p->tok[1]) == 0) return bad(p, "switch", "'%s' is named twice", p->tok[1]);
        return add_node(p, parent, p->tok[1], p->tok[1], bw, lat);
    }
    if (whole(p, "gpus", p->tok[1], 1, TOPO_MAX_DEV - t->ndev, &n)) return GS_EINPUT;
    for (int i = 0; i < n; i++) {
        char label[24];
        snprintf(label, sizeof label, "gpu%d", t->ndev);
        if (add_node(p, parent, label, label, bw, lat)) return GS_EINPUT;
        p->b.gpu_node[t->ndev++] = p->b.nnodes - 1;
    }
    return GS_OK;
}

static int nv_pair(parser_t *p, int a, int c, double bw, double lat)
{
    char from[16], to[16];
    if (p->b.nv[a][c] >= 0) {
        snprintf(from, sizeof from, "gpu%d", a);
        return bad(p, "nvlink", "%s and its peer are joined twice", from);
    }
    snprintf(from, sizeof from, "nv%d", a), snprintf(to, sizeof to, "%d", c);
    if ((p->b.nv[a][c] = mb_link(&p->b, from, to, bw, lat)) < 0) return too_many_links(p);
    return GS_OK;
}

/* "nvlink A B KIND [links K]" or "nvlink all KIND [links K]". */
static int st_nvlink(parser_t *p)
{
    static const char *const keys[] = {"links", NULL};
    int all = p->ntok > 1 && strcmp(p->tok[1], "all") == 0, at = all ? 2 : 3, a = 0, c = 0, n = p->b.t->ndev;
    link_kind_t k;
    if (expect(p, at + 1, "nvlink A B KIND [links K]' or 'nvlink all KIND [links K]")) return GS_EINPUT;
    if (!all && (whole(p, "nvlink", p->tok[1], 0, n - 1, &a) || whole(p, "nvlink", p->tok[2], 0, n - 1, &c)))
        return GS_EINPUT;
    if (!all && a == c) return bad(p, "nvlink", "%s", "joins a GPU to itself");
    if (link_kind_find(p->tok[at], &k)) return bad(p, "link", "unknown kind '%s' (nvlink1..nvlink4)", p->tok[at]);
    double v[1] = {1};
    if (options(p, at + 1, keys, v)) return GS_EINPUT;
    if (v[0] != floor(v[0]) || v[0] > 18) return bad(p, "links", "%s", "must be an integer in [1, 18]");
    for (int i = all ? 0 : a; i < (all ? n : a + 1); i++)
        for (int j = all ? 0 : c; j < (all ? n : c + 1); j++)
            if (i != j && nv_pair(p, i, j, k.bw * v[0], k.latency)) return GS_EINPUT;
    if (!all && nv_pair(p, c, a, k.bw * v[0], k.latency)) return GS_EINPUT;
    return GS_OK;
}

static int st_cluster(parser_t *p)
{
    network_t net;
    gs_err_t why;
    topology_t *t = p->b.t;
    if (p->ntok != 5 || strcmp(p->tok[1], "nodes") || strcmp(p->tok[3], "network"))
        return bad(p, "cluster", "expected '%s'", "cluster nodes N network NET");
    if (whole(p, "nodes", p->tok[2], 2, 1024, &t->nodes)) return GS_EINPUT;
    if (network_get(p->tok[4], &net, &why) || net.bw <= 0)
        return bad(p, "network", "unknown network '%s' (see gnnscope topologies)", p->tok[4]);
    snprintf(t->network, sizeof t->network, "%s", net.name);
    return GS_OK;
}

static int st_about(parser_t *p, const char *rest)
{
    while (isspace((unsigned char)*rest))
        rest++;
    if (!*rest) return bad(p, "about", "%s", "needs text");
    snprintf(p->b.t->summary, sizeof p->b.t->summary, "%s", rest);
    return GS_OK;
}

/* One statement; `rest` is the line after its keyword (for about). */
static int statement(parser_t *p, const char *rest)
{
    const char *kw = p->tok[0];
    if (strcmp(kw, "machine") != 0 && !p->b.t->name[0])
        return bad(p, kw, "%s", "the first statement must be 'machine NAME'");
    if (strcmp(kw, "machine") == 0) return p->b.t->name[0] ? bad(p, kw, "%s", "given twice") : st_machine(p);
    if (strcmp(kw, "about") == 0) return st_about(p, rest);
    if (strcmp(kw, "host") == 0) return st_host(p);
    if (strcmp(kw, "gpu") == 0) return st_gpu(p);
    if (strcmp(kw, "socket-link") == 0) return st_socket_link(p);
    if (strcmp(kw, "switch") == 0) return st_attach(p, 0);
    if (strcmp(kw, "gpus") == 0) return st_attach(p, 1);
    if (strcmp(kw, "nvlink") == 0) return st_nvlink(p);
    if (strcmp(kw, "cluster") == 0) return st_cluster(p);
    return bad(p, kw, "%s",
               "unknown statement (machine, about, host, socket-link, gpu, switch, gpus, nvlink, cluster)");
}

/* What the whole file must have said; routes and groups from the tree. */
static int finish(parser_t *p)
{
    topology_t *t = p->b.t;
    char why[128];
    if (!t->name[0]) return bad(p, "machine", "%s", "missing ('machine NAME' first)");
    if (!p->have_host) return bad(p, "host", "%s", "missing (the host CPU)");
    if (!p->have_gpu) return bad(p, "gpu", "%s", "missing (the GPUs' model)");
    if (t->ndev == 0) return bad(p, "gpus", "%s", "missing (no GPU is attached)");
    if (t->sockets == 2 && p->b.socket_link[0] < 0) return bad(p, "socket-link", "%s", "missing (two sockets need it)");
    if (mb_routes(&p->b, why, sizeof why)) return bad(p, "gpus", "%s", why);
    if (!t->summary[0]) snprintf(t->summary, sizeof t->summary, "%d x %s", t->ndev, t->gpu_model);
    return GS_OK;
}

/* Splits line (modified) into tokens; -1 past MAX_TOKENS. */
static int tokenize(char *line, char **tok)
{
    int n = 0;
    for (char *s = strtok(line, " \t\r"); s; s = strtok(NULL, " \t\r")) {
        if (n == MAX_TOKENS) return -1;
        tok[n++] = s;
    }
    return n;
}

int machine_parse(const char *text, const char *source, topology_t *t, gs_err_t *err)
{
    parser_t p = {.src = source, .err = err};
    char line[512], *tok[MAX_TOKENS];
    memset(t, 0, sizeof *t);
    p.b.t = t, t->nodes = 1, p.tok = tok;
    memset(p.b.nv, -1, sizeof p.b.nv);
    p.b.socket_link[0] = p.b.socket_link[1] = -1;
    for (const char *at = text; *at;) {
        const char *eol = strchr(at, '\n');
        size_t len = eol ? (size_t)(eol - at) : strlen(at);
        p.line++;
        if (len >= sizeof line) return bad(&p, "line", "%s", "longer than 511 characters");
        memcpy(line, at, len), line[len] = 0;
        at += len + (eol ? 1 : 0);
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char about[512];
        snprintf(about, sizeof about, "%s", line);
        p.ntok = tokenize(line, tok);
        if (p.ntok < 0 && strcmp(tok[0], "about") != 0) return bad(&p, "line", "%s", "more than 16 words");
        if (p.ntok < 0) p.ntok = MAX_TOKENS;
        if (p.ntok == 0) continue;
        const char *rest = strstr(about, "about");
        if (statement(&p, rest ? rest + 5 : "")) return GS_EINPUT;
    }
    p.tok[0] = "machine";
    return finish(&p);
}

int machine_load(const char *path, topology_t *t, gs_err_t *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return gs_fail(err, GS_EINPUT, "--topology %s: %s", path, strerror(errno));
    char *text = malloc(MAX_FILE + 1);
    size_t n = text ? fread(text, 1, MAX_FILE + 1, f) : 0;
    int failed = ferror(f);
    fclose(f);
    if (!text) return gs_fail(err, GS_EFAIL, "out of memory");
    int rc = GS_OK;
    if (failed)
        rc = gs_fail(err, GS_EINPUT, "--topology %s: cannot read it", path);
    else if (n > MAX_FILE)
        rc = gs_fail(err, GS_EINPUT, "--topology %s: larger than 64 KiB: not a machine file", path);
    else if (memchr(text, 0, n))
        rc = gs_fail(err, GS_EINPUT, "--topology %s: holds a NUL byte: not a machine file", path);
    if (!rc) {
        text[n] = 0;
        rc = machine_parse(text, path, t, err);
    }
    free(text);
    return rc;
}

/* ---------------- topology.h's loading, by name or path ---------------- */

int topology_load(const char *name, topology_t *t, gs_err_t *err)
{
    if (strchr(name, '/')) return machine_load(name, t, err);
    const shipped_machine_t *m = shipped_machine_find(name);
    if (!m) {
        memset(t, 0, sizeof *t);
        return gs_fail(
            err, GS_EINPUT,
            "--topology %s: unknown (a shipped machine: gnnscope topologies; or a machine file's path, with a '/')",
            name);
    }
    char source[64];
    snprintf(source, sizeof source, "shipped machine %s", name);
    return machine_parse(m->text, source, t, err);
}

int topology_get(const char *name, topology_t *t)
{
    gs_err_t err;
    return topology_load(name, t, &err) ? -1 : 0;
}
