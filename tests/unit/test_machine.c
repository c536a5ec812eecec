/* test_machine.c - machines as data (engine/machine/machine_file.h): every
 * shipped machine parses with its catalog parts; routes follow a
 * multi-level switch tree, cross the socket link and take NVLink where it
 * joins two GPUs; a user's file loads like a shipped one; and each kind of
 * malformed file is refused with its source, line and field. */
/* run-under: asan */
#include "test_util.h"

#include <math.h>

#include "engine/machine/catalog.h"
#include "engine/machine/machine_file.h"
#include "engine/machine/topology.h"

/* The links of a route as "a b c". */
static const char *route(const topology_t *t, const topo_path_t *p)
{
    static char out[256];
    out[0] = 0;
    for (int i = 0; i < p->nlinks; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? " " : "", t->links[p->link[i]].name);
    return out;
}

static void test_shipped_machines_take_catalog_parts(void **state)
{
    (void)state;
    topology_t t;
    assert_int_equal(topology_get("neugraph-8xp100", &t), 0);
    assert_int_equal(t.ndev, 8);
    assert_string_equal(t.gpu_model, "p100-pcie");
    assert_true(t.gpu_flops == 9.3e12 && t.gpu_bw == 732e9 && t.gpu_mem == 16.0 * 1073741824.0);
    assert_int_equal(t.sockets, 2);
    assert_true(fabs(t.host_flops - 2 * 14 * 2.6e9 * 32 * CPU_FLOPS_SUSTAINED) < 1);
    assert_string_equal(route(&t, &t.h2d[7]), "qpi0>1 host>sw3 sw3>gpu7");
    assert_int_equal(t.nodes, 1);
    assert_int_equal(topology_get("ns-16xt4-6g", &t), 0);
    assert_int_equal(t.nodes, 16);
    assert_string_equal(t.network, "eth-6g");
    assert_true(t.gpu_flops == 8.1e12 && t.gpu_bw == 320e9);
    assert_int_equal(topology_get("roc-4x4p100", &t), 0);
    assert_int_equal(t.nodes, 4);
    assert_string_equal(route(&t, &t.d2d[0][3]), "nv0>3"); /* NVLink, not the sockets */
    assert_true(t.links[t.d2d[0][3].link[0]].bw == 20e9);
    assert_int_equal(topology_get("graphtensor-3090", &t), 0);
    assert_true(t.links[t.h2d[0].link[0]].bw == 24e9); /* PCIe 4.0 x16 */
    assert_int_equal(topology_get("h100-pcie5", &t), 0);
    assert_true(t.links[t.h2d[0].link[0]].bw == 48e9 && t.gpu_mem == 80.0 * 1073741824.0);
    /* Hopper at the fractions measured on an H200 (catalog.c), others at their peaks */
    assert_true(fabs(t.gpu_bw - 2.0e12 * 0.52) < 1 && fabs(t.gpu_flops - 51.2e12 * 0.55) < 1);
    assert_int_equal(topology_get("h200-pcie5", &t), 0);
    assert_true(fabs(t.gpu_bw - 4.8e12 * 0.52) < 1 && t.gpu_mem == 141e9);
    link_kind_t k;
    assert_int_equal(link_kind_find("pcie4x8", &k), 0);
    assert_true(k.bw == 12e9);
    assert_int_equal(link_kind_find("pcie4x3", &k), -1);
    assert_int_equal(link_kind_find("pcie6x16", &k), -1);
}

static const char tree[] = "machine tree   # a two-level switch tree\n"
                           "host e5-2690v4 sockets 2 flops 1e12\n"
                           "gpu v100-sxm2 mem 2G\n"
                           "switch top on socket0 link pcie3x16\n"
                           "switch left on top link pcie3x16\n"
                           "switch right on top link pcie4x16 bw 20e9 lat 1e-6\n"
                           "socket-link upi\n"
                           "gpus 2 on left link pcie3x16\n"
                           "gpus 2 on right link pcie3x8\n"
                           "gpus 1 on socket1 link pcie3x16\n"
                           "nvlink 0 3 nvlink2 links 2\n";

static void test_routes_follow_the_tree(void **state)
{
    (void)state;
    topology_t t;
    gs_err_t err;
    assert_int_equal(machine_parse(tree, "tree", &t, &err), GS_OK);
    assert_int_equal(t.ndev, 5);
    assert_true(t.host_flops == 2e12 && t.gpu_mem == 2.0 * 1073741824.0 && t.gpu_flops == 15.7e12);
    assert_string_equal(route(&t, &t.h2d[2]), "host>top top>right right>gpu2");
    assert_string_equal(route(&t, &t.d2h[2]), "gpu2>right right>top top>host");
    assert_string_equal(route(&t, &t.d2d[0][1]), "gpu0>left left>gpu1");
    assert_string_equal(route(&t, &t.d2d[1][2]), "gpu1>left left>top top>right right>gpu2");
    assert_string_equal(route(&t, &t.d2d[0][3]), "nv0>3");
    assert_string_equal(route(&t, &t.d2d[3][0]), "nv3>0");
    assert_string_equal(route(&t, &t.h2d[4]), "upi0>1 host>gpu4");
    assert_string_equal(route(&t, &t.d2h[4]), "gpu4>host upi1>0");
    assert_string_equal(route(&t, &t.d2d[4][1]), "gpu4>host upi1>0 host>top top>left left>gpu1");
    assert_true(t.links[t.d2d[0][3].link[0]].bw == 50e9);
    assert_true(t.links[t.h2d[2].link[1]].bw == 20e9 && t.links[t.h2d[2].link[1]].latency == 1e-6);
    assert_true(t.links[t.h2d[2].link[2]].bw == 6e9); /* x8 */
    /* the GPUs under one parent are a group */
    assert_int_equal(t.group[0], t.group[1]);
    assert_int_equal(t.group[2], t.group[3]);
    assert_int_not_equal(t.group[0], t.group[2]);
    assert_int_not_equal(t.group[3], t.group[4]);
}

static void refused(const char *text, const char *why)
{
    topology_t t;
    gs_err_t err = {0};
    assert_int_equal(machine_parse(text, "m.machine", &t, &err), GS_EINPUT);
    if (!strstr(err.msg, why)) fail_msg("expected '%s' in '%s'", why, err.msg);
}

#define HEAD "machine m\nhost e5-2690v4\ngpu t4\n"

static void test_malformed_files_name_line_and_field(void **state)
{
    (void)state;
    refused("host e5-2690v4\n", "m.machine:1: host: the first statement must be 'machine NAME'");
    refused("machine m\nmachine n\n", "m.machine:2: machine: given twice");
    refused("machine m x\n", "m.machine:1: machine: one name");
    refused("machine m/x\n", "m.machine:1: machine: 'm/x': letters");
    refused("machine m\nhost e5-2690v4\ngpu p200\n", "m.machine:3: gpu: unknown model 'p200'");
    refused("machine m\nhost i9\n", "m.machine:2: host: unknown CPU 'i9'");
    refused("machine m\nhost e5-2690v4 sockets 3\n", "m.machine:2: sockets: must be 1 or 2");
    refused("machine m\nhost e5-2690v4 flops -1\n", "m.machine:2: flops: '-1' is not a positive number");
    refused("machine m\nhost e5-2690v4 cores 4\n", "m.machine:2: host: unknown field 'cores'");
    refused("machine m\nhost e5-2690v4 flops\n", "m.machine:2: flops: needs a value");
    refused(HEAD "gpus 1 on socket0 link pcie3x3\n", "m.machine:4: link: unknown kind 'pcie3x3'");
    refused(HEAD "gpus 9 on socket0 link pcie3x16\n", "m.machine:4: gpus: '9' is not an integer in [1, 8]");
    refused(HEAD "gpus 1 on sw9 link pcie3x16\n", "m.machine:4: on: 'sw9' is not a socket or an earlier switch");
    refused(HEAD "gpus 1 at socket0 link pcie3x16\n", "m.machine:4: gpus: expected 'gpus N on PARENT link KIND'");
    refused(HEAD "switch a on socket0 link pcie3x16\nswitch a on socket0 link pcie3x16\n",
            "m.machine:5: switch: 'a' is named twice");
    refused(HEAD "gpus 2 on socket0 link pcie3x16\nnvlink 1 1 nvlink2\n", "m.machine:5: nvlink: joins a GPU to itself");
    refused(HEAD "gpus 2 on socket0 link pcie3x16\nnvlink 0 2 nvlink2\n",
            "m.machine:5: nvlink: '2' is not an integer in [0, 1]");
    refused(HEAD "gpus 2 on socket0 link pcie3x16\nnvlink all nvlink2\nnvlink 0 1 nvlink2\n", "m.machine:6: nvlink:");
    refused(HEAD "gpus 1 on socket0 link pcie3x16\ncluster nodes 4 network eth-7g\n",
            "m.machine:5: network: unknown network 'eth-7g'");
    refused(HEAD "gpus 1 on socket0 link pcie3x16\ncluster nodes 1 network eth-6g\n",
            "m.machine:5: nodes: '1' is not an integer in [2, 1024]");
    refused(HEAD "warp 9\n", "m.machine:4: warp: unknown statement");
    refused(HEAD, "m.machine:3: gpus: missing");
    refused("machine m\ngpu t4\ngpus 1 on socket0 link pcie3x16\n", "m.machine:3: gpus: needs an earlier 'host' line");
    refused("machine m\nhost e5-2690v4 sockets 2\ngpu t4\ngpus 1 on socket1 link pcie3x16\n", "socket-link: missing");
    refused("machine m\nhost e5-2690v4\nsocket-link qpi\n",
            "m.machine:3: socket-link: needs an earlier 'host ... sockets 2'");
    /* eight switches deep: a route past TOPO_MAX_HOPS */
    refused(HEAD "switch a on socket0 link pcie3x16\nswitch b on a link pcie3x16\nswitch c on b link pcie3x16\n"
                 "switch d on c link pcie3x16\nswitch e on d link pcie3x16\nswitch f on e link pcie3x16\n"
                 "switch g on f link pcie3x16\nswitch h on g link pcie3x16\ngpus 1 on h link pcie3x16\n",
            "gpus: a route from gpu0 is longer than 8 links");
}

static void test_files_load_like_shipped_machines(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), path[4200];
    snprintf(path, sizeof path, "%s/mine.machine", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(topology_text("pcie-8gpu"), f);
    fclose(f);
    topology_t a, b;
    gs_err_t err;
    assert_int_equal(topology_load(path, &a, &err), GS_OK);
    assert_int_equal(topology_get("pcie-8gpu", &b), 0);
    assert_int_equal(memcmp(&a, &b, sizeof a), 0);
    f = fopen(path, "w");
    fputs("machine m\n\0host", f), fputc(0, f);
    fclose(f);
    assert_int_equal(topology_load(path, &a, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "NUL byte"));
    snprintf(path, sizeof path, "%s/absent.machine", dir);
    assert_int_equal(topology_load(path, &a, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "absent.machine: No such file"));
    assert_int_equal(topology_load("no-such-machine", &a, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "--topology no-such-machine: unknown"));
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_machines_take_catalog_parts),
        cmocka_unit_test(test_routes_follow_the_tree),
        cmocka_unit_test(test_malformed_files_name_line_and_field),
        cmocka_unit_test(test_files_load_like_shipped_machines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
