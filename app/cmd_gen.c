/* cmd_gen.c - `gnnscope gen`: writes a synthetic power-law graph with
 * planted classes in the OGB raw layout (datasets/generator.h). */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "datasets/generator.h"
#include "cli.h"
#include "commands.h"

typedef struct {
    gen_params_t p;
    char out[4096];
    int force;
} gen_opts_t;

#define F(field) offsetof(gen_opts_t, field), sizeof(((gen_opts_t *)0)->field)
static const opt_t flags[] = {
    {"nodes", OPT_I64, F(p.nodes), NULL, NULL, 2, 2147483646.0, "N", "vertices", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"avg-degree", OPT_DOUBLE, F(p.avg_degree), NULL, NULL, 1e-6, 1e6, "D", "directed edges per vertex (self-loops excluded)", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"feats", OPT_I64, F(p.feats), NULL, NULL, 1, 65536, "F", "feature columns", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"classes", OPT_I64, F(p.classes), NULL, NULL, 2, 1024, "C", "planted classes", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"seed", OPT_U64, F(p.seed), NULL, NULL, 0, 9e18, "S", "seed; the same seed gives the same graph", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"hubs", OPT_CHOICE, F(p.hubs), "random|first|last", NULL, 0, 0, "ORDER", "where the high-degree vertices are numbered (first: lowest ids; last: highest)", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"ids", OPT_CHOICE, F(p.local), "random|local", NULL, 0, 0, "ORDER", "how classes are numbered (local: each class's vertices together, so most edges join nearby ids, as in a crawl)", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"out", OPT_STR, F(out), NULL, NULL, 0, 0, "DIR", "output directory (required)", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
    {"force", OPT_BOOL, F(force), NULL, NULL, 0, 0, "", "write into a directory that already has files (they are overwritten)", NULL, WHEN_START, 0, 0, 0, 0, NULL, NULL},
};
#undef F

/* Whether out may be written: absent, or an empty directory, or --force. */
static int out_ok(const char *out, int force)
{
    struct stat st;
    if (stat(out, &st) != 0) return 1;
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "gnnscope: error: gnnscope gen: --out %s: exists and is not a directory\n", out);
        return 0;
    }
    DIR *d = opendir(out);
    struct dirent *e;
    int files = 0;
    while (d && (e = readdir(d)))
        files += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d) closedir(d);
    if (!files || force) return 1;
    fprintf(stderr, "gnnscope: error: gnnscope gen: --out %s: the directory is not empty (add --force to overwrite its files)\n", out);
    return 0;
}

int cmd_gen(int argc, char **argv)
{
    gen_opts_t o = {.p = {.nodes = 10000, .avg_degree = 10, .feats = 64, .classes = 8, .seed = 1}};
    opt_group_t g = {flags, (int)(sizeof flags / sizeof flags[0]), &o};
    int help = 0;
    gs_err_t err = {0};
    if (cli_parse("gnnscope gen", &g, 1, argc, argv, &help, &err)) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    if (help) {
        cli_print_help("usage: gnnscope gen --out DIR [flags]\n\nGenerates a power-law graph with planted classes and "
                       "label-correlated features,\nwritten in the OGB raw node-property layout.",
                       &g, 1);
        return 0;
    }
    const char *out = o.out;
    gen_params_t p = o.p;
    if (!out[0]) {
        fprintf(stderr, "gnnscope: error: gnnscope gen: --out DIR is required\n");
        return 2;
    }
    if (!out_ok(out, o.force)) return 2;
    dataset_t d;
    int rc = gen_graph(&d, &p, &err);
    if (!rc) rc = ogb_write(&d, out, &err);
    if (rc) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        dataset_free(&d);
        return rc == GS_EINPUT ? 2 : 1;
    }
    printf("gnnscope: wrote %s: %lld nodes, %lld undirected edges, %lld features, %lld classes\n", out, (long long)d.n,
           (long long)d.npairs, (long long)d.f, (long long)d.c);
    dataset_free(&d);
    return 0;
}
