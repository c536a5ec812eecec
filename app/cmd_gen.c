/* cmd_gen.c - `gnnscope gen`: writes a synthetic power-law graph with
 * planted classes in the OGB raw layout (datasets/generator.h). */
#include <stdio.h>
#include <string.h>

#include "../datasets/generator.h"
#include "cli.h"
#include "commands.h"

int cmd_gen(int argc, char **argv)
{
    gen_params_t p = {.nodes = 10000, .avg_degree = 10, .feats = 64, .classes = 8, .seed = 1};
    char out[4096] = "";
    const flag_t flags[] = {
        {"nodes", FLAG_I64, &p.nodes, 0, NULL, "N", "vertices", 2, 2147483646.0},
        {"avg-degree", FLAG_DOUBLE, &p.avg_degree, 0, NULL, "D", "directed edges per vertex (self-loops excluded)", 1e-6, 1e6},
        {"feats", FLAG_I64, &p.feats, 0, NULL, "F", "feature columns", 1, 65536},
        {"classes", FLAG_I64, &p.classes, 0, NULL, "C", "planted classes", 2, 1024},
        {"seed", FLAG_U64, &p.seed, 0, NULL, "S", "seed; the same seed gives the same graph", 0, 9e18},
        {"out", FLAG_STR, out, sizeof out, NULL, "DIR", "output directory (required)", 1, 0},
    };
    int nflags = (int)(sizeof flags / sizeof flags[0]), help = 0;
    gs_err_t err = {0};
    if (cli_parse("gnnscope gen", flags, nflags, argc, argv, &help, &err)) {
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    if (help) {
        cli_print_help("usage: gnnscope gen --out DIR [flags]\n\nGenerates a power-law graph with planted classes and "
                       "label-correlated features,\nwritten in the OGB raw node-property layout.",
                       flags, nflags);
        return 0;
    }
    if (!out[0]) {
        fprintf(stderr, "gnnscope: error: gnnscope gen: --out DIR is required\n");
        return 2;
    }
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
