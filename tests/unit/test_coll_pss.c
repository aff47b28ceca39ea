/* Unit tests for coll_pss.c on a fake /proc and the injected clock: the
 * PSS of a process is its smaps_rollup read; the clock decides the ages of
 * reads and the times of peaks; the run's peak is the highest measured
 * sample, an unconfirmed higher estimate kept apart. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fakeproc.h"

#define P FP_PID
#define MS 1000000ull

/* P's statm and a consistent smaps_rollup: res pages resident, shr of them
 * shared; its PSS pss_anon + pss_file KiB. */
static void set_mem(struct fakeproc *f, uint64_t res, uint64_t shr, uint64_t pss_anon, uint64_t pss_file)
{
	uint64_t pk = (uint64_t)procfs_page_kib();

	fp_stat(f, P, &(struct fp_stat){.ppid = 1, .comm = "cc1", .start_ticks = 10, .rss_pages = res});
	fp_statm(f, P, 10000, res, shr);
	fp_rollup(f, P, res * pk, (res - shr) * pk, pss_anon, pss_file, 0, pss_anon);
}

/* Netlink mode, following P (exec'd), with no budget left for reads of the
 * scheduler's own (its account overdrawn): reads are the test's. */
static struct fakeproc *follow(void)
{
	struct fakeproc *f = fp_new(1);

	set_mem(f, 300, 100, 800, 100);
	f->c->cfg.budget = 1e-12;
	f->c->pm.tokens.main_ns = f->c->pm.tokens.reserve_ns = -1e12;
	f->c->root = P;
	struct pentry *e = coll_sample_add_proc(f->c, P, 1, f->now_ns, NULL);
	assert_non_null(e);
	e->rec.nexec = 1;
	return f;
}

static struct pentry *proc(struct fakeproc *f)
{
	return ptable_get(f->c->pt, P);
}

/* A read at t, then a tick at t. */
static void read_and_tick(struct fakeproc *f)
{
	coll_sample_cheap(f->c, proc(f), f->now_ns);
	coll_pss_read(f->c, proc(f), f->now_ns, NULL);
	collector_tick(f->c);
}

/* Ages and peak times come from the injected clock. */
static void test_pss_clock(void **state)
{
	(void)state;
	struct fakeproc *f = follow();
	uint64_t t1 = f->now_ns;

	read_and_tick(f);
	assert_int_equal(proc(f)->rec.pss_kib, 900);
	assert_int_equal(proc(f)->rec.pss_age_ns, 0);
	assert_int_equal(proc(f)->rec.peak_pss_t_ns, t1);
	assert_int_equal(f->c->sum.peak.t_ns, t1);

	/* 300 ms later, unread and unchanged: the read is 300 ms old */
	f->now_ns = t1 + 300 * MS;
	collector_tick(f->c);
	assert_int_equal(proc(f)->rec.pss_kib, 900);
	assert_int_equal(proc(f)->rec.pss_age_ns, 300 * MS);
	assert_int_equal(f->c->sum.pss_max_age_ns, 300 * MS);

	/* grown and read at t3: the new peak is at t3 */
	uint64_t t3 = t1 + 700 * MS;
	f->now_ns = t3;
	set_mem(f, 900, 100, 3000, 100);
	read_and_tick(f);
	assert_int_equal(proc(f)->rec.pss_kib, 3100);
	assert_int_equal(proc(f)->rec.peak_pss_kib, 3100);
	assert_int_equal(proc(f)->rec.peak_pss_t_ns, t3);
	assert_int_equal(f->c->sum.peak.t_ns, t3);
	assert_int_equal(f->c->sum.peak.pss_kib, 3100);
	assert_true(f->c->sum.peak_measured);

	/* shrunk at t4: the peaks stay at t3 */
	f->now_ns = t3 + 200 * MS;
	set_mem(f, 200, 50, 500, 50);
	read_and_tick(f);
	assert_int_equal(proc(f)->rec.pss_kib, 550);
	assert_int_equal(proc(f)->rec.peak_pss_t_ns, t3);
	assert_int_equal(f->c->sum.peak.t_ns, t3);
	assert_int_equal(f->c->sum.last.t_ns, t3 + 200 * MS);
	fp_free(f);
}

/* P's smaps_rollup with swap, huge pages and locked memory (KiB). */
static void set_kinds(struct fakeproc *f, uint64_t swap, uint64_t thp, uint64_t locked)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/smaps_rollup", (int)P);
	fp_printf(f, rel,
		  "5652a31dc000-7ffc18c2e000 ---p 00000000 00:00 0                          [rollup]\n"
		  "Rss:                1200 kB\nPss:                 900 kB\nPss_Anon:            800 kB\n"
		  "Pss_File:            100 kB\nPss_Shmem:             0 kB\nPrivate_Clean:         0 kB\n"
		  "Private_Dirty:       800 kB\nAnonymous:           800 kB\nAnonHugePages:  %8" PRIu64 " kB\n"
		  "Swap:           %8" PRIu64 " kB\nSwapPss:        %8" PRIu64 " kB\nLocked:         %8" PRIu64 " kB\n",
		  thp, swap, swap, locked);
}

/* The kinds of the tree's memory: each sample has its processes' last reads
 * of swap, huge pages and locked memory; the summary their highest, and when
 * the swap was highest. */
static void test_pss_kinds(void **state)
{
	(void)state;
	struct fakeproc *f = follow();

	set_kinds(f, 0, 512, 64);
	read_and_tick(f);
	assert_true(f->c->sum.last.valid & SAMPLE_KINDS);
	assert_int_equal(f->c->sum.last.swap_kib, 0);
	assert_int_equal(f->c->sum.last.thp_kib, 512);
	assert_int_equal(f->c->sum.last.locked_kib, 64);
	assert_true(f->c->sum.kinds_known);
	/* 2 MiB swapped out at t2 */
	uint64_t t2 = f->now_ns += 100 * MS;
	set_kinds(f, 2048, 0, 64);
	read_and_tick(f);
	assert_int_equal(f->c->sum.last.swap_kib, 2048);
	assert_int_equal(f->c->sum.max_swap_kib, 2048);
	assert_int_equal(f->c->sum.max_swap_t_ns, t2);
	/* back in: the sample says 0, the run's highest stays */
	f->now_ns += 100 * MS;
	set_kinds(f, 0, 0, 0);
	read_and_tick(f);
	assert_int_equal(f->c->sum.last.swap_kib, 0);
	assert_int_equal(f->c->sum.max_swap_kib, 2048);
	assert_int_equal(f->c->sum.max_thp_kib, 512);
	assert_int_equal(f->c->sum.max_locked_kib, 64);
	fp_free(f);
}

/* The run's peak is the highest measured sample; a higher estimate that no
 * read confirmed is kept apart; the estimated share is weighed by the time
 * each sample stood for. */
static void test_pss_peak(void **state)
{
	(void)state;
	struct fakeproc *f = follow();
	struct sample m = {.t_ns = 1000 * MS, .pss_kib = 1000, .pss_est_kib = 0};
	struct sample e = {.t_ns = 1100 * MS, .pss_kib = 2000, .pss_est_kib = 2000};

	f->c->last_tick_ns = 900 * MS;
	coll_pss_peak(f->c, &m, 1, m.t_ns, NULL);
	f->c->last_tick_ns = m.t_ns;
	coll_pss_peak(f->c, &e, 0, e.t_ns, NULL);
	assert_true(f->c->sum.peak_measured);
	assert_int_equal(f->c->sum.peak.t_ns, m.t_ns);
	assert_int_equal(f->c->sum.peak.pss_kib, 1000);
	assert_int_equal(f->c->sum.peak_unconfirmed_kib, 2000);
	/* 100 ms of 1000 KiB measured, 100 ms of 2000 KiB estimated */
	assert_true(f->c->sum.pss_est_share > 2.0 / 3 - 1e-9 && f->c->sum.pss_est_share < 2.0 / 3 + 1e-9);
	assert_false(f->c->sum.peak_floor);
	fp_free(f);
}

/* An estimate above the measured peak that no sweep could settle (a climb
 * read while it moved) is no figure, but its floor is: the tree had at least
 * its processes' lower bounds then. The highest floor is the peak while it
 * is above every sum of reads, said as such (not measured); a later higher
 * sum of reads takes its place. */
static void test_pss_peak_floor(void **state)
{
	(void)state;
	struct fakeproc *f = follow();
	struct sample m = {.t_ns = 1000 * MS, .pss_kib = 1000, .pss_anon_kib = 1000};
	struct sample e = {.t_ns = 1100 * MS, .pss_kib = 1400, .pss_anon_kib = 1000, .pss_file_kib = 400,
			   .pss_est_kib = 300, .pss_hi_kib = 1500};
	struct sample e2 = {.t_ns = 1200 * MS, .pss_kib = 1300, .pss_anon_kib = 1300, .pss_est_kib = 300,
			    .pss_hi_kib = 1350};
	struct sample m2 = {.t_ns = 1300 * MS, .pss_kib = 1150, .pss_anon_kib = 1150};

	coll_pss_peak(f->c, &m, 1, m.t_ns, NULL);
	f->c->tick_lo_kib = 1200; /* e's processes' lower bounds */
	coll_pss_peak(f->c, &e, 0, e.t_ns, NULL);
	assert_false(f->c->sum.peak_measured);
	assert_true(f->c->sum.peak_floor);
	assert_int_equal(f->c->sum.peak.t_ns, e.t_ns);
	assert_int_equal(f->c->sum.peak.pss_kib, 1200);
	/* its parts scaled to it; how far above it the tree may have been */
	assert_int_equal(f->c->sum.peak.pss_anon_kib + f->c->sum.peak.pss_file_kib, 1200);
	assert_int_equal(f->c->sum.peak.pss_est_kib, 300);
	/* a lower floor later changes nothing */
	f->c->tick_lo_kib = 1100;
	coll_pss_peak(f->c, &e2, 0, e2.t_ns, NULL);
	assert_int_equal(f->c->sum.peak.pss_kib, 1200);
	/* a sum of reads above the last one but under the floor: the floor stays */
	coll_pss_peak(f->c, &m2, 1, m2.t_ns, NULL);
	assert_true(f->c->sum.peak_floor);
	assert_int_equal(f->c->sum.peak.pss_kib, 1200);
	/* a sum of reads above it takes its place */
	struct sample m3 = {.t_ns = 1400 * MS, .pss_kib = 1210, .pss_anon_kib = 1210};
	f->c->tick_lo_kib = 0;
	coll_pss_peak(f->c, &m3, 1, m3.t_ns, NULL);
	assert_false(f->c->sum.peak_floor);
	assert_true(f->c->sum.peak_measured);
	assert_int_equal(f->c->sum.peak.pss_kib, 1210);
	fp_free(f);
}

/* P maps 10 times the pages, most of them shared, unread: the tree's
 * estimate passes the measured peak, in doubt (how many others share those
 * pages?), so the tick sweeps (reads P whatever the budget). A sweep whose read
 * agrees with statm after it is a measured new peak; one whose process
 * moved meanwhile (smaps_rollup's Rss far from statm's) is no measurement,
 * and no floor: the measured peak stays. */
static void test_pss_sweep(void **state)
{
	(void)state;
	uint64_t pk = (uint64_t)procfs_page_kib();

	for (int moved = 0; moved <= 1; moved++) {
		struct fakeproc *f = follow();
		uint64_t t1 = f->now_ns, t2 = t1 + 100 * MS;
		read_and_tick(f);
		assert_int_equal(f->c->sum.peak.pss_kib, 900);
		f->now_ns = t2;
		set_mem(f, 3000, 2000, 4000, 2000);
		if (moved)
			fp_rollup(f, P, 1000 * pk, 900 * pk, 4000, 2000, 0, 4000);
		collector_tick(f->c);
		assert_int_equal(f->c->sum.pss_sweeps, 1);
		assert_int_equal(f->c->sum.pss_sweep_reads, 1);
		assert_int_equal(proc(f)->rd_t_ns, t2);
		assert_int_equal(f->c->sum.pss_sweeps_unstable, moved);
		/* (reads that moved make no floor either: their shares may
		 * count a page at two ratios) */
		assert_true(f->c->sum.peak_measured);
		assert_false(f->c->sum.peak_floor);
		if (!moved) {
			assert_int_equal(f->c->sum.peak.pss_kib, 6000);
			assert_int_equal(f->c->sum.peak.t_ns, t2);
		} else {
			assert_int_equal(f->c->sum.peak.pss_kib, 900);
			assert_int_equal(f->c->sum.peak.t_ns, t1);
		}
		fp_free(f);
	}
}

/* Two compilers share their text: P and Q each have 400 KiB of their own
 * and 2000 KiB of file pages, half of each in their PSS; P is read. Then Q
 * exits: its status shows no memory (its mm let go of) a tick before its
 * exit event comes, and P may inherit Q's share of the text (1000 KiB): the
 * tree's upper bound must hold it.
 * - Q never read: its share is reckoned from the figures it had before its
 *   memory went (left to its exit event, they were zeros: no ghost);
 * - Q read: P read again before Q's exit event, while Q's pages may still be
 *   mapped (the read shows half the text still), keeps the share to inherit. */
static void test_pss_exit_before_event(void **state)
{
	(void)state;
	uint64_t pk = (uint64_t)procfs_page_kib();

	for (int qread = 0; qread <= 1; qread++) {
		struct fakeproc *f = follow();
		pid_t q = P + 1;
		char rel[64];

		set_mem(f, 2400 / pk, 2000 / pk, 400, 1000);
		fp_stat(f, q, &(struct fp_stat){.ppid = 1, .comm = "cc1", .start_ticks = 10, .rss_pages = 2400 / pk});
		fp_statm(f, q, 10000, 2400 / pk, 2000 / pk);
		fp_rollup(f, q, 2400, 400, 400, 1000, 0, 400);
		struct pentry *eq = coll_sample_add_proc(f->c, q, 1, f->now_ns, NULL);
		assert_non_null(eq);
		eq->rec.nexec = 1;
		memcpy(eq->rec.comm, "cc1", 4);
		coll_sample_cheap(f->c, eq, f->now_ns);
		if (qread)
			coll_pss_read(f->c, eq, f->now_ns, NULL);
		else
			f->c->pm.model.peak_kib = 1 << 20; /* no sweep reads Q */
		read_and_tick(f);
		assert_int_equal(ptable_get(f->c->pt, q)->rd_ok, qread);
		if (qread)
			assert_int_equal(f->c->sum.last.pss_kib, 2800);

		f->now_ns += 100 * MS;
		fp_stat(f, q, &(struct fp_stat){.ppid = 1, .comm = "cc1", .state = 'R', .start_ticks = 10});
		snprintf(rel, sizeof(rel), "%d/status", (int)q);
		fp_printf(f, rel, "Name:\tcc1\nState:\tR (running)\n");
		snprintf(rel, sizeof(rel), "%d/statm", (int)q);
		fp_printf(f, rel, "0 0 0 0 0 0 0\n");
		collector_tick(f->c);
		assert_true(ptable_get(f->c->pt, q)->mem_left);
		assert_int_equal(ptable_get(f->c->pt, q)->rec.pss_kib, 0); /* its memory is gone */
		assert_true(f->c->sum.last.pss_hi_kib >= 1400 + 1000);
		if (qread) {
			coll_pss_read(f->c, proc(f), f->now_ns, NULL);
		} else {
			fp_gone(f, q);
			coll_sample_retire(f->c, ptable_get(f->c->pt, q), f->now_ns, 0, 1, NULL);
			assert_null(ptable_get(f->c->pt, q));
		}
		f->now_ns += 100 * MS;
		collector_tick(f->c);
		assert_true(f->c->sum.last.pss_hi_kib >= 1400 + 1000);
		fp_free(f);
	}
}

/* spacetime's own CPU time, a system call here, is read for the budget when a
 * read could be bought and the main account could pay it, and once a second:
 * not at every tick while the account is overdrawn; a read the reserve pays
 * goes on without it. */
static void test_pss_schedule_self_cpu(void **state)
{
	(void)state;
	struct fakeproc *f = follow();
	uint64_t t = f->now_ns;

	f->c->cfg.budget = 0.01;
	coll_sample_cheap(f->c, proc(f), t);
	coll_pss_schedule(f->c, t); /* the first learns it */
	assert_int_equal(f->c->pm.sched_read_ns, t);
	for (int i = 1; i < 10; i++) {
		f->now_ns = t + (uint64_t)i * 100 * MS;
		coll_pss_schedule(f->c, f->now_ns);
		f->c->last_tick_ns = f->now_ns;
		assert_int_equal(f->c->pm.sched_read_ns, t); /* overdrawn: not read */
	}
	f->now_ns = t + 1000 * MS;
	coll_pss_schedule(f->c, f->now_ns);
	f->c->last_tick_ns = f->now_ns;
	assert_int_equal(f->c->pm.sched_read_ns, f->now_ns); /* a second on */
	assert_int_equal(f->c->sum.pss_reads, 0);

	/* money in the main account: read, and the clock with it */
	f->c->pm.tokens.main_ns = 1e9;
	f->c->pm.tokens.reserve_ns = 0;
	f->now_ns = t + 1100 * MS;
	coll_pss_schedule(f->c, f->now_ns);
	f->c->last_tick_ns = f->now_ns;
	assert_int_equal(f->c->sum.pss_reads, 1);
	assert_int_equal(f->c->pm.sched_read_ns, f->now_ns);

	/* the main account empty for good, the reserve full: it reads, and the
	 * rest's cost could not stop it, so the clock is not read */
	f->c->pm.tokens.main_ns = -1e12;
	f->c->pm.tokens.reserve_ns = 1e9;
	f->now_ns = t + 1400 * MS;
	coll_pss_schedule(f->c, f->now_ns);
	assert_int_equal(f->c->sum.pss_reads, 2);
	assert_int_equal(f->c->pm.sched_read_ns, t + 1100 * MS);
	fp_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pss_schedule_self_cpu),
		cmocka_unit_test(test_pss_clock),
		cmocka_unit_test(test_pss_exit_before_event),
		cmocka_unit_test(test_pss_kinds),
		cmocka_unit_test(test_pss_peak),
		cmocka_unit_test(test_pss_peak_floor),
		cmocka_unit_test(test_pss_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
