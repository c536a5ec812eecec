/* test_linkmodel.c - the shipped topologies and the fair-share link model:
 * two transfers on one link each get half of it, transfers on disjoint
 * routes do not slow each other, a transfer limited elsewhere leaves its
 * share to others (max-min fairness), and the online model never lets a
 * copy finish before its modeled time; the cluster network's NIC with a
 * GPU rank's PCIe staging gives each message's exact times. */
/* run-under: asan */
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "engine/machine/linkmodel.h"
#include "engine/machine/netmodel.h"
#include "engine/machine/topology.h"

static void test_topologies_are_consistent(void **state)
{
    (void)state;
    int n = 0;
    for (const char *const *nm = topology_names(); *nm; nm++, n++) {
        topology_t t;
        assert_int_equal(topology_get(*nm, &t), 0);
        assert_true(t.ndev >= 1 && t.ndev <= TOPO_MAX_DEV);
        assert_true(t.gpu_flops > 0);
        for (int d = 0; d < t.ndev; d++) {
            assert_true(t.h2d[d].nlinks >= 1);
            assert_true(t.d2h[d].nlinks >= 1);
            for (int e = 0; e < t.ndev; e++)
                if (e != d) assert_true(t.d2d[d][e].nlinks >= 1);
        }
    }
    assert_int_equal(n, 15);
    topology_t t;
    assert_int_equal(topology_get("nope", &t), -1);
    assert_int_equal(topology_get("pcie-4gpu-2switch", &t), 0);
    assert_int_equal(t.ndev, 4);
    /* gpu0 and gpu1 share switch 0's uplink, gpu2 does not */
    assert_int_equal(t.h2d[0].link[0], t.h2d[1].link[0]);
    assert_int_not_equal(t.h2d[0].link[0], t.h2d[2].link[0]);
    assert_int_equal(t.group[0], t.group[1]);
    assert_int_not_equal(t.group[0], t.group[2]);
}

/* Whether path p crosses the link named name. */
static int crosses(const topology_t *t, const topo_path_t *p, const char *name)
{
    for (int k = 0; k < p->nlinks; k++)
        if (strcmp(t->links[p->link[k]].name, name) == 0) return 1;
    return 0;
}

/* NeuGraph's 8-GPU server: two sockets joined by QPI, host memory on
 * socket 0: socket 1's GPUs load across QPI, peers on different sockets
 * cross it, peers on one socket go through its root complex only. */
static void test_two_socket_server(void **state)
{
    (void)state;
    topology_t t;
    assert_int_equal(topology_get("pcie-8gpu", &t), 0);
    assert_int_equal(t.ndev, 8);
    for (int d = 0; d < 8; d++) {
        assert_int_equal(crosses(&t, &t.h2d[d], "qpi0>1"), d >= 4);
        assert_int_equal(crosses(&t, &t.d2h[d], "qpi1>0"), d >= 4);
    }
    assert_true(crosses(&t, &t.d2d[0][4], "qpi0>1") && crosses(&t, &t.d2d[6][1], "qpi1>0"));
    assert_false(crosses(&t, &t.d2d[0][2], "qpi0>1") || crosses(&t, &t.d2d[0][2], "qpi1>0"));
    assert_true(crosses(&t, &t.d2d[0][2], "sw0>host") && crosses(&t, &t.d2d[0][2], "host>sw1"));
    assert_int_equal(t.d2d[0][1].nlinks, 2); /* one switch */
}

static double lat(const topology_t *t, const topo_path_t *p)
{
    double s = 0;
    for (int k = 0; k < p->nlinks; k++) s += t->links[p->link[k]].latency;
    return s;
}

static void test_two_transfers_share_a_link_fairly(void **state)
{
    (void)state;
    topology_t t;
    topology_get("1gpu", &t);
    double bytes = 12e6, bw = t.links[t.h2d[0].link[0]].bw, l = lat(&t, &t.h2d[0]);
    lm_transfer_t one[1] = {{&t.h2d[0], bytes, 0, 0}};
    lm_simulate(&t, one, 1);
    assert_true(fabs(one[0].finish - (l + bytes / bw)) < 1e-9);
    lm_transfer_t two[2] = {{&t.h2d[0], bytes, 0, 0}, {&t.h2d[0], bytes, 0, 0}};
    lm_simulate(&t, two, 2);
    for (int i = 0; i < 2; i++) assert_true(fabs(two[i].finish - (l + 2 * bytes / bw)) < 1e-9);
    /* H2D and D2H use opposite directions of a full-duplex link: no sharing */
    lm_transfer_t duplex[2] = {{&t.h2d[0], bytes, 0, 0}, {&t.d2h[0], bytes, 0, 0}};
    lm_simulate(&t, duplex, 2);
    for (int i = 0; i < 2; i++) assert_true(fabs(duplex[i].finish - (l + bytes / bw)) < 1e-9);
    /* a late starter: the first runs alone, then both share */
    lm_transfer_t late[2] = {{&t.h2d[0], bytes, 0, 0}, {&t.h2d[0], bytes, 0.5e-3, 0}};
    lm_simulate(&t, late, 2);
    assert_true(late[0].finish > one[0].finish && late[0].finish < two[0].finish);
    assert_true(late[1].finish > late[0].finish);
}

static void test_switch_uplink_contention(void **state)
{
    (void)state;
    topology_t t;
    topology_get("pcie-4gpu-2switch", &t);
    double bytes = 24e6, bw = 12e9;
    lm_transfer_t same[2] = {{&t.h2d[0], bytes, 0, 0}, {&t.h2d[1], bytes, 0, 0}};
    lm_simulate(&t, same, 2);
    lm_transfer_t apart[2] = {{&t.h2d[0], bytes, 0, 0}, {&t.h2d[2], bytes, 0, 0}};
    lm_simulate(&t, apart, 2);
    double l = lat(&t, &t.h2d[0]);
    assert_true(fabs(same[0].finish - (l + 2 * bytes / bw)) < 1e-9);
    assert_true(fabs(apart[0].finish - (l + bytes / bw)) < 1e-9);
    /* a peer copy under the same switch does not touch the uplink */
    lm_transfer_t peer[2] = {{&t.h2d[0], bytes, 0, 0}, {&t.d2d[2][3], bytes, 0, 0}};
    lm_simulate(&t, peer, 2);
    assert_true(fabs(peer[0].finish - (l + bytes / bw)) < 1e-9);
}

static void test_max_min_fairness(void **state)
{
    (void)state;
    topology_t t;
    topology_get("1gpu", &t);
    /* a flow capped by a slow second hop must leave the shared uplink to
     * the other flow (latencies zeroed to isolate the rates) */
    topology_t u = t;
    for (int l = 0; l < u.nlinks; l++) u.links[l].latency = 0;
    u.links[0].bw = 10e9;                         /* host>sw0 */
    u.links[t.h2d[0].link[1]].bw = 2e9;           /* sw0>gpu0 */
    int extra = u.nlinks++;
    u.links[extra] = (topo_link_t){"sw0>gpu9", 10e9, 0};
    topo_path_t slow = u.h2d[0], fast = {2, {0, extra}};
    lm_transfer_t x[2] = {{&slow, 2e6, 0, 0}, {&fast, 8e6, 0, 0}};
    lm_simulate(&u, x, 2);
    /* slow gets 2 GB/s, fast the remaining 8 GB/s: both take 1 ms */
    assert_true(fabs(x[0].finish - 1e-3) < 1e-9);
    assert_true(fabs(x[1].finish - 1e-3) < 1e-9);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static lm_t online;
static topology_t slow_topo;

static void *copier(void *arg)
{
    lm_transfer(&online, &slow_topo.h2d[0], *(double *)arg);
    return NULL;
}

static void test_online_copies_never_beat_the_model(void **state)
{
    (void)state;
    topology_get("1gpu", &slow_topo);
    topology_scale(&slow_topo, 1.0 / 1200.0); /* 10 MB/s: 1 MB takes 100 ms */
    lm_init(&online, &slow_topo);
    double bytes = 1e6, t0 = now_s();
    lm_transfer(&online, &slow_topo.h2d[0], bytes);
    double single = now_s() - t0;
    assert_true(single >= 0.1);
    pthread_t th[2];
    t0 = now_s();
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, copier, &bytes);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    double both = now_s() - t0;
    assert_true(both >= 0.2); /* two copies on one link: each at half rate */
    double carried = online.link_bytes[slow_topo.h2d[0].link[0]];
    assert_true(fabs(carried - 3e6) < 1e3);
    lm_destroy(&online);
}

/* A transfer moves from the moment its latency elapses, even when no model
 * call happens in between (a copy engine busy in its memcpy): 50 ms after
 * the start at 10 MB/s, at least ~500 KB must have been carried. */
static void test_online_transfer_flows_while_unwatched(void **state)
{
    (void)state;
    topology_get("1gpu", &slow_topo);
    topology_scale(&slow_topo, 1.0 / 1200.0);
    lm_init(&online, &slow_topo);
    uint64_t id = lm_begin(&online, &slow_topo.h2d[0], 2e6);
    struct timespec nap = {0, 50 * 1000 * 1000};
    nanosleep(&nap, NULL);
    lm_wait(&online, lm_begin(&online, &slow_topo.d2h[0], 0)); /* any model call brings it up to date */
    double carried = online.link_bytes[slow_topo.h2d[0].link[0]];
    double latency = 0;
    for (int k = 0; k < slow_topo.h2d[0].nlinks; k++) latency += slow_topo.links[slow_topo.h2d[0].link[k]].latency;
    double rate = slow_topo.links[slow_topo.h2d[0].link[0]].bw;
    assert_true(carried >= 0.999 * rate * (0.05 - latency));
    lm_wait(&online, id);
    lm_destroy(&online);
}

/* A transfer so small that its time is below the clock's resolution at a
 * late start (1e9 s on the model clock) still
 * finishes, at its start plus the path latency. */
static void test_tiny_transfer_at_a_late_time_finishes(void **state)
{
    (void)state;
    topology_t t;
    topology_get("1gpu", &t);
    lm_transfer_t x = {&t.h2d[0], 1.0, 1e9, 0};
    lm_simulate(&t, &x, 1);
    double latency = 0;
    for (int k = 0; k < t.h2d[0].nlinks; k++) latency += t.links[t.h2d[0].link[k]].latency;
    assert_true(x.finish >= 1e9 + latency && x.finish < 1e9 + latency + 1e-5);
}

/* A GPU rank's message: off the GPU, through both NICs, onto the other
 * GPU, each step at its modeled time; a second message queues behind the
 * first on the PCIe link and the NIC; a host rank stages nothing. */
static void test_gpu_rank_messages_are_staged_over_pcie(void **state)
{
    (void)state;
    topology_t t;
    assert_int_equal(topology_get("1gpu", &t), 0);
    double bw = lm_path_bw(&t, &t.h2d[0]), lat = lm_path_latency(&t, &t.h2d[0]);
    assert_true(fabs(bw - 12e9) < 1);
    network_t net;
    assert_int_equal(network_get("eth-6g", &net, NULL), 0);
    nic_t a = {.net = net, .pcie_bw = bw, .pcie_lat = lat}, b = a;
    double bytes = 1.2e6, pcie = lat + bytes / bw, wire = bytes / net.bw;
    double host = nic_stage_out(&a, 1.0, bytes), out = nic_send(&a, host, bytes);
    assert_true(fabs(host - (1.0 + pcie)) < 1e-12 && fabs(out - (host + wire)) < 1e-12);
    double in = nic_recv(&b, out, bytes), gpu = nic_stage_in(&b, in, bytes);
    assert_true(fabs(in - (out + net.latency)) < 1e-12 && fabs(gpu - (in + pcie)) < 1e-12);
    double host2 = nic_stage_out(&a, 1.0, bytes); /* ready at once, but the link is busy */
    assert_true(fabs(host2 - (1.0 + 2 * pcie)) < 1e-12);
    assert_true(fabs(nic_send(&a, host2, bytes) - (out + wire)) < 1e-12); /* behind the first on the wire */
    nic_t cpu = {.net = net};
    assert_true(nic_stage_out(&cpu, 2.0, bytes) == 2.0 && nic_stage_in(&cpu, 3.0, bytes) == 3.0);
    assert_true(nic_load_s(&cpu, bytes) == 0 && fabs(nic_load_s(&a, bytes) - pcie) < 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_topologies_are_consistent),
        cmocka_unit_test(test_two_socket_server),
        cmocka_unit_test(test_two_transfers_share_a_link_fairly),
        cmocka_unit_test(test_switch_uplink_contention),
        cmocka_unit_test(test_max_min_fairness),
        cmocka_unit_test(test_online_copies_never_beat_the_model),
        cmocka_unit_test(test_online_transfer_flows_while_unwatched),
        cmocka_unit_test(test_tiny_transfer_at_a_late_time_finishes),
        cmocka_unit_test(test_gpu_rank_messages_are_staged_over_pcie),
    };
    return cmocka_run_group_tests_name("linkmodel", tests, NULL, NULL);
}
