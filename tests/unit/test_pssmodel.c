/* Tests of the PSS model (estimate, bounds, sweep trigger and picks) on fake
 * process tables: no /proc. Sizes in KiB. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "pssmodel.h"

#define MIB 1024ull
#define PAGE 4ull

/* A process read when it had anon + shared RSS, with those PSS figures,
 * private pages, and unchanged since. */
static struct pssmodel_proc rd(uint64_t anon, uint64_t shared, uint64_t pss_anon, uint64_t pss_shared,
			       uint64_t priv)
{
	return (struct pssmodel_proc){.anon_rss_kib = anon, .shared_rss_kib = shared, .read = 1,
				      .rd_pss_anon_kib = pss_anon, .rd_pss_file_kib = pss_shared,
				      .rd_anon_rss_kib = anon, .rd_shared_rss_kib = shared,
				      .rd_private_kib = priv, .prog_anon_ratio = -1,
				      .prog_shared_ratio = -1};
}

static struct pssmodel_proc unread(uint64_t anon, uint64_t shared)
{
	return (struct pssmodel_proc){.anon_rss_kib = anon, .shared_rss_kib = shared,
				      .prog_anon_ratio = -1, .prog_shared_ratio = -1};
}

static void test_unchanged_read_is_certain(void **state)
{
	(void)state;
	struct pssmodel_proc p = rd(100 * MIB, 20 * MIB, 60 * MIB, 5 * MIB, 50 * MIB);

	pssmodel_estimate(&p, PAGE);
	assert_int_equal(p.est_kib, 65 * MIB);
	assert_int_equal(p.hi_kib, 65 * MIB);
	assert_int_equal(p.lo_kib, 65 * MIB);
	assert_int_equal(pssmodel_doubt(&p), 0);
	assert_true(p.exact);
}

static void test_never_read_bounded_by_rss(void **state)
{
	(void)state;
	struct pssmodel_proc p = unread(30 * MIB, 10 * MIB);

	pssmodel_estimate(&p, PAGE);
	assert_int_equal(p.est_kib, 40 * MIB); /* no ratios known: all of it */
	assert_int_equal(p.hi_kib, 40 * MIB);
	assert_int_equal(p.lo_kib, 0);
	assert_int_equal(pssmodel_doubt(&p), 40 * MIB);

	/* its program's ratios, learned from other reads, make the guess */
	p.prog_anon_ratio = 0.5;
	p.prog_shared_ratio = 0.25;
	pssmodel_estimate(&p, PAGE);
	assert_int_equal(p.est_kib, 15 * MIB + 5 * MIB / 2);
	assert_int_equal(p.hi_kib, 40 * MIB);
}

/* New anonymous pages of a process that shared none are its own: exact. */
static void test_private_growth_is_exact(void **state)
{
	(void)state;
	struct pssmodel_proc p = rd(100 * MIB, 0, 100 * MIB, 0, 100 * MIB);

	p.anon_rss_kib = 300 * MIB;
	p.faults = 200 * MIB / PAGE; /* one fault per new page */
	pssmodel_estimate(&p, PAGE);
	assert_int_equal(p.est_kib, 300 * MIB);
	assert_int_equal(pssmodel_doubt(&p), 0);
	assert_true(p.exact);
}

/* Shared growth may be pages others map (less) or new ones (all of it). */
static void test_shared_growth_bounds(void **state)
{
	(void)state;
	struct pssmodel_proc p = rd(10 * MIB, 100 * MIB, 10 * MIB, 50 * MIB, 10 * MIB);

	p.shared_rss_kib = 200 * MIB;
	pssmodel_estimate(&p, PAGE);
	assert_int_equal(p.est_kib, 10 * MIB + 100 * MIB); /* by the read's ratio, 1/2 */
	assert_int_equal(p.hi_kib, 10 * MIB + 150 * MIB);
	assert_int_equal(p.lo_kib, 10 * MIB + 50 * MIB);
	assert_false(p.exact);
}

/* A fork shares all its pages with the child: it may pay half. */
static void test_fork_halves_lower_bound(void **state)
{
	(void)state;
	struct pssmodel_proc p = rd(400 * MIB, 0, 400 * MIB, 0, 400 * MIB);

	p.forked = 1;
	pssmodel_estimate(&p, PAGE);
	assert_int_equal(p.hi_kib, 400 * MIB);
	assert_int_equal(p.lo_kib, 200 * MIB);
	assert_false(p.exact);
}

/* Others mapping pages it shares lower its share, by half their mapping at
 * most, never below what is its own. */
static void test_dilution_lowers_shared_part(void **state)
{
	(void)state;
	/* 400 MiB of shmem it was alone to map, but counted shared (Private 0) */
	struct pssmodel_proc p = rd(0, 400 * MIB, 0, 400 * MIB, 0);

	p.diluted_kib = 300 * MIB;
	pssmodel_estimate(&p, PAGE);
	assert_int_equal(p.lo_kib, 250 * MIB);
	assert_int_equal(p.hi_kib, 400 * MIB);
	assert_false(p.exact);

	p.diluted_kib = 10000 * MIB;
	pssmodel_estimate(&p, PAGE);
	assert_int_equal(p.lo_kib, 0);

	/* its private pages cannot be diluted */
	struct pssmodel_proc q = rd(100 * MIB, 0, 100 * MIB, 0, 100 * MIB);
	q.diluted_kib = 10000 * MIB;
	pssmodel_estimate(&q, PAGE);
	assert_int_equal(pssmodel_doubt(&q), 0);
}

/* Faults without RSS growth are copy-on-write breaks at most: the process may
 * pay up to a page more each, never more than what it shared. */
static void test_cow_faults(void **state)
{
	(void)state;
	struct pssmodel_proc p = rd(400 * MIB, 0, 200 * MIB, 0, 0);

	p.faults = 100 * MIB / PAGE;
	pssmodel_estimate(&p, PAGE);
	assert_int_equal(p.hi_kib, 300 * MIB);
	assert_int_equal(p.est_kib, 250 * MIB);
	assert_false(p.exact);

	p.faults = 10000 * MIB / PAGE;
	pssmodel_estimate(&p, PAGE);
	assert_int_equal(p.hi_kib, 400 * MIB); /* capped at what it shared */
}

/* A process that exits leaves its share of shared pages as a ghost: the
 * living may inherit it, up to what they did not pay for. */
static void test_ghosts(void **state)
{
	(void)state;
	struct pssmodel m = {0};
	struct pssmodel_proc gone = rd(0, 100 * MIB, 0, 50 * MIB, 0);
	struct pssmodel_proc live[1] = {rd(0, 100 * MIB, 0, 50 * MIB, 0)};
	struct pssmodel_total t;

	pssmodel_estimate(&gone, PAGE);
	assert_int_equal(pssmodel_shared_part(&gone), 50 * MIB);
	pssmodel_exit(&m, &gone);
	assert_int_equal(m.ghost_kib, 50 * MIB);

	live[0].ghosted_kib = 50 * MIB;
	pssmodel_estimate(&live[0], PAGE);
	assert_int_equal(live[0].inherit_kib, 50 * MIB);
	pssmodel_total(&m, live, 1, &t);
	assert_int_equal(t.ghost_kib, 50 * MIB);
	assert_int_equal(t.est_kib, 75 * MIB);
	assert_int_equal(t.hi_kib, 100 * MIB);
	assert_false(pssmodel_sure(&t));

	/* read again after the exit: nothing left to inherit, the ghost goes */
	live[0] = rd(0, 100 * MIB, 0, 100 * MIB, 0);
	pssmodel_estimate(&live[0], PAGE);
	pssmodel_total(&m, live, 1, &t);
	assert_int_equal(t.ghost_kib, 0);
	assert_int_equal(t.est_kib, 100 * MIB);
	assert_true(pssmodel_observe(&m, &t, 1, 0));
	assert_int_equal(m.ghost_kib, 0);
	assert_int_equal(m.peak_kib, 100 * MIB);
}

static void test_sweep_trigger(void **state)
{
	(void)state;
	struct pssmodel m = {.peak_kib = 1000 * MIB, .last_est_kib = 1005 * MIB};
	struct pssmodel_total t = {.est_kib = 1000 * MIB, .hi_kib = 1000 * MIB, .doubt_kib = 1};

	assert_false(pssmodel_need_sweep(&m, &t)); /* not above the peak */
	t.est_kib = 1011 * MIB;
	t.hi_kib = 1100 * MIB;
	assert_true(pssmodel_need_sweep(&m, &t)); /* estimate past it by > 1% */
	t.est_kib = 1008 * MIB;
	assert_false(pssmodel_need_sweep(&m, &t)); /* by 0.8% and still rising */
	m.last_est_kib = 1008 * MIB;
	assert_true(pssmodel_need_sweep(&m, &t)); /* by 0.8%, settled */
	t.est_kib = 1001 * MIB;
	m.last_est_kib = 1001 * MIB;
	assert_false(pssmodel_need_sweep(&m, &t)); /* within 0.2% */
	t.est_kib = 900 * MIB;
	t.hi_kib = 1600 * MIB;
	assert_true(pssmodel_need_sweep(&m, &t)); /* a low estimate with a bound far above */
	t.doubt_kib = 0;
	t.est_kib = t.hi_kib = 1100 * MIB;
	assert_false(pssmodel_need_sweep(&m, &t)); /* no doubt: nothing a read could add */
	t.doubt_kib = 1;
	m.peak_kib = 0;
	t.est_kib = t.hi_kib = 32;
	assert_false(pssmodel_need_sweep(&m, &t)); /* a few pages: not worth it */
	t.est_kib = t.hi_kib = 1 * MIB;
	assert_true(pssmodel_need_sweep(&m, &t)); /* nothing measured yet */
}

/* The shmfork case: a parent alone with 400 MiB of shmem, then three children
 * mapping it. The sum of bounds is 1.6 GiB; the sweep must read the children
 * (never read) and the parent (its share fell), most doubt first, and stop
 * once what is left unread is certain. */
static void test_pick_most_doubt_first(void **state)
{
	(void)state;
	struct pssmodel m = {.peak_kib = 400 * MIB};
	struct pssmodel_proc p[5] = {
		rd(0, 400 * MIB, 0, 400 * MIB, 0),
		unread(1 * MIB, 400 * MIB),
		unread(64 * MIB, 400 * MIB),
		unread(1 * MIB, 100 * MIB),
		rd(2 * MIB, 0, 2 * MIB, 0, 2 * MIB), /* an unrelated certain one */
	};
	struct pssmodel_total t;
	uint32_t out[5];

	p[0].diluted_kib = 900 * MIB;
	for (int i = 0; i < 5; i++)
		pssmodel_estimate(&p[i], PAGE);
	pssmodel_total(&m, p, 5, &t);
	assert_true(pssmodel_need_sweep(&m, &t));
	size_t k = pssmodel_pick(&m, p, 5, &t, out);
	assert_int_equal(k, 4);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[2], 0); /* doubt 400: its share may have fallen to 0 */
	assert_int_equal(out[3], 3);

	/* after the reads: 100 MiB of shmem each, the children's own on top */
	p[0] = rd(0, 400 * MIB, 0, 100 * MIB, 0);
	p[1] = rd(1 * MIB, 400 * MIB, 1 * MIB, 100 * MIB, 1 * MIB);
	p[2] = rd(64 * MIB, 400 * MIB, 64 * MIB, 100 * MIB, 64 * MIB);
	p[3] = rd(1 * MIB, 100 * MIB, 1 * MIB, 100 * MIB, 1 * MIB);
	for (int i = 0; i < 5; i++)
		pssmodel_estimate(&p[i], PAGE);
	pssmodel_total(&m, p, 5, &t);
	assert_int_equal(t.est_kib, 468 * MIB);
	assert_int_equal(t.doubt_kib, 0);
	assert_true(pssmodel_observe(&m, &t, 1, 0));
	assert_int_equal(m.peak_kib, 468 * MIB);
	/* an unstable sweep (processes moved while read) is no measurement */
	t.est_kib = 500 * MIB;
	assert_false(pssmodel_observe(&m, &t, 0, 1));
	assert_int_equal(m.peak_kib, 468 * MIB);
}

/* Picks stop when the doubt left is under PSSMODEL_SURE of the total. */
static void test_pick_stops_when_sure(void **state)
{
	(void)state;
	struct pssmodel m = {0};
	struct pssmodel_proc p[3] = {
		rd(1000 * MIB, 0, 1000 * MIB, 0, 1000 * MIB),
		unread(2 * MIB, 0),  /* 2 MiB of doubt: 0.2% of 1 GiB */
		unread(50 * MIB, 0),
	};
	struct pssmodel_total t;
	uint32_t out[3];

	for (int i = 0; i < 3; i++)
		pssmodel_estimate(&p[i], PAGE);
	pssmodel_total(&m, p, 3, &t);
	assert_int_equal(pssmodel_pick(&m, p, 3, &t, out), 1);
	assert_int_equal(out[0], 2);
}

/* What a fake sweep's reads find: the truth of each process, by index. */
struct truth {
	struct pssmodel_proc *procs, *real;
	unsigned reads[4];
};

static void read_truth(void *ctx, uint32_t i)
{
	struct truth *tr = ctx;

	tr->procs[i] = tr->real[i];
	pssmodel_estimate(&tr->procs[i], PAGE);
	tr->reads[i]++;
}

/* A fresh sweep over p[1] and p[2] unread (anon KiB a1, a2) after p[0]:
 * estimated, totalled, swept with tr's truths; returns how many it read. */
static size_t sweep_fresh(struct pssmodel *m, struct truth *tr, uint64_t a1, uint64_t a2,
			  struct pssmodel_total *t, uint32_t *out)
{
	tr->procs[1] = unread(a1, 0);
	tr->procs[2] = unread(a2, 0);
	memset(tr->reads, 0, sizeof(tr->reads));
	for (int i = 0; i < 3; i++)
		pssmodel_estimate(&tr->procs[i], PAGE);
	pssmodel_total(m, tr->procs, 3, t);
	return pssmodel_sweep(m, tr->procs, 3, t, out, read_truth, tr);
}

/* A sweep's reads lower the total, and with it the doubt it may leave unread:
 * 5.4 MiB left unread is within 0.5% of the 1105.4 MiB estimated, not of
 * the 1045.4 MiB there are once the big one is read. The sweep reads on,
 * and its sample is a measurement (a sweep that stopped there was none,
 * and on a plateau was not tried again: the peak stayed unconfirmed). */
static void test_sweep_reads_on_when_the_total_falls(void **state)
{
	(void)state;
	struct pssmodel m = {.peak_kib = 500 * MIB};
	struct pssmodel_proc p[3] = {
		rd(1000 * MIB, 0, 1000 * MIB, 0, 1000 * MIB),
		unread(100 * MIB, 0),
		unread(5400, 0),
	};
	struct pssmodel_proc real[3] = {
		p[0],
		rd(100 * MIB, 0, 40 * MIB, 0, 0), /* it shares 100 MiB with one outside */
		rd(5400, 0, 5400, 0, 5400),
	};
	struct truth tr = {p, real, {0}};
	struct pssmodel_total t;
	uint32_t out[3];

	for (int i = 0; i < 3; i++)
		pssmodel_estimate(&p[i], PAGE);
	pssmodel_total(&m, p, 3, &t);
	assert_int_equal(t.est_kib, 1105 * MIB + 5400 - 5 * MIB);
	assert_true(pssmodel_need_sweep(&m, &t));
	/* one pick alone stops after the big one */
	assert_int_equal(pssmodel_pick(&m, p, 3, &t, out), 1);
	assert_int_equal(out[0], 1);

	assert_int_equal(pssmodel_sweep(&m, p, 3, &t, out, read_truth, &tr), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	assert_int_equal(tr.reads[0], 0);
	assert_int_equal(tr.reads[1], 1); /* read once: not picked again */
	assert_int_equal(tr.reads[2], 1);
	assert_int_equal(t.est_kib, 1040 * MIB + 5400);
	assert_int_equal(t.doubt_kib, 0);
	assert_true(pssmodel_observe(&m, &t, 1, 1));
	assert_int_equal(m.peak_kib, 1040 * MIB + 5400);

	/* one it cannot read: the sweep reads the rest and stops, unsure */
	p[1] = unread(100 * MIB, 0);
	p[2] = unread(5400, 0);
	p[2].unreadable = 1;
	memset(tr.reads, 0, sizeof(tr.reads));
	for (int i = 0; i < 3; i++)
		pssmodel_estimate(&p[i], PAGE);
	pssmodel_total(&m, p, 3, &t);
	assert_int_equal(pssmodel_sweep(&m, p, 3, &t, out, read_truth, &tr), 1);
	assert_int_equal(tr.reads[1], 1);
	assert_int_equal(tr.reads[2], 0);
	assert_false(pssmodel_sure(&t));

	/* one whose read leaves a doubt (it forked as it was read: 4 MiB of
	 * its 8 may be its child's now): read once, not again; the round after
	 * reads the small one instead, and 4 MiB of 1010 is within 0.5% */
	real[1] = rd(8 * MIB, 0, 8 * MIB, 0, 8 * MIB);
	real[1].forked = 1;
	real[2] = rd(2 * MIB, 0, 2 * MIB, 0, 2 * MIB);
	assert_int_equal(sweep_fresh(&m, &tr, 100 * MIB, 2 * MIB, &t, out), 2);
	assert_int_equal(tr.reads[1], 1);
	assert_int_equal(tr.reads[2], 1);
	assert_int_equal(t.doubt_kib, 4 * MIB);
	assert_true(pssmodel_sure(&t));

	/* what it kept is past 0.5% by itself (20 MiB of 1045): no reading of
	 * the rest can make the sample sure, and none is made */
	real[1] = rd(100 * MIB, 0, 40 * MIB, 0, 0);
	real[1].forked = 1;
	assert_int_equal(sweep_fresh(&m, &tr, 100 * MIB, 5400, &t, out), 1);
	assert_int_equal(tr.reads[1], 1);
	assert_int_equal(tr.reads[2], 0);
	assert_false(pssmodel_sure(&t));
}

/* Fork, then the child writes all it shared: its copy-on-write breaks pass its
 * share of those pages to the parent, whose counters do not move. The parent
 * must be in doubt, not "exact" at its old share. */
static void test_cow_release_reaches_the_partner(void **state)
{
	(void)state;
	struct pssmodel m = {0};
	struct pssmodel_proc p[2] = {rd(400 * MIB, 0, 200 * MIB, 0, 0), rd(400 * MIB, 0, 200 * MIB, 0, 0)};
	struct pssmodel_total t;

	p[1].faults = 400 * MIB / PAGE; /* every page written, RSS unchanged */
	pssmodel_estimate(&p[1], PAGE);
	assert_int_equal(p[1].released_kib, 200 * MIB);
	assert_int_equal(p[1].hi_kib, 400 * MIB);
	pssmodel_add_ghost(&m, p[1].released_kib);
	p[0].ghosted_kib = p[1].released_kib; /* what the collector's running total gives it */
	pssmodel_estimate(&p[0], PAGE);
	assert_false(p[0].exact);
	assert_int_equal(p[0].inherit_kib, 200 * MIB);
	pssmodel_total(&m, p, 2, &t);
	assert_true(t.hi_kib >= 800 * MIB); /* the truth: both pay for all of theirs */
	assert_false(pssmodel_sure(&t));
}

/* A sweep that cannot make its sample sure (a process it cannot read) is not
 * repeated until the estimate passes what it tried; unreadable processes are
 * not picked. */
static void test_unsure_sweep_backs_off(void **state)
{
	(void)state;
	struct pssmodel m = {.peak_kib = 100 * MIB};
	struct pssmodel_proc p[2] = {rd(100 * MIB, 0, 100 * MIB, 0, 100 * MIB), unread(50 * MIB, 0)};
	struct pssmodel_total t;
	uint32_t out[2];

	p[1].unreadable = 1;
	for (int i = 0; i < 2; i++)
		pssmodel_estimate(&p[i], PAGE);
	pssmodel_total(&m, p, 2, &t);
	assert_true(pssmodel_need_sweep(&m, &t));
	assert_int_equal(pssmodel_pick(&m, p, 2, &t, out), 0);
	assert_false(pssmodel_observe(&m, &t, 1, 1));
	assert_int_equal(m.tried_kib, 150 * MIB);
	assert_false(pssmodel_need_sweep(&m, &t)); /* the same again: no */
	p[0].anon_rss_kib = 110 * MIB;
	pssmodel_estimate(&p[0], PAGE);
	pssmodel_total(&m, p, 2, &t);
	assert_true(pssmodel_need_sweep(&m, &t)); /* 160 > 150 by > 1% */
}

/* A sweep for an instant before a process began (an end traced between two
 * ticks) leaves that process unread: it is not picked, and its doubt, which
 * no read of the others can settle, does not stop them being read. */
static void test_sweep_skips_the_later(void **state)
{
	(void)state;
	struct pssmodel m = {.peak_kib = 100 * MIB};
	struct pssmodel_proc p[2] = {unread(40 * MIB, 0), unread(50 * MIB, 0)};
	struct pssmodel_total t;
	uint32_t out[2];

	for (int i = 0; i < 2; i++)
		pssmodel_estimate(&p[i], PAGE);
	pssmodel_total(&m, p, 2, &t);
	assert_true(pssmodel_doubt(&p[1]) > 0);
	assert_int_equal(pssmodel_pick(&m, p, 2, &t, out), 2);
	assert_int_equal(out[0], 1); /* the most doubt first */
	p[1].skip = 1;
	assert_int_equal(pssmodel_pick(&m, p, 2, &t, out), 1);
	assert_int_equal(out[0], 0);
	/* marked read as well (a sweep's earlier pass): its doubt still does
	 * not count as what the reads left (that would stop the picking) */
	p[1].swept = 1;
	assert_int_equal(pssmodel_pick(&m, p, 2, &t, out), 1);
	assert_int_equal(out[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unchanged_read_is_certain),
		cmocka_unit_test(test_never_read_bounded_by_rss),
		cmocka_unit_test(test_private_growth_is_exact),
		cmocka_unit_test(test_shared_growth_bounds),
		cmocka_unit_test(test_fork_halves_lower_bound),
		cmocka_unit_test(test_dilution_lowers_shared_part),
		cmocka_unit_test(test_cow_faults),
		cmocka_unit_test(test_ghosts),
		cmocka_unit_test(test_sweep_trigger),
		cmocka_unit_test(test_pick_most_doubt_first),
		cmocka_unit_test(test_pick_stops_when_sure),
		cmocka_unit_test(test_sweep_reads_on_when_the_total_falls),
		cmocka_unit_test(test_cow_release_reaches_the_partner),
		cmocka_unit_test(test_unsure_sweep_backs_off),
		cmocka_unit_test(test_sweep_skips_the_later),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
