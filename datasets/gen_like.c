/* gen_like.c - see gen_like.h. Edge counts are directed edges as the
 * tables give them (NeuGraph's and NeutronStar's average degrees are
 * edges / vertices); OGB's undirected products is counted both ways. */
#include "gen_like.h"

#include <string.h>

static const gen_shape_t shapes[] = {
    /* NeuGraph Table 1 */
    {"pubmed", 19700, 108.4e3, 500, 3, "NeuGraph Table 1"},
    {"blog", 10300, 668.0e3, 128, 39, "NeuGraph Table 1"},
    {"reddit-small", 58200, 1.4e6, 300, 41, "NeuGraph Table 1"},
    {"reddit-full", 2400000, 705.9e6, 300, 50, "NeuGraph Table 1"},
    {"enwiki", 3600000, 276.1e6, 300, 12, "NeuGraph Table 1"},
    {"amazon", 8600000, 231.6e6, 96, 22, "NeuGraph Table 1"},
    /* NGra Table 1: its reddit small, reddit full and enwiki share NeuGraph's names but not its counts */
    {"reddit-middle", 233000, 23.2e6, 602, 41, "NGra Table 1"},
    {"ngra-reddit-small", 46600, 1.4e6, 602, 41, "NGra Table 1"},
    {"ngra-reddit-full", 2200000, 571.0e6, 300, 50, "NGra Table 1"},
    {"ngra-enwiki", 3200000, 222.1e6, 300, 12, "NGra Table 1"},
    /* GraphSAGE's Reddit, as ROC Table 4 counts it (NeutronStar Table 2: 0.23M, 114M, 602, 41) */
    {"reddit", 232965, 114848857, 602, 41, "ROC Table 4"},
    {"roc-amazon", 9430088, 231594310, 300, 24, "ROC Table 4"},
    /* OGB (Hu et al. 2020): ogbn-arxiv, ogbn-products (61,859,140 undirected), ogbn-papers100M */
    {"arxiv", 169343, 1166243, 128, 40, "OGB ogbn-arxiv"},
    {"products", 2449029, 123718280, 100, 47, "OGB ogbn-products"},
    {"papers100m", 111059956, 1615685872.0, 128, 172, "OGB ogbn-papers100M"},
    /* NeutronStar Table 2 */
    {"ns-google", 870000, 5.1e6, 512, 16, "NeutronStar Table 2"},
    {"ns-pokec", 1600000, 30e6, 512, 16, "NeutronStar Table 2"},
    {"ns-livejournal", 4800000, 68e6, 320, 16, "NeutronStar Table 2"},
    {"ns-orkut", 3100000, 117e6, 320, 20, "NeutronStar Table 2"},
    {"ns-wiki-link", 12000000, 378e6, 256, 16, "NeutronStar Table 2"},
    {"ns-twitter", 42000000, 1.5e9, 52, 16, "NeutronStar Table 2"},
    /* GraphTensor Table II (full graphs; the output dimension as classes) */
    {"gt-products", 2000000, 124e6, 100, 47, "GraphTensor Table II"},
    {"gt-citation2", 3000000, 61e6, 128, 2, "GraphTensor Table II"},
    {"gt-papers", 111000000, 2e9, 128, 172, "GraphTensor Table II"},
    {"gt-amazon", 2000000, 264e6, 200, 2, "GraphTensor Table II"},
    {"gt-reddit2", 233000, 23e6, 602, 41, "GraphTensor Table II"},
    {"gt-gowalla", 197000, 2e6, 4353, 2, "GraphTensor Table II"},
    {"gt-google", 916000, 5e6, 4353, 2, "GraphTensor Table II"},
    {"gt-roadnet-ca", 2000000, 6e6, 4353, 2, "GraphTensor Table II"},
    {"gt-wiki-talk", 2000000, 5e6, 4353, 2, "GraphTensor Table II"},
    {"gt-livejournal", 5000000, 96e6, 4353, 2, "GraphTensor Table II"},
};

const gen_shape_t *gen_shape_at(int i)
{
    return i >= 0 && i < (int)(sizeof shapes / sizeof shapes[0]) ? &shapes[i] : NULL;
}

const gen_shape_t *gen_shape_find(const char *name)
{
    for (const gen_shape_t *s = shapes; s < shapes + sizeof shapes / sizeof shapes[0]; s++)
        if (strcmp(s->name, name) == 0) return s;
    return NULL;
}
