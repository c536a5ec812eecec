/* test_memplan.c - the memory planner (ROC §5): on a trace where two
 * tensors compete for room for one, LRU thrashes and ROC's dynamic
 * programme keeps one across the other's write (exact byte counts); a host
 * write ends a device copy's life; a tensor larger than the budget is
 * never held; on random traces every plan stays within its budget, holds
 * what it keeps, and ROC never moves more bytes than LRU, nor LRU more
 * than streaming; and on 1000 small random traces (2-5 tensors, 3-10
 * steps, no pruning) ROC's plan moves exactly the bytes of an exhaustive
 * search over every kept set at every step of the repeating epoch. */
/* run-under: asan */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/memplan/memplan.h"

static int key_of(mp_trace_t *tr, int k, uint64_t bytes) { return mp_trace_tensor(tr, 0x1000 + 64 * k, bytes); }

/* A streamed step reading r0 (cost c0; -1 none) and writing w0 (-1 none). */
static void dev_step(mp_trace_t *tr, int r0, double c0, int w0)
{
    int r[1] = {r0}, w[1] = {w0};
    int i = mp_trace_step(tr, 0, r, r0 >= 0, w, w0 >= 0);
    assert_true(i >= 0);
    tr->step[i].read_cost[0] = c0;
}

static void host_step(mp_trace_t *tr, int w0)
{
    int w[1] = {w0};
    assert_true(mp_trace_step(tr, 1, NULL, 0, w, 1) >= 0);
}

static void test_roc_keeps_one_where_lru_thrashes(void **state)
{
    (void)state;
    mp_trace_t tr = {0};
    int a = key_of(&tr, 0, 10), b = key_of(&tr, 1, 10);
    dev_step(&tr, -1, 0, a); /* an op writes A, another writes B, then A and B are read (by gathers: 3x their bytes streamed) */
    dev_step(&tr, -1, 0, b);
    dev_step(&tr, a, 30, -1);
    dev_step(&tr, b, 30, -1);
    mp_plan_t s, l, r;
    assert_int_equal(mp_plan(&tr, MP_STREAM, 10, &s), 0);
    assert_int_equal(mp_plan(&tr, MP_LRU, 10, &l), 0);
    assert_int_equal(mp_plan(&tr, MP_ROC, 10, &r), 0);
    assert_true(s.cost == 60 && s.stream_cost == 60);
    assert_true(l.cost == 20); /* each read brings its tensor in again, whole */
    assert_true(r.cost == 10); /* A is kept across B's write; only B comes in */
    assert_true(r.keep[1] == 1 && r.keep[2] == 0);
    mp_plan_free(&s), mp_plan_free(&l), mp_plan_free(&r);
    /* with room for both, nothing moves at all */
    assert_int_equal(mp_plan(&tr, MP_ROC, 20, &r), 0);
    assert_true(r.cost == 0);
    mp_plan_free(&r);
    mp_trace_free(&tr);
}

static void test_host_write_ends_a_device_copy(void **state)
{
    (void)state;
    mp_trace_t tr = {0};
    int a = key_of(&tr, 0, 10);
    dev_step(&tr, -1, 0, a);
    host_step(&tr, a); /* e.g. an elementwise op rewrote A on the host */
    dev_step(&tr, a, 30, -1);
    mp_plan_t r;
    assert_int_equal(mp_plan(&tr, MP_ROC, 100, &r), 0);
    assert_true((r.keep[1] & 1) == 0);
    assert_true(r.cost == 10); /* brought in once, whole, for the gather */
    mp_plan_free(&r);
    /* a tensor larger than the budget is never held */
    assert_int_equal(mp_plan(&tr, MP_ROC, 9, &r), 0);
    for (int i = 0; i < tr.nstep; i++) assert_true(r.hold[i] == 0);
    assert_true(r.cost == 30);
    mp_plan_free(&r);
    mp_trace_free(&tr);
}

static uint64_t bytes_of(const mp_trace_t *tr, uint64_t m)
{
    uint64_t b = 0;
    for (int j = 0; j < 64; j++)
        if (m >> j & 1) b += tr->bytes[j];
    return b;
}

/* A random trace of nt tensors of 1-10 bytes and ns steps: host writes
 * (1 in `kinds`), streamed writes (1 in `kinds`), the rest streamed reads
 * (and sometimes writes) whose streamed cost is 1 to `costs` times the
 * tensor's bytes. */
static void random_trace(mp_trace_t *tr, int nt, int ns, int kinds, int costs)
{
    for (int k = 0; k < nt; k++) key_of(tr, k, (uint64_t)(1 + rand() % 10));
    for (int i = 0; i < ns; i++) {
        int kind = rand() % kinds, t = rand() % nt;
        if (kind == 0) host_step(tr, t);
        else if (kind == 1) dev_step(tr, -1, 0, t);
        else dev_step(tr, t, (double)(tr->bytes[t] * (uint64_t)(1 + rand() % costs)), rand() % 2 ? rand() % nt : -1);
    }
}

static void test_random_traces_within_budget_and_ordered(void **state)
{
    (void)state;
    srand(7);
    for (int trial = 0; trial < 300; trial++) {
        mp_trace_t tr = {0};
        int nt = 2 + rand() % 5, ns = 3 + rand() % 10;
        random_trace(&tr, nt, ns, 4, 3);
        uint64_t budget = (uint64_t)(rand() % 25);
        mp_plan_t s, l, r;
        assert_int_equal(mp_plan(&tr, MP_STREAM, budget, &s), 0);
        assert_int_equal(mp_plan(&tr, MP_LRU, budget, &l), 0);
        assert_int_equal(mp_plan(&tr, MP_ROC, budget, &r), 0);
        for (int i = 0; i < tr.nstep; i++) {
            assert_true(bytes_of(&tr, l.hold[i]) <= budget);
            assert_true(bytes_of(&tr, r.hold[i]) <= budget);
            assert_true((r.keep[i] & ~r.hold[i]) == 0);
        }
        if (!(r.cost <= l.cost + 1e-9 && l.cost <= s.cost + 1e-9))
            fail_msg("trial %d: roc %.0f lru %.0f stream %.0f", trial, r.cost, l.cost, s.cost);
        mp_plan_free(&s), mp_plan_free(&l), mp_plan_free(&r);
        mp_trace_free(&tr);
    }
}

/* The fewest H2D bytes of one epoch, repeated for ever, over every
 * sequence of kept sets (an exhaustive search: every subset at every
 * step, started from every set the epoch could end in), with reads whose
 * streamed cost is their bytes (so holding a tensor only for the op saves
 * nothing and the plan is its kept sets). The rules are mp_plan's: a
 * streamed step may keep what it had, read or wrote, within the budget
 * together with the kept reads it serves; a host step drops what it wrote. */
static double exhaustive_cost(const mp_trace_t *tr, uint64_t budget)
{
    int nt = tr->nkeys, m = tr->nstep;
    uint64_t all = (1ull << nt) - 1;
    double best = INFINITY, cost[64], next[64];
    for (uint64_t start = 0; start <= all; start++) {
        for (uint64_t c = 0; c <= all; c++) cost[c] = c == start ? 0 : INFINITY;
        for (int i = 0; i < m; i++) {
            const mp_step_t *st = &tr->step[i];
            uint64_t rd = 0, wr = 0;
            for (int q = 0; q < st->nr; q++) rd |= 1ull << st->reads[q];
            for (int q = 0; q < st->nw; q++) wr |= 1ull << st->writes[q];
            for (uint64_t k = 0; k <= all; k++) next[k] = INFINITY;
            for (uint64_t c = 0; c <= all; c++) {
                if (cost[c] == INFINITY) continue;
                if (st->host) {
                    next[c & ~wr] = fmin(next[c & ~wr], cost[c]);
                    continue;
                }
                double x = 0;
                for (int q = 0; q < st->nr; q++)
                    if (!(c >> st->reads[q] & 1)) x += st->read_cost[q];
                for (uint64_t k = 0; k <= all; k++)
                    if ((k & ~(c | rd | wr)) == 0 && bytes_of(tr, (c & rd) | k) <= budget) next[k] = fmin(next[k], cost[c] + x);
            }
            memcpy(cost, next, sizeof cost);
        }
        best = fmin(best, cost[start]);
    }
    return best;
}

static void test_roc_matches_the_exhaustive_optimum(void **state)
{
    (void)state;
    srand(11);
    int equal = 0, worse = 0;
    for (int trial = 0; trial < 1000; trial++) {
        mp_trace_t tr = {0};
        int nt = 2 + rand() % 4, ns = 3 + rand() % 8;
        random_trace(&tr, nt, ns, 5, 1); /* streamed reads cost their bytes: holding for one op saves nothing */
        uint64_t budget = (uint64_t)(rand() % 25);
        mp_plan_t r;
        assert_int_equal(mp_plan(&tr, MP_ROC, budget, &r), 0);
        double opt = exhaustive_cost(&tr, budget);
        if (r.cost < opt - 1e-9) fail_msg("trial %d: roc %.0f below the optimum %.0f: the plan breaks a rule", trial, r.cost, opt);
        if (r.cost > opt + 1e-9) worse++;
        else equal++;
        mp_plan_free(&r);
        mp_trace_free(&tr);
    }
    print_message("roc: the optimum on %d of %d traces\n", equal, equal + worse);
    if (worse) fail_msg("roc misses the optimum on %d of %d small traces", worse, equal + worse);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roc_keeps_one_where_lru_thrashes),
        cmocka_unit_test(test_host_write_ends_a_device_copy),
        cmocka_unit_test(test_random_traces_within_budget_and_ordered),
        cmocka_unit_test(test_roc_matches_the_exhaustive_optimum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
