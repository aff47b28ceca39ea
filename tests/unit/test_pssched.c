/* Tests of the PSS read scheduler with fake processes and costs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "pssched.h"

#define MS 1000000ull
#define S 1000000000ull

static struct pssched_item read_once(uint64_t rss, uint64_t age_ns)
{
	return (struct pssched_item){.rss_kib = rss, .anon_rss_kib = rss, .rd_anon_rss_kib = rss,
				     .age_ns = age_ns};
}

static void test_never_read_first_small_before_large(void **state)
{
	(void)state;
	struct pssched_item it[4] = {
		read_once(1024, 10 * S),
		{.rss_kib = 1 << 20, .anon_rss_kib = 1 << 20, .never_read = 1},
		{.rss_kib = 2048, .anon_rss_kib = 2048, .never_read = 1},
		read_once(4096, 1 * S),
	};
	uint32_t out[4];
	size_t k = pssched_pick(it, 4, 1e12, PSSCHED_COST_NS_PER_KIB, out, 4);

	assert_int_equal(k, 4);
	assert_int_equal(out[0], 2); /* never read, small */
	assert_int_equal(out[1], 1); /* never read, 1 GiB */
	assert_int_equal(out[2], 0); /* 10 s stale beats 1 s stale */
	assert_int_equal(out[3], 3);
}

static void test_budget_limits_reads(void **state)
{
	(void)state;
	struct pssched_item it[10];
	uint32_t out[10];

	for (int i = 0; i < 10; i++)
		it[i] = read_once(1024, S); /* each costs 5 us + 10 us per MiB = 15.24 us */
	double one = pssched_cost(PSSCHED_COST_NS_PER_KIB, 1024);
	/* Tokens for three reads and a bit: the fourth still starts (debt), no fifth. */
	assert_int_equal(pssched_pick(it, 10, 3 * one + 1, PSSCHED_COST_NS_PER_KIB, out, 10), 4);
	assert_int_equal(pssched_pick(it, 10, 3 * one, PSSCHED_COST_NS_PER_KIB, out, 10), 3);
	assert_int_equal(pssched_pick(it, 10, 0, PSSCHED_COST_NS_PER_KIB, out, 10), 0);
	assert_int_equal(pssched_pick(it, 10, -5, PSSCHED_COST_NS_PER_KIB, out, 10), 0);
	assert_int_equal(pssched_pick(it, 10, 1e12, PSSCHED_COST_NS_PER_KIB, out, 2), 2);
}

static void test_first_pick_even_if_expensive(void **state)
{
	(void)state;
	/* A 4 GiB process costs ~42 ms: with 1 ms of tokens it is still read,
	 * the debt is paid by later ticks. */
	struct pssched_item it[1] = {read_once(4u << 20, 5 * S)};
	uint32_t out[1];

	assert_int_equal(pssched_pick(it, 1, 1 * MS, PSSCHED_COST_NS_PER_KIB, out, 1), 1);
	assert_true(pssched_cost(PSSCHED_COST_NS_PER_KIB, 4u << 20) > 40 * MS);
}

static void test_rss_change_beats_staleness(void **state)
{
	(void)state;
	struct pssched_item grew = read_once(100 * 1024, 100 * MS);
	struct pssched_item same = read_once(100 * 1024, 2 * S);
	uint32_t out[2];

	grew.anon_rss_kib = 200 * 1024; /* doubled since its last read */
	grew.rss_kib = 200 * 1024;
	struct pssched_item it[2] = {same, grew};
	assert_int_equal(pssched_pick(it, 2, 1e12, PSSCHED_COST_NS_PER_KIB, out, 2), 2);
	assert_int_equal(out[0], 1);
	/* ...and a shrink counts as much as a growth */
	it[1].anon_rss_kib = 0;
	it[1].rss_kib = 1024;
	it[1].shared_rss_kib = 1024;
	assert_int_equal(pssched_pick(it, 2, 1e12, PSSCHED_COST_NS_PER_KIB, out, 2), 2);
	assert_int_equal(out[0], 1);
}

static void test_small_processes_refresh_more_often(void **state)
{
	(void)state;
	/* Equally stale: the cheap one first, since priority is per ns of cost. */
	struct pssched_item it[2] = {read_once(1 << 20, S), read_once(1024, S)};
	uint32_t out[2];

	assert_int_equal(pssched_pick(it, 2, 1e12, PSSCHED_COST_NS_PER_KIB, out, 2), 2);
	assert_int_equal(out[0], 1);
}

static void test_no_rss_never_read(void **state)
{
	(void)state;
	struct pssched_item it[2] = {{.rss_kib = 0, .never_read = 1}, read_once(0, 10 * S)};
	uint32_t out[2];

	assert_int_equal(pssched_pick(it, 2, 1e12, PSSCHED_COST_NS_PER_KIB, out, 2), 0);
	assert_true(pssched_priority(&it[0], PSSCHED_COST_NS_PER_KIB) < 0);
}

static void test_learned_cost_changes_budget(void **state)
{
	(void)state;
	struct pssched_item it[8];
	uint32_t out[8];

	for (int i = 0; i < 8; i++)
		it[i] = read_once(10 * 1024, S);
	/* If reads turn out twice as costly per KiB, fewer fit in the same tokens. */
	size_t cheap = pssched_pick(it, 8, 500000, 10.0, out, 8);
	size_t dear = pssched_pick(it, 8, 500000, 20.0, out, 8);
	assert_int_equal(cheap, 5); /* 105.4 us each: 4 fit, the fifth starts in debt */
	assert_int_equal(dear, 3);  /* 209.8 us each */
}

/* Simulates ticks: each credits c_ns and reports other[t % nother] of other
 * work; PSS reads of read_ns each are made while the budget allows. Returns
 * the total spent on PSS reads. */
static double simulate(double c_ns, const double *other, int nother, double read_ns, int ticks,
		       double cap_ns)
{
	struct pssched_budget b = {0};
	double pss = 0;

	for (int t = 0; t < ticks; t++) {
		pssched_budget_credit(&b, c_ns, other[t % nother], cap_ns);
		while (pssched_budget_avail(&b) > 0) {
			pssched_budget_pay(&b, read_ns);
			pss += read_ns;
		}
	}
	return pss;
}

static void test_budget_bursts_of_other_work_are_paid_back(void **state)
{
	(void)state;
	/* A dashboard frame every 5th tick costs 3 ticks' budget: on average
	 * other work takes 60% of the budget, and PSS reads get the other 40%,
	 * not the 10% floor at the burst plus the whole budget between. */
	const double other[5] = {3000, 0, 0, 0, 0};
	double pss = simulate(1000, other, 5, 100, 10000, 5000);
	double total = pss + 10000 / 5 * 3000.0;

	assert_true(total <= 10000 * 1000.0 + 1000);
	assert_true(total >= 10000 * 1000.0 - 1000);
	assert_true(pss >= 0.39 * 10000 * 1000.0);
}

static void test_budget_reserve_under_overload(void **state)
{
	(void)state;
	/* Other work costs twice the budget every tick: PSS keeps a tenth. */
	const double other[1] = {2000};
	double pss = simulate(1000, other, 1, 30, 10000, 5000);

	assert_true(pss >= 0.1 * 10000 * 1000.0 - 30);
	assert_true(pss <= 0.1 * 10000 * 1000.0 + 30);
}

static void test_budget_debt_is_bounded_and_overdraft_owed(void **state)
{
	(void)state;
	struct pssched_budget b = {0};

	/* A huge burst (startup, a resize) is owed only up to the cap. */
	pssched_budget_credit(&b, 1000, 1e9, 5000);
	assert_true(b.main_ns >= -4500.0 && b.main_ns < 0);
	assert_true(pssched_budget_avail(&b) > 0); /* the reserve still reads */
	/* A read dearer than what there is: the reserve is emptied and the rest
	 * is owed by it, because the main account allowed nothing. */
	pssched_budget_pay(&b, 400);
	assert_true(b.reserve_ns < 0);
	assert_true(pssched_budget_avail(&b) <= 0);
	/* With the main account in credit, it owes the overdraft. */
	struct pssched_budget m = {0};
	pssched_budget_credit(&m, 1000, 0, 5000);
	pssched_budget_pay(&m, 3000);
	assert_true(m.reserve_ns == 0);
	assert_true(m.main_ns < -1999 && m.main_ns > -2001);
	/* Credits never pile up past the cap. */
	for (int i = 0; i < 100; i++)
		pssched_budget_credit(&m, 1000, 0, 5000);
	assert_true(pssched_budget_avail(&m) <= 5000.0 + 1e-6);
}

static void test_budget_overdrafts_paid_in_full_and_soon(void **state)
{
	(void)state;
	struct pssched_budget b = {0};

	/* A read the main account allowed, far dearer than it had: all of it is
	 * owed, none forgiven at the floor for other work's debt. */
	for (int i = 0; i < 10; i++)
		pssched_budget_credit(&b, 1000, 0, 5000); /* full: 4500 + 500 */
	pssched_budget_pay(&b, 20000);
	assert_true(b.reserve_ns == 0);
	pssched_budget_credit(&b, 1000, 0, 5000);
	assert_true(b.main_ns < -14000 && b.main_ns > -14200);

	/* A read the reserve allowed (the main account had nothing), dearer than
	 * the reserve: its overdraft is paid at the whole credit's rate once the
	 * main account is full, not at the reserve's tenth. */
	struct pssched_budget r = {0};
	pssched_budget_credit(&r, 1000, 1000, 5000); /* main -100, reserve 100 */
	assert_true(pssched_budget_avail(&r) > 0);
	pssched_budget_pay(&r, 10000);
	assert_true(r.reserve_ns < -9800);
	int ticks = 0;
	while (pssched_budget_avail(&r) <= 0 && ticks < 1000) {
		pssched_budget_credit(&r, 1000, 0, 5000);
		ticks++;
	}
	/* 9,900 owed plus 100 of debt: 10 ticks of credit; a reserve paid only
	 * by its own tenth would need 50 */
	assert_true(ticks >= 9 && ticks <= 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_never_read_first_small_before_large),
		cmocka_unit_test(test_budget_limits_reads),
		cmocka_unit_test(test_first_pick_even_if_expensive),
		cmocka_unit_test(test_rss_change_beats_staleness),
		cmocka_unit_test(test_small_processes_refresh_more_often),
		cmocka_unit_test(test_no_rss_never_read),
		cmocka_unit_test(test_learned_cost_changes_budget),
		cmocka_unit_test(test_budget_bursts_of_other_work_are_paid_back),
		cmocka_unit_test(test_budget_reserve_under_overload),
		cmocka_unit_test(test_budget_debt_is_bounded_and_overdraft_owed),
		cmocka_unit_test(test_budget_overdrafts_paid_in_full_and_soon),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
