/* gen_like.h - the papers' datasets by shape, for `gen:like=NAME[,scale=S]`
 * (generator.h): each name's published vertex and edge counts, feature
 * width and classes, with the table it comes from (gen_like.c). The
 * generator draws a graph of that shape; its degrees follow the
 * generator's one power law (exponent 2.5), not each graph's own
 * distribution, which the papers do not publish. */
#ifndef GS_GEN_LIKE_H
#define GS_GEN_LIKE_H

#include <stdint.h>

typedef struct {
    const char *name;
    int64_t vertices;
    double edges;   /* directed edges (an undirected edge counted both ways) */
    int64_t feats;
    int64_t classes;
    const char *source;
} gen_shape_t;

const gen_shape_t *gen_shape_find(const char *name);
const gen_shape_t *gen_shape_at(int i); /* NULL past the last */

#endif
