/* topology.c - see topology.h: the shipped machines' names and the
 * helpers over a loaded topology. Loading one (topology_load) is the
 * machine file parser's (machine_file.c); the machines themselves are
 * data (machines_shipped.c). */
#include "topology.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "machines_shipped.h"

static const char *names[64];
static char joined[512];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void list_names(void)
{
    int n = 0;
    for (const shipped_machine_t *m; (m = shipped_machine_at(n)) && n < 63; n++) {
        names[n] = m->name;
        snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", n ? "|" : "", m->name);
    }
    names[n] = NULL;
}

const char *const *topology_names(void)
{
    pthread_once(&names_once, list_names);
    return names;
}

const char *topology_names_joined(void)
{
    pthread_once(&names_once, list_names);
    return joined;
}

const char *topology_text(const char *name)
{
    const shipped_machine_t *m = shipped_machine_find(name);
    return m ? m->text : NULL;
}

const char *topology_for_devices(int n)
{
    const char *best = NULL;
    int fewest = TOPO_MAX_DEV + 1;
    topology_t t;
    for (const char *const *nm = topology_names(); *nm; nm++)
        if (topology_get(*nm, &t) == 0 && t.nodes == 1 && t.ndev >= n && t.ndev < fewest) fewest = t.ndev, best = *nm;
    return best;
}

void topology_scale(topology_t *t, double s)
{
    for (int i = 0; i < t->nlinks; i++)
        t->links[i].bw *= s;
}
