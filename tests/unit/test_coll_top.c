/* Unit tests for coll_top.c, the peak between samples: alone (its bound of
 * an interval, a gain known late, a process gone without a high-water mark,
 * exit samples), and on the collector's seam (a fake /proc, the injected
 * clock, records and events handed in as the tick would read them): two
 * processes climbing at different rates meet at their tops between two
 * regular ticks, one exiting there; a process born and gone between ticks
 * at its top; the reported peak is the meeting's, and the bound holds it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fakeproc.h"

#define R FP_PID
#define A (FP_PID + 1)
#define B (FP_PID + 2)
#define C (FP_PID + 3)
#define MS 1000000ull
#define MIB 1024ull


/* coll_top_seen with the model's figures est, lo and hi; its own pages lo;
 * nothing copied on writes. */
static void seen_fig(struct coll_top *t, struct coll_top_proc *p, uint64_t rss_kib, uint64_t file_kib,
		     uint64_t max_kib, uint64_t est_kib, uint64_t lo_kib, uint64_t hi_kib, int known,
		     uint64_t start_ns)
{
	const struct coll_top_look l = {.rss_kib = rss_kib, .file_kib = file_kib, .max_kib = max_kib,
					.start_ns = start_ns, .known = known, .fig = {est_kib, lo_kib, hi_kib, lo_kib}};
	coll_top_seen(t, p, &l);
}

/* coll_top_gone with its top, est and floor; nothing copied on writes. */
static void gone_fig(struct coll_top *t, const struct coll_top_proc *p, pid_t pid, uint64_t t_ns, uint64_t top_kib,
		     int top_known, uint64_t est_kib, uint64_t lo_kib, int can_top, uint64_t start_ns)
{
	const struct coll_top_leave l = {.pid = pid, .t_ns = t_ns, .start_ns = start_ns, .top_kib = top_kib,
					 .est_kib = est_kib, .lo_kib = lo_kib, .top_known = top_known,
					 .can_top = can_top};
	coll_top_gone(t, p, &l);
}

/* The interval's bound, the lesser of two. Forward: the tree's bound at its
 * first tick, plus each seen process's gain up to its most (with the
 * counters' slack), plus a born one's most RSS. Backward: the tree's bound
 * at its closing tick plus what each process lost from its most. A sample's
 * own bound counts too. */
static void test_bound_interval(void **state)
{
	(void)state;
	struct coll_top t = {0};
	struct coll_top_proc a = {0}, b = {0}, c = {0};

	seen_fig(&t, &a, 10 * MIB, 0, 10 * MIB, 9 * MIB, 9 * MIB, 9 * MIB, 1, 0);
	seen_fig(&t, &b, 20 * MIB, 0, 20 * MIB, 19 * MIB, 19 * MIB, 19 * MIB, 1, 0);
	coll_top_close(&t, 28 * MIB, 100 * MS);
	assert_true(t.bound_kib >= 28 * MIB);
	/* a rose to 30 between the ticks and came back to 12 (its high-water
	 * mark), b grew to 25; c was born and is at 5 */
	seen_fig(&t, &a, 12 * MIB, 0, 30 * MIB, 11 * MIB, 11 * MIB, 11 * MIB, 1, 0);
	seen_fig(&t, &b, 25 * MIB, 0, 25 * MIB, 24 * MIB, 24 * MIB, 24 * MIB, 1, 0);
	seen_fig(&t, &c, 5 * MIB, 0, 5 * MIB, 4 * MIB, 4 * MIB, 4 * MIB, 1, 0);
	coll_top_close(&t, 39 * MIB, 200 * MS);
	uint64_t fwd = 28 * MIB + 20 * MIB + 5 * MIB + 4 * MIB + 3 * COLL_TOP_SLACK_KIB;
	uint64_t want = 39 * MIB + 18 * MIB + COLL_TOP_SLACK_KIB; /* a lost 18 from its most */
	assert_int_equal(t.hist[t.tick % COLL_TOP_HIST].fwd_kib, fwd);
	assert_int_equal(t.hist[t.tick % COLL_TOP_HIST].back_kib, want);
	assert_int_equal(t.bound_kib, want); /* the lesser */
	assert_int_equal(t.bound_t_ns, 200 * MS);
	assert_int_equal(t.unknown, 0);
	/* unmoved: nothing added, the bound stays */
	seen_fig(&t, &a, 12 * MIB, 0, 12 * MIB, 11 * MIB, 11 * MIB, 11 * MIB, 1, 0);
	seen_fig(&t, &b, 25 * MIB, 0, 25 * MIB, 24 * MIB, 24 * MIB, 24 * MIB, 1, 0);
	seen_fig(&t, &c, 5 * MIB, 0, 5 * MIB, 4 * MIB, 4 * MIB, 4 * MIB, 1, 0);
	coll_top_close(&t, 39 * MIB, 300 * MS);
	assert_int_equal(t.bound_kib, want);
	assert_int_equal(t.bound_t_ns, 200 * MS);
	/* forward the lesser: b grows to 40 and c to 7 (its most, then 6);
	 * the closing tick's own bound is loose (b and c unread: 70) */
	seen_fig(&t, &a, 12 * MIB, 0, 12 * MIB, 11 * MIB, 11 * MIB, 11 * MIB, 1, 0);
	seen_fig(&t, &b, 40 * MIB, 0, 40 * MIB, 39 * MIB, 39 * MIB, 50 * MIB, 1, 0);
	seen_fig(&t, &c, 6 * MIB, 0, 7 * MIB, 6 * MIB, 6 * MIB, 9 * MIB, 1, 0);
	coll_top_close(&t, 70 * MIB, 400 * MS);
	uint64_t fwd4 = 39 * MIB + 15 * MIB + 2 * MIB + 2 * COLL_TOP_SLACK_KIB;
	assert_int_equal(t.hist[t.tick % COLL_TOP_HIST].fwd_kib, fwd4);
	assert_int_equal(t.hist[t.tick % COLL_TOP_HIST].back_kib, 71 * MIB + COLL_TOP_SLACK_KIB);
	assert_int_equal(t.bound_kib, want); /* the run's: the highest interval's */
	/* a later tick reads them (54): the interval's backward bound is
	 * that plus what was let go of in both, below its forward one now */
	seen_fig(&t, &a, 12 * MIB, 0, 12 * MIB, 11 * MIB, 11 * MIB, 11 * MIB, 1, 0);
	seen_fig(&t, &b, 40 * MIB, 0, 40 * MIB, 39 * MIB, 39 * MIB, 39 * MIB, 1, 0);
	seen_fig(&t, &c, 6 * MIB, 0, 6 * MIB, 4 * MIB, 4 * MIB, 4 * MIB, 1, 0);
	coll_top_close(&t, 54 * MIB, 500 * MS);
	assert_int_equal(t.hist[(t.tick - 1) % COLL_TOP_HIST].eff_back_kib, 55 * MIB + COLL_TOP_SLACK_KIB);
	assert_int_equal(t.bound_kib, want);
}

/* Backward, a tree whose processes map memory another of them has (shared
 * memory read by children): forward counts every child's new RSS in full,
 * backward only what the tree let go of; and processes that left count at
 * their most while they were there. */
static void test_bound_backward(void **state)
{
	(void)state;
	struct coll_top t = {0};
	struct coll_top_proc p = {0}, k1 = {0}, k2 = {0};

	seen_fig(&t, &p, 400 * MIB, 400 * MIB, 400 * MIB, 400 * MIB, 400 * MIB, 400 * MIB, 1, 0);
	coll_top_close(&t, 400 * MIB, 100 * MS);
	/* two children map the parent's 400 MiB: 400 in all, read at the tick */
	seen_fig(&t, &p, 400 * MIB, 400 * MIB, 400 * MIB, 134 * MIB, 134 * MIB, 134 * MIB, 1, 0);
	seen_fig(&t, &k1, 400 * MIB, 400 * MIB, 400 * MIB, 133 * MIB, 133 * MIB, 133 * MIB, 1, 110 * MS);
	seen_fig(&t, &k2, 400 * MIB, 400 * MIB, 400 * MIB, 133 * MIB, 133 * MIB, 133 * MIB, 1, 120 * MS);
	coll_top_close(&t, 400 * MIB, 200 * MS);
	assert_int_equal(t.bound_kib, 400 * MIB);
	/* forward: each child as new (its share now, all it can have had) */
	assert_int_equal(t.hist[t.tick % COLL_TOP_HIST].fwd_kib, 666 * MIB + 2 * COLL_TOP_SLACK_KIB);
	/* k1 leaves at 250 having grown 10 of its own (its top 143); k2
	 * unmaps 100 and is read at 300 */
	gone_fig(&t, &k1, A, 250 * MS, 410 * MIB, 1, 143 * MIB, 10 * MIB, 1, 110 * MS);
	seen_fig(&t, &p, 400 * MIB, 400 * MIB, 400 * MIB, 200 * MIB, 200 * MIB, 200 * MIB, 1, 0);
	seen_fig(&t, &k2, 300 * MIB, 300 * MIB, 400 * MIB, 100 * MIB, 100 * MIB, 100 * MIB, 1, 120 * MS);
	coll_top_close(&t, 300 * MIB, 300 * MS);
	/* backward: 300 now + k2's 100 lost + k1 at its most */
	assert_int_equal(t.hist[t.tick % COLL_TOP_HIST].back_kib,
			 300 * MIB + 100 * MIB + COLL_TOP_SLACK_KIB + 143 * MIB + COLL_TOP_SLACK_KIB);
	/* forward the lesser here: k1's own 10 the only gain */
	assert_int_equal(t.bound_kib, 410 * MIB + COLL_TOP_SLACK_KIB);
}

/* A process whose memory a tick could not read (exiting) keeps what was
 * last read of it; the gain its high-water mark shows at its exit raises the
 * intervals since then, the closed ones too: its most may lie in any. */
static void test_bound_late_gain(void **state)
{
	(void)state;
	struct coll_top t = {0};
	struct coll_top_proc a = {0}, b = {0};

	seen_fig(&t, &a, 10 * MIB, 0, 10 * MIB, 10 * MIB, 10 * MIB, 10 * MIB, 1, 0);
	seen_fig(&t, &b, 10 * MIB, 0, 10 * MIB, 10 * MIB, 10 * MIB, 10 * MIB, 1, 0);
	coll_top_close(&t, 20 * MIB, 100 * MS);
	assert_int_equal(t.bound_kib, 20 * MIB); /* backward: read at the tick */
	/* a unreadable at the next tick: the tree's bound there has it at
	 * its last figures (the collector's), which may be far below */
	seen_fig(&t, &a, 0, 0, 0, 0, 0, 0, 0, 0);
	seen_fig(&t, &b, 10 * MIB, 0, 10 * MIB, 10 * MIB, 10 * MIB, 10 * MIB, 1, 0);
	coll_top_close(&t, 20 * MIB, 200 * MS);
	assert_int_equal(t.bound_kib, 20 * MIB);
	assert_int_equal(a.tick, 1); /* still its first figures */
	/* gone with a high-water mark of 50: it may have had it in either
	 * interval since it was seen, the one closed at 200 ms included (its
	 * bound 20 then: 20 + 40 now) */
	gone_fig(&t, &a, A, 250 * MS, 50 * MIB, 1, 50 * MIB, 50 * MIB, 1, 0);
	assert_int_equal(t.bound_kib, 20 * MIB + 40 * MIB + COLL_TOP_SLACK_KIB);
	coll_top_close(&t, 10 * MIB, 300 * MS);
	assert_int_equal(t.bound_kib, 20 * MIB + 40 * MIB + COLL_TOP_SLACK_KIB);
	assert_int_equal(t.unknown, 0);
}

/* An interval the trace bounds: its bound is the trace's, both ways, above
 * what the ticks' figures say when a process begun as a tick read was in
 * none of them (the 20 MiB tick figures here; the trace saw 45 MiB). */
static void test_bound_traced(void **state)
{
	(void)state;
	struct coll_top t = {0};
	struct coll_top_proc a = {0};

	seen_fig(&t, &a, 20 * MIB, 0, 20 * MIB, 20 * MIB, 20 * MIB, 20 * MIB, 1, 0);
	coll_top_close(&t, 20 * MIB, 100 * MS);
	/* a not read at the next tick (its figures stay the first's) */
	seen_fig(&t, &a, 0, 0, 0, 0, 0, 0, 0, 0);
	coll_top_traced(&t, 45 * MIB);
	coll_top_close(&t, 20 * MIB, 200 * MS);
	assert_int_equal(t.bound_kib, 45 * MIB);
	assert_int_equal(t.bound_t_ns, 200 * MS);
	/* a's high-water mark, told at its end, above all it was seen with:
	 * the traced interval's bound holds it already (the trace saw every
	 * page), and stays */
	gone_fig(&t, &a, A, 250 * MS, 40 * MIB, 1, 40 * MIB, 40 * MIB, 1, 0);
	assert_int_equal(t.bound_kib, 45 * MIB);
	/* the tree gone by the next tick: that interval's bound does not
	 * take the one before down with it */
	seen_fig(&t, &a, 0, 0, 0, 0, 0, 0, 0, 0);
	coll_top_traced(&t, 2 * MIB);
	coll_top_close(&t, 0, 300 * MS);
	assert_int_equal(t.bound_kib, 45 * MIB);
}

/* A process gone between ticks with its most unknown (no taskstats
 * record): the run's bound is unknown from then on, until the run's end
 * tells the most RSS any process had (wait4): then each such process counts
 * at that, in the intervals it was there, at once with the others. */
static void test_bound_unknown(void **state)
{
	(void)state;
	struct coll_top t = {0};
	struct coll_top_proc a = {0}, b = {0}, c = {0};

	seen_fig(&t, &a, 10 * MIB, 0, 10 * MIB, 10 * MIB, 10 * MIB, 10 * MIB, 1, 0);
	seen_fig(&t, &b, 20 * MIB, 0, 20 * MIB, 20 * MIB, 20 * MIB, 20 * MIB, 1, 0);
	coll_top_close(&t, 30 * MIB, 100 * MS);
	assert_int_equal(t.bound_kib, 30 * MIB);
	gone_fig(&t, &a, A, 150 * MS, 0, 0, 0, 0, 1, 0);
	gone_fig(&t, &c, C, 160 * MS, 0, 0, 0, 0, 1, 120 * MS); /* born and gone */
	assert_int_equal(t.unknown, 1);
	seen_fig(&t, &b, 20 * MIB, 0, 20 * MIB, 20 * MIB, 20 * MIB, 20 * MIB, 1, 0);
	coll_top_close(&t, 20 * MIB, 200 * MS);
	assert_int_equal(t.unknown, 1);
	assert_int_equal(t.bound_kib, 30 * MIB); /* the known intervals' */
	/* nothing known at the end: it stays unknown */
	coll_top_resolve(&t, 0);
	assert_int_equal(t.unknown, 1);
	/* at most 50 each: backward, b's 20 and the two at once */
	coll_top_resolve(&t, 50 * MIB);
	assert_int_equal(t.unknown, 0);
	assert_int_equal(t.bound_kib, 20 * MIB + 2 * (50 * MIB + COLL_TOP_SLACK_KIB));
}

/* The same on a run longer than the intervals kept: the pending ones wait
 * apart, by how many were unknown at once. */
static void test_bound_unknown_long(void **state)
{
	(void)state;
	struct coll_top t = {0};
	struct coll_top_proc a = {0}, k = {0};

	seen_fig(&t, &a, 10 * MIB, 0, 10 * MIB, 10 * MIB, 10 * MIB, 10 * MIB, 1, 0);
	coll_top_close(&t, 10 * MIB, 100 * MS);
	gone_fig(&t, &k, B, 150 * MS, 0, 0, 0, 0, 1, 110 * MS);
	for (uint64_t i = 2; i < 3 * COLL_TOP_HIST; i++) {
		seen_fig(&t, &a, 10 * MIB, 0, 10 * MIB, 10 * MIB, 10 * MIB, 10 * MIB, 1, 0);
		coll_top_close(&t, 10 * MIB, i * 100 * MS);
	}
	assert_int_equal(t.unknown, 1);
	assert_int_equal(t.bound_kib, 10 * MIB);
	coll_top_resolve(&t, 40 * MIB);
	assert_int_equal(t.unknown, 0);
	assert_int_equal(t.bound_kib, 10 * MIB + 40 * MIB + COLL_TOP_SLACK_KIB);
	assert_int_equal(t.bound_t_ns, 2 * 100 * MS);
}

/* Copy-on-write: a parent and its child share 100 MiB (50 each, read so);
 * within one interval the child writes all of it (the tree now holds 200 MiB,
 * at the same RSS) and exits. Its faults' pages, no more than it shared,
 * count as gained: the bound covers the 200. */
static void test_bound_copy_on_write(void **state)
{
	(void)state;
	struct coll_top t = {0};
	struct coll_top_proc p = {0}, k = {0};

	seen_fig(&t, &p, 100 * MIB, 0, 100 * MIB, 50 * MIB, 50 * MIB, 50 * MIB, 1, 0);
	seen_fig(&t, &k, 100 * MIB, 0, 100 * MIB, 50 * MIB, 0, 50 * MIB, 1, 0);
	coll_top_close(&t, 100 * MIB, 100 * MS);
	const struct coll_top_leave l = {.pid = A, .t_ns = 150 * MS, .top_kib = 100 * MIB, .est_kib = 100 * MIB,
					 .lo_kib = 0, .copied_kib = 100 * MIB, .top_known = 1, .can_top = 1};
	coll_top_gone(&t, &k, &l);
	const struct coll_top_look lp = {.rss_kib = 100 * MIB, .max_kib = 100 * MIB, .known = 1,
					 .fig = {100 * MIB, 100 * MIB, 100 * MIB, 100 * MIB}};
	coll_top_seen(&t, &p, &lp);
	coll_top_close(&t, 100 * MIB, 200 * MS);
	assert_true(t.bound_kib >= 200 * MIB);
	/* without the copies counted it would have been 100 */
	assert_true(t.hist[t.tick % COLL_TOP_HIST].fwd_kib >= 200 * MIB);
	assert_true(t.hist[t.tick % COLL_TOP_HIST].back_kib >= 200 * MIB);
}

/* Unknown tops resolved at the end do not lower an earlier interval's bound
 * through a later one that did not count them: P and U hold 50 each; A is
 * born, climbs to 200 and leaves within the first interval (300 at once);
 * U leaves in the next with its most unknown. */
static void test_resolve_keeps_earlier(void **state)
{
	(void)state;
	struct coll_top t = {0};
	struct coll_top_proc p = {0}, u = {0}, a = {0};

	seen_fig(&t, &p, 50 * MIB, 0, 50 * MIB, 50 * MIB, 50 * MIB, 50 * MIB, 1, 0);
	seen_fig(&t, &u, 50 * MIB, 0, 50 * MIB, 50 * MIB, 50 * MIB, 50 * MIB, 1, 0);
	coll_top_close(&t, 100 * MIB, 100 * MS);
	gone_fig(&t, &a, A, 180 * MS, 200 * MIB, 1, 200 * MIB, 200 * MIB, 1, 120 * MS);
	seen_fig(&t, &p, 50 * MIB, 0, 50 * MIB, 50 * MIB, 50 * MIB, 50 * MIB, 1, 0);
	seen_fig(&t, &u, 50 * MIB, 0, 50 * MIB, 50 * MIB, 50 * MIB, 50 * MIB, 1, 0);
	coll_top_close(&t, 100 * MIB, 200 * MS);
	assert_true(t.bound_kib >= 300 * MIB);
	gone_fig(&t, &u, B, 250 * MS, 0, 0, 0, 0, 1, 0);
	seen_fig(&t, &p, 50 * MIB, 0, 50 * MIB, 50 * MIB, 50 * MIB, 50 * MIB, 1, 0);
	coll_top_close(&t, 50 * MIB, 300 * MS);
	coll_top_resolve(&t, 200 * MIB);
	assert_int_equal(t.unknown, 0);
	assert_true(t.bound_kib >= 300 * MIB);
}

/* Exit samples: each exit at a top the ticks missed, with the live tree,
 * and what left later in the interval at its last figures; none without
 * such an exit. */
static void test_exit_sample(void **state)
{
	(void)state;
	struct coll_top t = {0};
	struct coll_top_proc a = {0}, b = {0}, c = {0};
	struct coll_top_sample x;
	const struct coll_top_ghosts g0 = {0};

	seen_fig(&t, &a, 30 * MIB, 0, 30 * MIB, 29 * MIB, 29 * MIB, 29 * MIB, 1, 0);
	seen_fig(&t, &b, 20 * MIB, 0, 20 * MIB, 20 * MIB, 20 * MIB, 20 * MIB, 1, 0);
	seen_fig(&t, &c, 8 * MIB, 0, 8 * MIB, 8 * MIB, 8 * MIB, 8 * MIB, 1, 0);
	coll_top_close(&t, 57 * MIB, 100 * MS);
	struct coll_top_live live = {.start_ns = 0, .seen = 1, .prev = {1 * MIB, 1 * MIB, 1 * MIB, 1 * MIB},
				     .now = {1 * MIB, 1 * MIB, 1 * MIB, 1 * MIB}};
	assert_int_equal(coll_top_exit_sample(&t, &live, 1, 100 * MS, &g0, &x), 0);
	/* c leaves first, as it was; a at 60 (a top); b after a, at 45 */
	gone_fig(&t, &c, C, 150 * MS, 8 * MIB, 1, 8 * MIB, 8 * MIB, 1, 0);
	gone_fig(&t, &a, A, 160 * MS, 60 * MIB, 1, 59 * MIB, 59 * MIB, 1, 0);
	gone_fig(&t, &b, B, 170 * MS, 45 * MIB, 1, 45 * MIB, 45 * MIB, 1, 0);
	assert_int_equal(coll_top_exit_sample(&t, &live, 1, 165 * MS, &g0, &x), 1);
	/* before a's exit: a at its top, b at its last figures (c gone); in
	 * the floor, b not at all (it may have let go of its pages first) */
	assert_int_equal(x.t_ns, 160 * MS);
	assert_int_equal(x.pid, A);
	assert_int_equal(x.est_kib, 1 * MIB + (29 + 30) * MIB + 20 * MIB);
	assert_int_equal(x.lo_kib, 1 * MIB + 59 * MIB);
	assert_int_equal(x.hi_kib, 1 * MIB + 59 * MIB + 45 * MIB);
	/* one never seen, at its high-water mark as the caller figures it */
	coll_top_close(&t, 1 * MIB, 200 * MS);
	struct coll_top_proc d = {0};
	gone_fig(&t, &d, C, 250 * MS, 70 * MIB, 1, 68 * MIB, 66 * MIB, 1, 0);
	assert_int_equal(coll_top_exit_sample(&t, &live, 1, 252 * MS, &g0, &x), 1);
	assert_int_equal(x.est_kib, 69 * MIB);
	assert_int_equal(x.lo_kib, 67 * MIB);
	assert_int_equal(x.hi_kib, 71 * MIB);
	/* a tick late to the exit: the live count at their last tick's figures,
	 * and one born after the exit not at all */
	struct coll_top_live two[2] = {
		{.start_ns = 0, .seen = 1, .prev = {1 * MIB, 1 * MIB, 1 * MIB, 1 * MIB},
		 .now = {9 * MIB, 9 * MIB, 9 * MIB, 9 * MIB}},
		{.start_ns = 260 * MS, .seen = 0, .now = {5 * MIB, 5 * MIB, 5 * MIB, 5 * MIB}}};
	assert_int_equal(coll_top_exit_sample(&t, two, 2, 300 * MS, &g0, &x), 1);
	assert_int_equal(x.est_kib, 68 * MIB + 1 * MIB);
	assert_int_equal(coll_top_exit_sample(&t, two, 2, 251 * MS, &g0, &x), 1);
	assert_int_equal(x.est_kib, 68 * MIB + 9 * MIB);
	/* told as the tick began, read after it: prompt too */
	assert_int_equal(coll_top_exit_sample(&t, two, 2, 249 * MS, &g0, &x), 1);
	assert_int_equal(x.est_kib, 68 * MIB + 9 * MIB);
	/* late: at least its floor now, less what its faults since the last
	 * tick can have mapped (4 MiB) */
	two[0].moved_kib = 4 * MIB;
	assert_int_equal(coll_top_exit_sample(&t, two, 2, 300 * MS, &g0, &x), 1);
	assert_int_equal(x.lo_kib, 66 * MIB + 5 * MIB);
	two[0].moved_kib = 20 * MIB;
	assert_int_equal(coll_top_exit_sample(&t, two, 2, 300 * MS, &g0, &x), 1);
	assert_int_equal(x.lo_kib, 66 * MIB);
	two[0].moved_kib = 0;
	/* the ghosts: a late tick's sample has the last tick's (the live at
	 * their figures then), a prompt one this tick's (read now, they show
	 * what ghosts they paid for since) */
	const struct coll_top_ghosts g = {.prev_est_kib = 2 * MIB, .prev_hi_kib = 4 * MIB,
					  .now_est_kib = 1 * MIB, .now_hi_kib = 2 * MIB};
	assert_int_equal(coll_top_exit_sample(&t, two, 2, 300 * MS, &g, &x), 1);
	assert_int_equal(x.est_kib, 2 * MIB + 68 * MIB + 1 * MIB);
	assert_int_equal(x.lo_kib, 66 * MIB + 9 * MIB);
	assert_int_equal(x.hi_kib, 4 * MIB + 70 * MIB + 9 * MIB);
	assert_int_equal(coll_top_exit_sample(&t, two, 2, 251 * MS, &g, &x), 1);
	assert_int_equal(x.est_kib, 1 * MIB + 68 * MIB + 9 * MIB);
	assert_int_equal(x.hi_kib, 2 * MIB + 70 * MIB + 9 * MIB);
	/* a child in its parent's pages makes no top */
	coll_top_close(&t, 1 * MIB, 300 * MS);
	struct coll_top_proc e = {0};
	gone_fig(&t, &e, C, 350 * MS, 70 * MIB, 1, 1 * MIB, 1 * MIB, 0, 0);
	assert_int_equal(coll_top_exit_sample(&t, &live, 1, 352 * MS, &g0, &x), 0);
}

/* pid's memory: RSS rss KiB, all of it anonymous and its own, its
 * high-water mark hwm; stat's counters moved with it. */
static void set_proc(struct fakeproc *f, pid_t pid, const char *comm, uint64_t rss, uint64_t hwm,
		     uint64_t faults)
{
	uint64_t pk = (uint64_t)procfs_page_kib();

	fp_stat(f, pid, &(struct fp_stat){.ppid = R, .comm = comm, .start_ticks = 10, .rss_pages = rss / pk,
					  .minflt = faults});
	fp_status(f, pid, rss, 0, hwm);
	fp_rollup(f, pid, rss, rss, rss, 0, 0, rss);
}

/* Netlink mode, following R (a shell) and its children A and B (programs),
 * with a taskstats socket (only its being there matters). */
static struct fakeproc *follow(void)
{
	struct fakeproc *f = fp_new(1);

	set_proc(f, R, "sh", 1 * MIB, 1 * MIB, 100);
	f->c->root = R;
	f->c->ts_fd = 1000;
	struct pentry *r = coll_sample_add_proc(f->c, R, 1, f->now_ns, NULL);
	assert_non_null(r);
	r->rec.nexec = 1;
	for (pid_t p = A; p <= B; p++) {
		set_proc(f, p, p == A ? "cc1" : "ld", 10 * MIB, 10 * MIB, 1000);
		struct pentry *e = coll_sample_add_proc(f->c, p, R, f->now_ns, r);
		assert_non_null(e);
		e->rec.nexec = 1;
		e->vm_state = PTABLE_VM_OWN;
		r = ptable_get(f->c->pt, R);
	}
	return f;
}

/* A tick, as the collector takes it (no sockets to read: the test handed in
 * what they would have said), with every live process read first (as the
 * budget or a sweep would have). */
static void tick(struct fakeproc *f)
{
	for (size_t i = 0; i < ptable_count(f->c->pt); i++) {
		struct pentry *e = ptable_at(f->c->pt, i);
		if (coll_sample_cheap(f->c, e, f->now_ns) == 0)
			coll_pss_read(f->c, e, f->now_ns, NULL);
	}
	int ts = f->c->ts_fd;
	f->c->ts_fd = -1;
	collector_tick(f->c);
	f->c->ts_fd = ts;
}

/* pid exits at t_ns at its high-water mark hwm: its record (read then), its
 * exit event, gone from /proc. */
static void exit_at(struct fakeproc *f, pid_t pid, uint64_t t_ns, uint64_t hwm, uint64_t faults)
{
	f->now_ns = t_ns;
	struct taskstats_exit x = {.pid = pid, .tgid = pid, .ppid = R, .comm = "cc1", .exitcode = 0,
				   .minflt = faults, .hiwater_rss_kib = hwm, .seq = 1};
	struct nlproc_event ex = {.type = NLPROC_EXIT, .pid = pid, .tgid = pid, .ppid = R, .ptgid = R,
				  .exit_code = 0, .ts_ns = t_ns};

	f->c->ts_empty_ns = t_ns - MS;
	coll_ts_apply(f->c, &x);
	coll_events_on_event(f->c, &ex);
	f->c->ts_empty_ns = t_ns + MS;
	fp_gone(f, pid);
}

/* A and B climb at different rates between two regular ticks and meet at
 * their tops (A 60 MiB, B 40 MiB) at t0 + 170 ms, where A exits; its record
 * wakes the collector, whose tick reads B still at its top: the peak is the
 * meeting's (A at its high-water mark, B read, the shell), no tick saw it. */
static void test_meet_between_ticks(void **state)
{
	(void)state;
	struct fakeproc *f = follow();
	uint64_t t0 = f->now_ns;

	tick(f);
	f->now_ns = t0 + 100 * MS;
	set_proc(f, A, "cc1", 30 * MIB, 30 * MIB, 8000);
	set_proc(f, B, "ld", 20 * MIB, 20 * MIB, 3000);
	tick(f);
	uint64_t before = f->c->sum.peak.pss_kib;
	assert_true(before < 52 * MIB);
	/* the meeting, then A's exit at its top */
	set_proc(f, B, "ld", 40 * MIB, 40 * MIB, 8000);
	exit_at(f, A, t0 + 170 * MS, 60 * MIB, 15500);
	f->now_ns = t0 + 171 * MS;
	tick(f);
	uint64_t truth = 60 * MIB + 40 * MIB + 1 * MIB;
	struct store_summary s;
	store_summary_get(f->st, &s);
	if (s.peak.pss_kib < truth * 99 / 100 || s.peak.pss_kib > truth * 101 / 100)
		fail_msg("peak %llu KiB, the meeting was %llu", (unsigned long long)s.peak.pss_kib,
			 (unsigned long long)truth);
	/* at its exit: A's fork unseen, no earlier than the record socket was
	 * last found empty (a ms before) */
	assert_true(s.peak.t_ns >= t0 + 169 * MS && s.peak.t_ns <= t0 + 170 * MS);
	assert_int_equal(s.peak_exit_pid, A);
	assert_false(s.peak_bound_unknown);
	assert_true(s.peak_bound_kib >= truth);
	assert_true(s.peak_bound_kib <= truth * 103 / 100);
	/* the exit sample is in the series, before the tick's */
	struct sample smp[16];
	uint64_t cur = 0;
	size_t n = store_samples(f->st, &cur, smp, 16, NULL);
	int found = 0;
	for (size_t i = 0; i < n; i++)
		found |= smp[i].t_ns == s.peak.t_ns && smp[i].pss_kib == s.peak.pss_kib;
	assert_true(found);
	f->c->ts_fd = -1;
	fp_free(f);
}

/* A process whose high-water mark is of long ago (it shrank from 2 GiB to
 * 100 MiB before the ticks saw it) leaves at 100 MiB: its record's
 * high-water mark is no top of this interval. The floor holds no phantom
 * pages; the bound still covers what it had. */
static void test_old_high_water(void **state)
{
	(void)state;
	struct fakeproc *f = follow();
	uint64_t t0 = f->now_ns;

	set_proc(f, A, "cc1", 100 * MIB, 2048 * MIB, 2000);
	tick(f);
	f->now_ns = t0 + 100 * MS;
	set_proc(f, A, "cc1", 100 * MIB, 2048 * MIB, 2010);
	tick(f);
	exit_at(f, A, t0 + 150 * MS, 2048 * MIB, 2010);
	f->now_ns = t0 + 151 * MS;
	tick(f);
	struct store_summary s;
	store_summary_get(f->st, &s);
	uint64_t truth = 100 * MIB + 10 * MIB + 1 * MIB;
	if (s.peak.pss_kib > truth * 101 / 100)
		fail_msg("peak %llu KiB, the tree never had more than %llu", (unsigned long long)s.peak.pss_kib,
			 (unsigned long long)truth);
	assert_true(s.peak_bound_kib >= truth);
	assert_true(s.peak_bound_kib < 200 * MIB);
	f->c->ts_fd = -1;
	fp_free(f);
}

/* A process born and gone between two ticks, at a top of 50 MiB: never
 * seen, its record is what tells; its program's file pages are what a tick
 * saw of another of its processes (512 KiB): the peak holds it, and the
 * bound covers it. A program no tick ever saw makes no sure sample. */
static void test_unseen_top(void **state)
{
	(void)state;
	struct fakeproc *f = follow();
	uint64_t t0 = f->now_ns;

	/* an "ar" seen by a tick, which ends as it was */
	struct nlproc_event fk0 = {.type = NLPROC_FORK, .pid = C + 1, .tgid = C + 1, .ppid = R, .ptgid = R,
				   .ts_ns = t0 - 50 * MS};
	coll_events_on_event(f->c, &fk0);
	struct pentry *e0 = ptable_get(f->c->pt, C + 1);
	e0->rec.nexec = 1;
	e0->vm_state = PTABLE_VM_OWN;
	memcpy(e0->rec.comm, "ar", 3);
	fp_stat(f, C + 1, &(struct fp_stat){.ppid = R, .comm = "ar", .start_ticks = fp_ticks(t0 - 50 * MS), .rss_pages = 512, .minflt = 9});
	fp_status(f, C + 1, 2 * MIB, 512, 2 * MIB);
	fp_rollup(f, C + 1, 2 * MIB, 1536, 1536, 64, 0, 1536);
	tick(f);
	exit_at(f, C + 1, t0 + 5 * MS, 2 * MIB, 9);
	f->now_ns = t0 + 10 * MS;
	tick(f);
	struct nlproc_event fk = {.type = NLPROC_FORK, .pid = C, .tgid = C, .ppid = R, .ptgid = R,
				  .ts_ns = t0 + 20 * MS};
	coll_events_on_event(f->c, &fk);
	struct pentry *e = ptable_get(f->c->pt, C);
	assert_non_null(e);
	e->rec.nexec = 1; /* exec'd: a program of its own */
	e->vm_state = PTABLE_VM_OWN;
	memcpy(e->rec.comm, "ar", 3);
	exit_at(f, C, t0 + 60 * MS, 50 * MIB, 12800);
	f->now_ns = t0 + 61 * MS;
	tick(f);
	struct store_summary s;
	store_summary_get(f->st, &s);
	uint64_t truth = 50 * MIB + 10 * MIB + 10 * MIB + 1 * MIB;
	if (s.peak.pss_kib < truth * 96 / 100 || s.peak.pss_kib > truth)
		fail_msg("peak %llu KiB, the tree had %llu at C's top", (unsigned long long)s.peak.pss_kib,
			 (unsigned long long)truth);
	assert_int_equal(s.peak_exit_pid, C);
	assert_true(s.peak_bound_kib >= truth);
	f->c->ts_fd = -1;
	fp_free(f);
}

/* D (a program of its own, 10 MiB) forks C, which never execs, and exits.
 * C, never seen by a tick, then climbs on its own to 60 MiB and exits at its
 * top: its record is all that tells, and of its 60 MiB no more than D's 10
 * can be D's pages. Told by D's high-water mark at its exit (its record,
 * kept with D retired by its tick), or, with D exiting, its status without
 * memory and its record not read yet, by what D had when last read and its
 * faults since (its stat). The exit sample holds C's 50 MiB of its own; it
 * held none either way. */
static void test_unexec_child_of_gone_parent(void **state)
{
	(void)state;
	for (int retired = 0; retired <= 1; retired++) {
		struct fakeproc *f = follow();
		uint64_t t0 = f->now_ns;
		const pid_t D = C + 1;

		struct nlproc_event fd = {.type = NLPROC_FORK, .pid = D, .tgid = D, .ppid = R, .ptgid = R,
					  .ts_ns = t0 + 10 * MS};
		coll_events_on_event(f->c, &fd);
		struct nlproc_event xd = {.type = NLPROC_EXEC, .pid = D, .tgid = D, .ts_ns = t0 + 11 * MS};
		coll_events_on_event(f->c, &xd);
		struct pentry *d = ptable_get(f->c->pt, D);
		assert_non_null(d);
		assert_int_equal(d->rec.nexec, 1);
		d->vm_state = PTABLE_VM_OWN;
		uint64_t pk = (uint64_t)procfs_page_kib();
		fp_stat(f, D, &(struct fp_stat){.ppid = R, .comm = "sh", .start_ticks = fp_ticks(t0 + 10 * MS),
						.rss_pages = 10 * MIB / pk, .minflt = 2600});
		fp_status(f, D, 10 * MIB, 0, 10 * MIB);
		fp_rollup(f, D, 10 * MIB, 10 * MIB, 10 * MIB, 0, 0, 10 * MIB);
		f->now_ns = t0 + 100 * MS;
		tick(f);
		/* D forks C, then exits */
		struct nlproc_event fc = {.type = NLPROC_FORK, .pid = C, .tgid = C, .ppid = D, .ptgid = D,
					  .ts_ns = t0 + 120 * MS};
		coll_events_on_event(f->c, &fc);
		struct pentry *e = ptable_get(f->c->pt, C);
		assert_non_null(e);
		e->vm_state = PTABLE_VM_OWN;
		if (retired) {
			exit_at(f, D, t0 + 130 * MS, 10 * MIB, 2600);
			f->now_ns = t0 + 131 * MS;
			tick(f);
			assert_null(ptable_get(f->c->pt, D));
		} else {
			char rel[32];
			snprintf(rel, sizeof(rel), "%d/status", (int)D);
			fp_printf(f, rel, "Name:\tsh\nState:\tZ (zombie)\n");
		}
		/* C at its top, 60 MiB, gone before any tick saw it */
		f->now_ns = t0 + 150 * MS;
		f->c->ts_empty_ns = t0 + 149 * MS;
		struct taskstats_exit x = {.pid = C, .tgid = C, .ppid = D, .comm = "sh", .minflt = 13000,
					   .hiwater_rss_kib = 60 * MIB, .etime_us = 30000, .seq = 2};
		coll_ts_apply(f->c, &x);
		struct nlproc_event ex = {.type = NLPROC_EXIT, .pid = C, .tgid = C, .ppid = D, .ptgid = D,
					  .ts_ns = t0 + 150 * MS};
		coll_events_on_event(f->c, &ex);
		fp_gone(f, C);
		f->now_ns = t0 + 151 * MS;
		tick(f);
		struct store_summary s;
		store_summary_get(f->st, &s);
		/* R, A, B as read (D too when it is still there), and C's own 50 MiB */
		uint64_t truth = 1 * MIB + 10 * MIB + 10 * MIB + 50 * MIB;
		if (s.peak.pss_kib < truth * 97 / 100 || s.peak.pss_kib > truth + (retired ? 0 : 10 * MIB))
			fail_msg("D %s: peak %llu KiB, the tree had %llu at C's top", retired ? "retired" : "exiting",
				 (unsigned long long)s.peak.pss_kib, (unsigned long long)truth);
		assert_int_equal(s.peak_exit_pid, C);
		assert_true(s.peak_bound_kib >= truth);
		f->c->ts_fd = -1;
		fp_free(f);
	}
}

/* A (cc1) is read alone at a tick: 60 MiB of its own anonymous pages and
 * 10 MiB of its program's text that no one else maps then (private). C, a
 * second cc1, starts and maps the same text; A gains a last MiB and exits
 * at that top. The tree just before: R 1, B 10, A 61 + half the text, C 20
 * + the other half: 102 MiB. Read just after, C holds the whole text (A's
 * share passed on). A's text is no longer its own: the exit sample counts
 * A's anonymous pages and C read after, no more than the tree had (it said
 * 112 when it counted the text twice). */
static void test_exit_floor_shared_text(void **state)
{
	(void)state;
	struct fakeproc *f = follow();
	uint64_t t0 = f->now_ns, pk = (uint64_t)procfs_page_kib();

	fp_stat(f, A, &(struct fp_stat){.ppid = R, .comm = "cc1", .start_ticks = 10, .rss_pages = 70 * MIB / pk,
					.minflt = 18000});
	fp_status(f, A, 70 * MIB, 10 * MIB, 70 * MIB);
	fp_rollup(f, A, 70 * MIB, 60 * MIB, 60 * MIB, 10 * MIB, 0, 70 * MIB);
	f->now_ns = t0 + 100 * MS;
	tick(f);
	/* C: forked by R, exec'd cc1 */
	struct nlproc_event fc = {.type = NLPROC_FORK, .pid = C, .tgid = C, .ppid = R, .ptgid = R,
				  .ts_ns = t0 + 110 * MS};
	coll_events_on_event(f->c, &fc);
	struct nlproc_event xc = {.type = NLPROC_EXEC, .pid = C, .tgid = C, .ts_ns = t0 + 111 * MS};
	coll_events_on_event(f->c, &xc);
	struct pentry *e = ptable_get(f->c->pt, C);
	assert_non_null(e);
	memcpy(e->rec.comm, "cc1", 4);
	e->vm_state = PTABLE_VM_OWN;
	fp_stat(f, C, &(struct fp_stat){.ppid = R, .comm = "cc1", .start_ticks = fp_ticks(t0 + 110 * MS),
					.rss_pages = 30 * MIB / pk, .minflt = 7700});
	fp_status(f, C, 30 * MIB, 10 * MIB, 30 * MIB);
	fp_rollup(f, C, 30 * MIB, 20 * MIB, 20 * MIB, 10 * MIB, 0, 20 * MIB);
	/* A's last MiB, then its exit at that top */
	exit_at(f, A, t0 + 150 * MS, 71 * MIB, 18256);
	f->now_ns = t0 + 151 * MS;
	tick(f);
	struct store_summary s;
	store_summary_get(f->st, &s);
	uint64_t truth = 1 * MIB + 10 * MIB + 66 * MIB + 25 * MIB;
	if (s.peak.pss_kib > truth)
		fail_msg("peak %llu KiB, the tree never had more than %llu", (unsigned long long)s.peak.pss_kib,
			 (unsigned long long)truth);
	assert_true(s.peak.pss_kib >= truth * 95 / 100);
	assert_int_equal(s.peak_exit_pid, A);
	/* (C's image before its exec was never read: the bound is unknown) */
	assert_true(s.peak_bound_unknown || s.peak_bound_kib >= truth);
	f->c->ts_fd = -1;
	fp_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound_interval),
		cmocka_unit_test(test_bound_backward),
		cmocka_unit_test(test_bound_late_gain),
		cmocka_unit_test(test_bound_traced),
		cmocka_unit_test(test_bound_unknown),
		cmocka_unit_test(test_bound_unknown_long),
		cmocka_unit_test(test_bound_copy_on_write),
		cmocka_unit_test(test_resolve_keeps_earlier),
		cmocka_unit_test(test_exit_sample),
		cmocka_unit_test(test_old_high_water),
		cmocka_unit_test(test_meet_between_ticks),
		cmocka_unit_test(test_unseen_top),
		cmocka_unit_test(test_unexec_child_of_gone_parent),
		cmocka_unit_test(test_exit_floor_shared_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
