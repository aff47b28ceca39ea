/* Tests of the tree between two ticks from traced RSS changes (rssspan.h),
 * and of the tracepoint format's parse (rsstrace.h): records made here, as
 * the kernel would send them, with a truth the test knows. Sizes in KiB,
 * times in ms. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "rssspan.h"
#include "rsstrace.h"

#define MIB 1024ll
#define MS 1000000ull

struct recs {
	struct rsstrace_rec r[4096];
	size_t n;
};

static void put(struct recs *x, uint64_t t_ms, int pid, uint32_t mm, int curr, int member, int64_t kib)
{
	assert_true(x->n < 4096);
	x->r[x->n++] = (struct rsstrace_rec){.t_ns = t_ms * MS, .pid = pid, .mm = mm, .curr = (uint8_t)curr,
					     .member = (uint8_t)member, .size_kib = kib};
}

/* pid's anonymous counter climbing from `from` to `to` KiB between two
 * instants, a MiB a record (its own mm). */
static void climb(struct recs *x, int pid, uint32_t mm, uint64_t t0, uint64_t t1, int64_t from, int64_t to)
{
	int64_t steps = (to - from) / MIB;
	for (int64_t i = 1; i <= steps; i++)
		put(x, t0 + (t1 - t0) * (uint64_t)i / (uint64_t)steps, pid, mm, 1, RSSTRACE_ANON, from + i * MIB);
}

static void bye(struct recs *x, uint64_t t_ms, int pid)
{
	put(x, t_ms, pid, 0, 0, RSSTRACE_EXIT, 0);
}

/* Records must be in time order, as rsstrace_read gives them. */
static int by_time(const void *a, const void *b)
{
	const struct rsstrace_rec *x = a, *y = b;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

#include <stdlib.h>

static void sorted(struct recs *x)
{
	qsort(x->r, x->n, sizeof(x->r[0]), by_time);
}

/* Two exec'd processes climbing at different rates meet at their tops
 * between two ticks (40 + 30 MiB at 90 ms), and the second exits at its top
 * before the closing tick: the floor is the meeting's, the bound holds it
 * and stays within the slack above it. */
static void test_meet_between_ticks(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	/* before the interval: both exec'd (their first records) */
	put(&x, 1, 101, 11, 1, RSSTRACE_ANON, 0);
	put(&x, 1, 102, 12, 1, RSSTRACE_ANON, 0);
	struct rssspan_out o;
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 2 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
	x.n = 0;
	climb(&x, 101, 11, 10, 80, 0, 40 * MIB);
	climb(&x, 102, 12, 60, 90, 0, 30 * MIB);
	bye(&x, 95, 102);
	sorted(&x);
	/* the closing tick read 101 at 40 MiB; 102 is gone */
	struct rssspan_live live[] = {{101, 40 * MIB, 0}};
	struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.now_lo_ok = 1, .now_hi_ok = 1, .lo_now_kib = 40 * MIB, .hi_now_kib = 40 * MIB,
				.live = live, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in, &o), 0);
	assert_true(o.floor_ok);
	assert_int_equal(o.floor_kib, 70 * MIB);
	assert_int_equal(o.floor_t_ns, 90 * MS);
	assert_true(o.bound_ok);
	assert_true(o.bound_kib >= 70 * MIB);
	assert_true(o.bound_kib <= 70 * MIB + RSSSPAN_SLACK_KIB);
	assert_true(o.floor_hi_kib >= o.floor_kib);
	rssspan_free(s);
}

/* A fork's child: its parent copies 10 MiB of its own into the child's mm
 * (shared pages: the tree does not grow), the child adds 20 MiB of its own
 * and exits at its top; the parent was read at 10 MiB at both ticks. The
 * floor is 30 MiB (not 40: the copied pages are the parent's too), the
 * bound does not count the copies. */
static void test_fork_child_own_pages(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	climb(&x, 200, 20, 1, 2, 0, 10 * MIB);
	struct rssspan_live l0[] = {{200, 10 * MIB, 0}};
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 3 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1, .lo_now_kib = 10 * MIB, .hi_now_kib = 10 * MIB,
				 .live = l0, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
	x.n = 0;
	put(&x, 10, 200, 21, 0, RSSTRACE_ANON, 10 * MIB); /* the fork's copy, in the parent */
	put(&x, 11, 201, 21, 1, RSSTRACE_ANON, 10 * MIB + 4);
	climb(&x, 201, 21, 12, 50, 10 * MIB + 4, 30 * MIB + 4);
	bye(&x, 60, 201);
	sorted(&x);
	struct rssspan_in in = {.open_ns = 3 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 10 * MIB, .hi_prev_kib = 10 * MIB, .now_lo_ok = 1, .now_hi_ok = 1,
				.lo_now_kib = 10 * MIB, .hi_now_kib = 10 * MIB, .live = l0, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in, &o), 0);
	assert_true(o.floor_ok);
	/* the parent's 10 MiB and the child's own 20 MiB (and its first page) */
	assert_true(o.floor_kib >= 30 * MIB && o.floor_kib <= 30 * MIB + 8);
	assert_true(o.bound_kib >= o.floor_kib);
	assert_true(o.bound_kib <= 30 * MIB + RSSSPAN_EXEC_ARGS_KIB + 2 * RSSSPAN_SLACK_KIB);
	rssspan_free(s);
}

/* An exec tears its old mm down silently (no record of the counters
 * falling): the forward floor lets the old pages go at the new image's
 * first record, so a tree that did not grow is not found growing. A vfork's
 * child borrowing its parent's mm tears nothing down at its exec. */
static void test_exec_teardown_and_vfork(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	climb(&x, 300, 30, 1, 2, 0, 20 * MIB); /* a process of 20 MiB */
	climb(&x, 310, 31, 1, 2, 0, 5 * MIB);  /* a parent of 5 MiB */
	sorted(&x);
	struct rssspan_live l0[] = {{300, 20 * MIB, 0}, {310, 5 * MIB, 0}};
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 3 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1, .lo_now_kib = 25 * MIB, .hi_now_kib = 25 * MIB,
				 .live = l0, .nlive = 2};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
	x.n = 0;
	/* 300 execs: a new mm growing to 10 MiB */
	climb(&x, 300, 32, 10, 20, 0, 10 * MIB);
	/* 311, a vfork child of 310: a page of its parent's mm, then its exec */
	put(&x, 30, 311, 31, 1, RSSTRACE_ANON, 5 * MIB + 4);
	climb(&x, 311, 33, 40, 50, 0, 2 * MIB);
	sorted(&x);
	struct rssspan_live l1[] = {{300, 10 * MIB, 0}, {310, 5 * MIB + 4, 0}, {311, 2 * MIB, 0}};
	struct rssspan_in in = {.open_ns = 3 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 25 * MIB, .hi_prev_kib = 25 * MIB, .now_lo_ok = 1, .now_hi_ok = 1,
				.lo_now_kib = 17 * MIB + 4, .hi_now_kib = 17 * MIB + 4, .live = l1, .nlive = 3};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in, &o), 0);
	/* the old image's 20 MiB went at the exec: the most the tree had at a
	 * record is at the end, 5 + 10 MiB, the vfork child's page and its new
	 * 2 MiB (never 25 + 10; and the parent's 5 MiB still count after its
	 * vfork child's exec: not 12 MiB) */
	assert_true(o.floor_ok);
	assert_int_equal(o.floor_kib, 17 * MIB + 4);
	assert_int_equal(o.floor_t_ns, 50 * MS);
	assert_true(o.bound_kib >= 25 * MIB); /* the opening instant's */
	assert_true(rssspan_mms(s) == 3); /* 31 (the parent's), 32, 33: 30 was torn down */
	rssspan_free(s);
}

/* A process the closing tick still counts (its exit event was on its way)
 * that had exited before that tick counts only up to its exit. */
static void test_counted_after_exit(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 3 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1};
	put(&x, 1, 400, 40, 1, RSSTRACE_ANON, 4);
	put(&x, 1, 401, 41, 1, RSSTRACE_ANON, 4);
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
	x.n = 0;
	climb(&x, 400, 40, 10, 20, 4, 50 * MIB + 4); /* exits at 50 MiB at 30 ms */
	bye(&x, 30, 400);
	climb(&x, 401, 41, 40, 60, 4, 50 * MIB + 4); /* climbs after it */
	sorted(&x);
	/* the tick counts 400 at a stale 50 MiB besides 401's 50 */
	struct rssspan_live l1[] = {{400, 50 * MIB, 0}, {401, 50 * MIB, 0}};
	struct rssspan_in in = {.open_ns = 3 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 8, .hi_prev_kib = 8, .now_lo_ok = 1, .now_hi_ok = 1,
				.lo_now_kib = 100 * MIB, .hi_now_kib = 100 * MIB, .live = l1, .nlive = 2};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in, &o), 0);
	/* never both at once */
	assert_true(o.floor_kib <= 50 * MIB + 8);
	assert_true(o.floor_kib >= 50 * MIB);
	rssspan_free(s);
}

/* The two halves the collector calls around its reads: the forward one
 * tells the most pages one process's end let go of and the most the tree can
 * have had just before an end (whether one may have been a top above the
 * peak: the tick reads the others then), and the backward one, with the
 * tick's reads, finds the same floor as the whole. */
static void test_halves_tell_the_exit(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	struct rssspan_exits ex = {1, 1, 1, 1};
	put(&x, 1, 501, 51, 1, RSSTRACE_ANON, 4);
	put(&x, 1, 502, 52, 1, RSSTRACE_ANON, 4);
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 2 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1};
	assert_int_equal(rssspan_forward(s, x.r, x.n, &in0, &ex), 0);
	assert_int_equal(ex.most_kib, 0);
	assert_int_equal(ex.hi_kib, 0);
	assert_int_equal(rssspan_backward(s, &in0, &o), 0);
	x.n = 0;
	climb(&x, 501, 51, 10, 50, 4, 20 * MIB + 4);
	climb(&x, 502, 52, 10, 60, 4, 35 * MIB + 4);
	bye(&x, 55, 501);
	bye(&x, 70, 502);
	sorted(&x);
	struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 8, .hi_prev_kib = 8, .now_lo_ok = 1, .now_hi_ok = 1};
	assert_int_equal(rssspan_forward(s, x.r, x.n, &in, &ex), 0);
	assert_int_equal(ex.most_kib, 35 * MIB + 4);
	assert_int_equal(rssspan_backward(s, &in, &o), 0);
	assert_true(o.floor_ok);
	/* 501 held its 20 MiB until its end at 55 ms, when 502 had reached 32 */
	assert_int_equal(o.floor_kib, 20 * MIB + 4 + 32 * MIB + 4);
	/* and no more: the pages both had then, with the reads' slack */
	assert_int_equal(ex.hi_kib, o.floor_kib + RSSSPAN_SLACK_KIB);
	assert_int_equal(o.floor_t_ns, 55 * MS);
	rssspan_free(s);
}

/* After records were lost, an mm met again may be older than the watch:
 * its first record is its baseline, not new memory (an idle process's one
 * page more must not count as all it has), and that interval bounds
 * nothing; the next ones do again. */
static void test_reset_takes_baselines(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	rssspan_reset(s);
	put(&x, 10, 600, 60, 1, RSSTRACE_ANON, 200 * MIB + 4); /* 200 MiB before, a page now */
	struct rssspan_live l[] = {{600, 200 * MIB, 0}};
	struct rssspan_in in = {.open_ns = 0, .close_ns = 20 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 200 * MIB, .hi_prev_kib = 200 * MIB, .now_lo_ok = 1, .now_hi_ok = 1,
				.lo_now_kib = 200 * MIB + 4, .hi_now_kib = 200 * MIB + 4, .live = l, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in, &o), 0);
	assert_false(o.floor_ok);
	assert_false(o.bound_ok);
	x.n = 0;
	put(&x, 30, 600, 60, 1, RSSTRACE_ANON, 210 * MIB + 4); /* 10 MiB more, known now */
	struct rssspan_in in2 = {.open_ns = 20 * MS, .close_ns = 40 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .lo_prev_kib = 200 * MIB + 4, .hi_prev_kib = 200 * MIB + 4, .now_lo_ok = 1,
				 .now_hi_ok = 1, .lo_now_kib = 210 * MIB + 4, .hi_now_kib = 210 * MIB + 4,
				 .live = l, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in2, &o), 0);
	assert_true(o.floor_ok);
	assert_int_equal(o.floor_kib, 210 * MIB + 4); /* not 410 */
	/* its pages from before the watch are not its own for sure */
	rssspan_free(s);
}

/* A floor above the bound at its own instant (the model's bound too low, or
 * pages moved unseen) is no figure: neither is taken. */
static void test_conflict_takes_neither(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	put(&x, 1, 700, 70, 1, RSSTRACE_ANON, 4);
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 2 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
	x.n = 0;
	climb(&x, 700, 70, 10, 20, 4, 50 * MIB + 4);
	/* the closing tick's bound says 10 MiB where the pages say 50 */
	struct rssspan_live l[] = {{700, 10 * MIB, 0}};
	struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 30 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 4, .hi_prev_kib = 4, .now_lo_ok = 1, .now_hi_ok = 1,
				.lo_now_kib = 10 * MIB, .hi_now_kib = 10 * MIB, .live = l, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in, &o), 0);
	assert_true(o.conflict);
	assert_false(o.floor_ok);
	assert_false(o.bound_ok);
	rssspan_free(s);
}

/* A process's end: sched_process_exit's group_dead, a one-byte bool. */
static void test_group_dead_parse(void **state)
{
	(void)state;
	const char *fmt = "name: sched_process_exit\nID: 369\nformat:\n"
			  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
			  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
			  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
			  "\tfield:bool group_dead;\toffset:32;\tsize:1;\tsigned:0;\n";
	assert_int_equal(rsstrace_group_dead_off(fmt), 32);
	/* an older kernel's, without it */
	assert_int_equal(rsstrace_group_dead_off("\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"), -1);
}

/* The tick takes its figures over a few milliseconds after its instant:
 * the records of that time belong to the interval it closes (its figures
 * hold them), not to the next one, whose forward floor would count them
 * twice, and whose forward bound starts above them. */
static void test_read_window(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	struct rssspan_exits ex;
	put(&x, 1, 800, 80, 1, RSSTRACE_ANON, 4);
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 2 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
	/* climbing a MiB a ms from 10 ms; the tick at 50 ms read it at 60 */
	x.n = 0;
	climb(&x, 800, 80, 10, 50, 4, 40 * MIB + 4);
	struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 50 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 4, .hi_prev_kib = 4};
	assert_int_equal(rssspan_forward(s, x.r, x.n, &in, &ex), 0);
	x.n = 0;
	climb(&x, 800, 80, 50, 60, 40 * MIB + 4, 50 * MIB + 4);
	assert_int_equal(rssspan_more(s, x.r, x.n, NULL), 0);
	struct rssspan_live l[] = {{800, 50 * MIB + 4, 0}};
	in.now_lo_ok = in.now_hi_ok = 1;
	in.lo_now_kib = in.hi_now_kib = 50 * MIB + 4;
	in.live = l;
	in.nlive = 1;
	assert_int_equal(rssspan_backward(s, &in, &o), 0);
	assert_true(o.floor_ok);
	assert_int_equal(o.floor_kib, 50 * MIB + 4);
	assert_int_equal(o.floor_t_ns, 60 * MS);
	/* the next interval: 10 MiB more from the tick's 50 */
	x.n = 0;
	climb(&x, 800, 80, 70, 80, 50 * MIB + 4, 60 * MIB + 4);
	struct rssspan_in in2 = {.open_ns = 60 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .lo_prev_kib = 50 * MIB + 4, .hi_prev_kib = 50 * MIB + 4, .now_lo_ok = 1,
				 .now_hi_ok = 1, .lo_now_kib = 60 * MIB + 4, .hi_now_kib = 60 * MIB + 4, .live = l,
				 .nlive = 1};
	l[0].lo_kib = 60 * MIB + 4;
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in2, &o), 0);
	assert_int_equal(o.floor_kib, 60 * MIB + 4); /* not 70: the window's 10 once */
	assert_true(o.bound_kib >= 60 * MIB + 4);
	rssspan_free(s);
}

/* Processes that start and end between two ticks: the forward bound counts
 * every page mapped before an instant, the backward one every page let go
 * of after it, so one in mid-life with one gone before and one to come
 * after makes both high; the tree's resident pages at that instant, each
 * mm once, bound it tightly (30 MiB at most here, not 40). */
static void test_churn_bound(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	climb(&x, 900, 90, 1, 2, 0, 10 * MIB); /* the base: 10 MiB */
	struct rssspan_live l[] = {{900, 10 * MIB, 0}};
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 3 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1, .lo_now_kib = 10 * MIB, .hi_now_kib = 10 * MIB,
				 .live = l, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
	x.n = 0;
	climb(&x, 901, 91, 10, 20, 0, 20 * MIB);
	bye(&x, 22, 901);
	climb(&x, 902, 92, 30, 70, 0, 20 * MIB);
	bye(&x, 72, 902);
	climb(&x, 903, 93, 80, 90, 0, 20 * MIB);
	bye(&x, 92, 903);
	sorted(&x);
	struct rssspan_in in = {.open_ns = 3 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 10 * MIB, .hi_prev_kib = 10 * MIB, .now_lo_ok = 1, .now_hi_ok = 1,
				.lo_now_kib = 10 * MIB, .hi_now_kib = 10 * MIB, .live = l, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in, &o), 0);
	assert_true(o.bound_ok);
	assert_true(o.bound_kib >= 30 * MIB);
	assert_true(o.bound_kib <= 30 * MIB + RSSSPAN_SLACK_KIB);
	assert_int_equal(o.floor_kib, 30 * MIB);
	rssspan_free(s);
}

/* The interval before the one under test, over x's records (their mms'
 * first counters) up to close_ms, each tick's figures holding; x is emptied. */
static void first_interval(struct rssspan *s, struct recs *x, uint64_t close_ms)
{
	struct rssspan_out o;
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = close_ms * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1};
	sorted(x);
	assert_int_equal(rssspan_interval(s, x->r, x->n, &in0, &o), 0);
	x->n = 0;
}

/* A compiler at its top meets a spike that exits at its own, then frees a
 * third of its heap before the closing tick reads it (gcc lets its heap go
 * as it ends a function): 101 has 20 MiB of file pages, climbs to 30 MiB of
 * its own anonymous pages by 50 ms and lets 10 MiB go at 60 ms; 102 climbs
 * to 40 MiB and exits at 56 ms. The opening tick knew 101 at its anonymous
 * pages only (never read); the closing one read it at 40 MiB. The tree at
 * 55 ms held 90 MiB: the floor is that (the pages 101 let go of were its
 * own, whole pages of its PSS then), not 80. */
static void test_freed_after_top(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	put(&x, 1, 101, 11, 1, RSSTRACE_ANON, 0);
	put(&x, 1, 101, 11, 1, RSSTRACE_FILE, 20 * MIB);
	put(&x, 1, 102, 12, 1, RSSTRACE_ANON, 0);
	first_interval(s, &x, 2);
	struct rssspan_out o;
	climb(&x, 101, 11, 10, 50, 0, 30 * MIB);
	climb(&x, 102, 12, 30, 55, 0, 40 * MIB);
	bye(&x, 56, 102);
	put(&x, 60, 101, 11, 1, RSSTRACE_ANON, 20 * MIB);
	sorted(&x);
	struct rssspan_live live[] = {{101, 40 * MIB, 0}};
	struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.hi_prev_kib = 20 * MIB, .now_lo_ok = 1, .now_hi_ok = 1, .lo_now_kib = 40 * MIB,
				.hi_now_kib = 40 * MIB, .live = live, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in, &o), 0);
	assert_true(o.floor_ok);
	assert_int_equal(o.floor_kib, 90 * MIB);
	assert_int_equal(o.floor_t_ns, 55 * MS);
	assert_true(o.bound_ok);
	assert_true(o.bound_kib >= 90 * MIB);
	rssspan_free(s);
}

/* The same, but 101 forked before the interval (its anonymous pages are
 * shared with a child that lives on): what it lets go of may have been
 * half its own then, and the floor counts none of it. */
static void test_freed_after_fork_not_counted(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	put(&x, 1, 101, 11, 1, RSSTRACE_ANON, 0);
	put(&x, 1, 101, 11, 1, RSSTRACE_FILE, 20 * MIB);
	climb(&x, 101, 11, 2, 3, 0, 10 * MIB);
	put(&x, 4, 101, 13, 0, RSSTRACE_ANON, 10 * MIB); /* the fork's copies, into 103's mm */
	put(&x, 5, 103, 13, 1, RSSTRACE_FILE, 1 * MIB);
	put(&x, 1, 102, 12, 1, RSSTRACE_ANON, 0);
	first_interval(s, &x, 6);
	struct rssspan_out o;
	climb(&x, 101, 11, 10, 50, 10 * MIB, 30 * MIB);
	climb(&x, 102, 12, 30, 55, 0, 40 * MIB);
	bye(&x, 56, 102);
	put(&x, 60, 101, 11, 1, RSSTRACE_ANON, 20 * MIB);
	sorted(&x);
	struct rssspan_live live[] = {{101, 35 * MIB, 0}, {103, 6 * MIB, 0}};
	struct rssspan_in in = {.open_ns = 6 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.hi_prev_kib = 60 * MIB, .now_lo_ok = 1, .now_hi_ok = 1, .lo_now_kib = 41 * MIB,
				.hi_now_kib = 60 * MIB, .live = live, .nlive = 2};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in, &o), 0);
	assert_true(o.floor_ok);
	/* at 55 ms: 101 at 35 MiB (its bound now: nothing it mapped since
	 * 55 ms, nothing it let go of counted) or its own anonymous pages
	 * (20 MiB past the shared 10), 103 at 6, 102 at 40 */
	assert_int_equal(o.floor_kib, 81 * MIB);
	rssspan_free(s);
}

/* Frees the floor must not add back: a process's mm torn down at its end
 * (the kernel's records of it come with curr 0), and pages let go of after
 * the closing tick's instant (the tick's read of it came before, and may
 * hold them). 101 climbs to 30 MiB by 50 ms and is read by the closing tick
 * at 100 ms at 30 MiB; it lets 10 MiB go at 101 ms, as the tick reads, and
 * 102 (20 MiB, climbed by 40 ms) is torn down at 60 ms before its end
 * record. The floor is 50 MiB, at 50 ms: nothing added back. */
static void test_freed_not_after_close(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	put(&x, 1, 101, 11, 1, RSSTRACE_ANON, 0);
	put(&x, 1, 102, 12, 1, RSSTRACE_ANON, 0);
	first_interval(s, &x, 2);
	struct rssspan_out o;
	climb(&x, 101, 11, 10, 50, 0, 30 * MIB);
	climb(&x, 102, 12, 10, 40, 0, 20 * MIB);
	put(&x, 60, 102, 12, 0, RSSTRACE_ANON, 0); /* the teardown */
	bye(&x, 61, 102);
	put(&x, 101, 101, 11, 1, RSSTRACE_ANON, 20 * MIB);
	sorted(&x);
	struct rssspan_live live[] = {{101, 30 * MIB, 0}};
	struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.now_lo_ok = 1, .now_hi_ok = 1, .lo_now_kib = 30 * MIB, .hi_now_kib = 30 * MIB,
				.live = live, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in, &o), 0);
	assert_true(o.floor_ok);
	assert_int_equal(o.floor_kib, 50 * MIB);
	rssspan_free(s);
}

/* The tracepoint's format, as tracefs gives it on this kernel. */
static void test_fmt_parse(void **state)
{
	(void)state;
	const char *fmt = "name: rss_stat\nID: 646\nformat:\n"
			  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
			  "\tfield:unsigned int mm_id;\toffset:8;\tsize:4;\tsigned:0;\n"
			  "\tfield:unsigned int curr;\toffset:12;\tsize:4;\tsigned:0;\n"
			  "\tfield:int member;\toffset:16;\tsize:4;\tsigned:1;\n"
			  "\tfield:long size;\toffset:24;\tsize:8;\tsigned:1;\n";
	struct rsstrace_fmt f;
	assert_int_equal(rsstrace_fmt_parse(fmt, &f), 0);
	assert_int_equal(f.mm_off, 8);
	assert_int_equal(f.curr_off, 12);
	assert_int_equal(f.member_off, 16);
	assert_int_equal(f.size_off, 24);
	assert_int_equal(f.raw_size, 32);
	unsigned char raw[32] = {0};
	uint32_t mm = 77, curr = 1;
	int32_t member = RSSTRACE_ANON;
	int64_t size = 8 << 20;
	memcpy(raw + 8, &mm, 4);
	memcpy(raw + 12, &curr, 4);
	memcpy(raw + 16, &member, 4);
	memcpy(raw + 24, &size, 8);
	struct rsstrace_rec r = {0};
	assert_int_equal(rsstrace_decode(&f, raw, sizeof(raw), &r), 0);
	assert_int_equal(r.mm, 77);
	assert_int_equal(r.curr, 1);
	assert_int_equal(r.member, RSSTRACE_ANON);
	assert_int_equal(r.size_kib, 8192);
	assert_int_equal(rsstrace_decode(&f, raw, 20, &r), -EINVAL); /* short */
	member = 9;
	memcpy(raw + 16, &member, 4);
	assert_int_equal(rsstrace_decode(&f, raw, sizeof(raw), &r), -EINVAL);
	/* a field gone: refused */
	assert_int_equal(rsstrace_fmt_parse("field:int member;\toffset:16;\tsize:4;\n", &f), -EINVAL);
}

/* A process begun as the closing tick read (its events still on their way):
 * the tick's bound has only the one it counted (10 MiB), the trace has both.
 * The next interval's bound starts from the tick's with the other's 30 MiB,
 * and holds the 45 MiB the two reach; pages spacetime's own reads fault into
 * a tree's mm count as its user's (the floor before them does not hold them). */
static void test_unlisted_in_bound(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	put(&x, 1, 901, 91, 1, RSSTRACE_ANON, 4);
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 2 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
	x.n = 0;
	climb(&x, 901, 91, 10, 40, 4, 10 * MIB + 4);
	climb(&x, 902, 92, 50, 90, 0, 30 * MIB);
	sorted(&x);
	struct rssspan_live l1[] = {{901, 10 * MIB + 4, 0}};
	struct rssspan_in in1 = {.open_ns = 2 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .lo_prev_kib = 4, .hi_prev_kib = 4, .now_lo_ok = 1, .now_hi_ok = 1,
				 .lo_now_kib = 10 * MIB + 4, .hi_now_kib = 10 * MIB + 4, .live = l1, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in1, &o), 0);
	assert_int_equal(o.hi_now_kib, 40 * MIB + 4);
	assert_true(o.bound_kib >= 40 * MIB + 4);
	/* 902 climbs 5 MiB more and lets go of 10; then spacetime (self)
	 * faults 5 MiB into 901 (reading its memory): the tree had 45 MiB at
	 * 150 ms, its most; 35 at 155, 40 at 160 */
	x.n = 0;
	climb(&x, 902, 92, 110, 150, 30 * MIB, 35 * MIB);
	put(&x, 155, 902, 92, 1, RSSTRACE_ANON, 25 * MIB);
	put(&x, 160, 1, 91, 0, RSSTRACE_ANON, 15 * MIB + 4);
	x.r[x.n - 1].self = 1;
	sorted(&x);
	struct rssspan_live l2[] = {{901, 15 * MIB + 4, 0}, {902, 25 * MIB, 0}};
	struct rssspan_in in2 = {.open_ns = 100 * MS, .close_ns = 200 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .lo_prev_kib = 10 * MIB + 4, .hi_prev_kib = o.hi_now_kib, .now_lo_ok = 1,
				 .now_hi_ok = 1, .lo_now_kib = 40 * MIB + 4, .hi_now_kib = 40 * MIB + 4,
				 .live = l2, .nlive = 2};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in2, &o), 0);
	assert_false(o.conflict);
	assert_true(o.bound_ok);
	/* the floor before spacetime's pages: 901 at its 10, not the 15 its
	 * read holds */
	assert_true(o.floor_ok);
	assert_int_equal(o.floor_kib, 45 * MIB + 4);
	assert_int_equal(o.floor_t_ns, 150 * MS);
	assert_true(o.floor_hi_kib >= o.floor_kib);
	assert_true(o.bound_kib >= 45 * MIB + 4);
	rssspan_free(s);
}

/* A process the closing tick counted as the fork it was (its exec event
 * still on its way: the model's figures are of its parent's pages) that the
 * trace saw exec and map 8 MiB of its own: the tick's bound does not hold
 * them, and gets its resident pages; once the model has its exec, not. */
static void test_exec_unseen_in_bound(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	put(&x, 1, 960, 96, 1, RSSTRACE_ANON, 1 * MIB);
	put(&x, 2, 960, 95, 0, RSSTRACE_ANON, 1 * MIB); /* 960 forks 950: its copies */
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 3 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
	x.n = 0;
	put(&x, 10, 950, 95, 1, RSSTRACE_ANON, 1 * MIB + 4); /* the child's own first page */
	put(&x, 40, 950, 97, 0, RSSTRACE_ANON, 128);          /* its exec: the arguments */
	climb(&x, 950, 97, 50, 80, 128, 8 * MIB + 128);       /* the new program's */
	sorted(&x);
	struct rssspan_live l[] = {{960, 1 * MIB, 1 * MS}, {950, 4, 2 * MS}};
	struct rssspan_in in = {.open_ns = 3 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 1 * MIB, .hi_prev_kib = 1 * MIB, .now_lo_ok = 1, .now_hi_ok = 1,
				.lo_now_kib = 1 * MIB + 4, .hi_now_kib = 1 * MIB + 8, .live = l, .nlive = 2};
	struct rssspan_in later = in;
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in, &o), 0);
	assert_int_equal(o.hi_now_kib, 1 * MIB + 8 + 8 * MIB + 128);
	/* the next tick has its exec (its event's instant, 60 ms, after the
	 * first page of the new program): its figures are the new program's */
	x.n = 0;
	put(&x, 150, 950, 97, 1, RSSTRACE_ANON, 8 * MIB + 132);
	l[1] = (struct rssspan_live){950, 8 * MIB, 60 * MS};
	later.open_ns = 100 * MS;
	later.close_ns = 200 * MS;
	later.hi_prev_kib = o.hi_now_kib;
	later.hi_now_kib = 9 * MIB + 200;
	later.lo_now_kib = 9 * MIB;
	assert_int_equal(rssspan_interval(s, x.r, x.n, &later, &o), 0);
	assert_int_equal(o.hi_now_kib, 9 * MIB + 200);
	rssspan_free(s);
}

/* A closing tick whose sweep's processes moved as it read them (one ended
 * in the middle): the one that ended as it read counts at its own anonymous
 * pages only before its end, not at its read (which holds its shares of
 * pages the others' later reads hold too: here 10 MiB counted twice, a
 * floor above what the tree can have had); the others at their reads. */
static void test_moved_reads_count_own(void **state)
{
	(void)state;
	for (int moved = 0; moved <= 1; moved++) {
		struct rssspan *s = rssspan_new();
		struct recs x = {.n = 0};
		struct rssspan_out o;
		struct rssspan_exits ex;
		put(&x, 1, 970, 97, 1, RSSTRACE_ANON, 4);
		put(&x, 1, 971, 98, 1, RSSTRACE_FILE, 10 * MIB);
		struct rssspan_in in0 = {.open_ns = 0, .close_ns = 2 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
					 .now_lo_ok = 1, .now_hi_ok = 1};
		assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
		x.n = 0;
		climb(&x, 970, 97, 10, 50, 4, 20 * MIB + 4); /* its own 20 MiB */
		sorted(&x);
		struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
					.lo_prev_kib = 10 * MIB + 4, .hi_prev_kib = 10 * MIB + 4};
		assert_int_equal(rssspan_forward(s, x.r, x.n, &in, &ex), 0);
		x.n = 0;
		bye(&x, 101, 970); /* as the tick read */
		assert_int_equal(rssspan_more(s, x.r, x.n, NULL), 0);
		/* 970 read at 30 MiB (its 20, and 10 it shared with 971 then),
		 * 971 read after 970's end at its 10 */
		struct rssspan_live l[] = {{970, 30 * MIB, 0}, {971, 10 * MIB, 0}};
		in.now_lo_ok = in.now_hi_ok = 1;
		in.lo_now_kib = 40 * MIB;
		in.hi_now_kib = 40 * MIB;
		in.now_lo_moved = moved;
		in.live = l;
		in.nlive = 2;
		assert_int_equal(rssspan_backward(s, &in, &o), 0);
		if (!moved) {
			assert_true(o.conflict); /* 40 MiB: above the tree's 30 */
			assert_false(o.floor_ok);
		} else {
			assert_false(o.conflict);
			assert_true(o.floor_ok);
			assert_int_equal(o.floor_kib, 30 * MIB + 4);
		}
		rssspan_free(s);
	}
}

/* The closing tick read its figures after its instant, each at its own:
 * an instant of that read bounds the tree at the tick's figures and what
 * moved as it read, not at the forward bound alone (which counts in full
 * the 30 MiB of a file a second process maps, shared with the first). */
static void test_read_window_bound(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	struct rssspan_exits ex;
	put(&x, 1, 980, 81, 1, RSSTRACE_FILE, 30 * MIB);
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 2 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
	x.n = 0;
	put(&x, 20, 981, 82, 1, RSSTRACE_FILE, 30 * MIB); /* the same file's pages */
	struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 30 * MIB, .hi_prev_kib = 30 * MIB};
	assert_int_equal(rssspan_forward(s, x.r, x.n, &in, &ex), 0);
	x.n = 0;
	climb(&x, 981, 82, 101, 102, 0, 1 * MIB); /* as the tick read: 1 MiB of its own */
	x.r[0].member = RSSTRACE_ANON;
	assert_int_equal(rssspan_more(s, x.r, x.n, NULL), 0);
	struct rssspan_live l[] = {{980, 15 * MIB, 0}, {981, 16 * MIB, 0}};
	in.now_lo_ok = in.now_hi_ok = 1;
	in.lo_now_kib = in.hi_now_kib = 31 * MIB;
	in.live = l;
	in.nlive = 2;
	assert_int_equal(rssspan_backward(s, &in, &o), 0);
	assert_true(o.bound_ok);
	assert_true(o.bound_kib >= 31 * MIB);
	assert_true(o.bound_kib <= 32 * MIB + RSSSPAN_SLACK_KIB);
	rssspan_free(s);
}

/* A closing tick whose processes moved as it read them, with no end: B was
 * read at 20 MiB (its share of a file of 40 it maps with A), then let go of
 * its mapping, then A was read at the whole 40; and C, read as the fork it
 * was (10 MiB, its share of its parent's pages), exec'd as the tick read,
 * its parent read after at all 20. The tree never had more than 60 MiB
 * and 4 KiB: each counts at its read less what it moved as the tick read,
 * and C at nothing from before its exec (its figures are the old program's). */
static void test_moved_reads_window(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	struct rssspan_exits ex;
	put(&x, 1, 990, 90, 1, RSSTRACE_FILE, 40 * MIB);
	put(&x, 1, 991, 91, 1, RSSTRACE_FILE, 40 * MIB);
	put(&x, 1, 992, 92, 1, RSSTRACE_ANON, 20 * MIB);
	put(&x, 2, 992, 93, 0, RSSTRACE_ANON, 20 * MIB); /* 992 forks 993: its copies */
	put(&x, 3, 993, 93, 1, RSSTRACE_ANON, 20 * MIB);
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 4 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1};
	assert_int_equal(rssspan_interval(s, x.r, x.n, &in0, &o), 0);
	x.n = 0;
	put(&x, 50, 990, 90, 1, RSSTRACE_ANON, 4);
	struct rssspan_in in = {.open_ns = 4 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 60 * MIB, .hi_prev_kib = 60 * MIB};
	assert_int_equal(rssspan_forward(s, x.r, x.n, &in, &ex), 0);
	x.n = 0;
	put(&x, 101, 991, 91, 1, RSSTRACE_FILE, 0);       /* B lets go, after its read */
	put(&x, 102, 993, 95, 0, RSSTRACE_ANON, 64);      /* C's exec: its arguments */
	put(&x, 103, 993, 95, 1, RSSTRACE_ANON, 128);     /* and its new program's page */
	assert_int_equal(rssspan_more(s, x.r, x.n, NULL), 0);
	struct rssspan_live l[] = {{990, 40 * MIB + 4, 1 * MS}, {991, 20 * MIB, 1 * MS},
				   {992, 20 * MIB, 1 * MS}, {993, 10 * MIB, 2 * MS}};
	in.now_lo_ok = in.now_hi_ok = 1;
	in.now_lo_moved = 1;
	in.lo_now_kib = 90 * MIB + 4;
	in.hi_now_kib = 90 * MIB + 4;
	in.live = l;
	in.nlive = 4;
	assert_int_equal(rssspan_backward(s, &in, &o), 0);
	assert_true(o.floor_ok);
	assert_true(o.floor_kib <= 60 * MIB + 4 + 128);
	assert_true(o.floor_kib >= 60 * MIB);
	assert_int_equal(o.lo_now_kib, 60 * MIB + 4);
	rssspan_free(s);
}


/* pid's file counter climbing from `from` to `to` KiB, a MiB a record. */
static void map_file(struct recs *x, int pid, uint32_t mm, uint64_t t0, uint64_t t1, int64_t from, int64_t to)
{
	int64_t steps = (to - from) / MIB;
	for (int64_t i = 1; i <= steps; i++)
		put(x, t0 + (t1 - t0) * (uint64_t)i / (uint64_t)steps, pid, mm, 1, RSSTRACE_FILE, from + i * MIB);
}

/* The interval of the read tests: 101 holds 40 MiB of its own at both
 * ticks; 102 execs at 10 ms (an mm of its own), takes 2 MiB of anonymous
 * memory and maps 30 MiB of a file no other process maps (an archiver's
 * plugin) by 40 ms; the walk is fed up to 41 ms, as a wakeup would. */
static void read_setup(struct rssspan *s, struct recs *x)
{
	struct rssspan_out o;
	put(x, 1, 101, 11, 1, RSSTRACE_ANON, 40 * MIB);
	struct rssspan_live l0[] = {{101, 40 * MIB, 0}};
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 2 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1, .lo_now_kib = 40 * MIB,
				 .hi_now_kib = 40 * MIB, .live = l0, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x->r, x->n, &in0, &o), 0);
	x->n = 0;
	put(x, 10, 102, 12, 1, RSSTRACE_ANON, 2 * MIB);
	map_file(x, 102, 12, 11, 40, 0, 30 * MIB);
	struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 40 * MIB, .hi_prev_kib = 40 * MIB};
	struct rssspan_exits ex;
	assert_int_equal(rssspan_forward(s, x->r, x->n, &in, &ex), 0);
	x->n = 0;
}

/* The interval's close: 101 read at 40 MiB again (no floor from the
 * closing tick when fwd_only: the forward walk's alone), 102 gone. */
static void read_close_fwd(struct rssspan *s, struct recs *x, struct rssspan_out *o, int also_103, int fwd_only)
{
	struct rssspan_live live[] = {{101, 40 * MIB, 0}, {103, 30 * MIB, 0}};
	struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				.lo_prev_kib = 40 * MIB, .hi_prev_kib = 40 * MIB, .now_lo_ok = !fwd_only, .now_hi_ok = 1,
				.lo_now_kib = (also_103 ? 70 : 40) * MIB, .hi_now_kib = (also_103 ? 70 : 40) * MIB,
				.live = live, .nlive = also_103 ? 2 : 1};
	sorted(x);
	assert_int_equal(rssspan_more(s, x->r, x->n, NULL), 0);
	assert_int_equal(rssspan_backward(s, &in, o), 0);
}

static void read_close(struct rssspan *s, struct recs *x, struct rssspan_out *o, int also_103)
{
	read_close_fwd(s, x, o, also_103, 0);
}

/* A process that maps a file of its own and exits at its top between two
 * ticks: its file pages count only once it is read. A burst of its file
 * pages asks for the read; its private pages (30 MiB of file, 2 of its own
 * anonymous ones) then make the floor the tree's truth, 72 MiB, within the
 * bound; a second read of it replaces the first (not added to it). */
static void test_read_private_file(void **state)
{
	(void)state;
	for (int k = 0; k < 6; k++) {
		int reads = k % 3, fwd_only = k >= 3; /* fwd_only: the forward walk's floor alone */
		struct rssspan *s = rssspan_new();
		struct recs x = {.n = 0};
		struct rssspan_out o;
		int32_t pids[RSSSPAN_WANT_MAX];
		read_setup(s, &x);
		size_t nw = rssspan_wants(s, pids, RSSSPAN_WANT_MAX);
		assert_int_equal(nw, 1);
		assert_int_equal(pids[0], 102);
		assert_int_equal(rssspan_wants(s, pids, RSSSPAN_WANT_MAX), 0); /* taken out */
		assert_true(rssspan_hi_now(s) >= 72 * MIB);
		if (reads >= 1)
			assert_int_equal(rssspan_read(s, 42 * MS, 43 * MS, 102, 32 * MIB), 0);
		put(&x, 44, 102, 12, 1, RSSTRACE_ANON, 2 * MIB + 4);
		if (reads >= 2) {
			assert_int_equal(rssspan_more(s, x.r, x.n, NULL), 0);
			x.n = 0;
			assert_int_equal(rssspan_read(s, 45 * MS, 46 * MS, 102, 32 * MIB + 4), 0);
		}
		put(&x, 50, 101, 11, 1, RSSTRACE_ANON, 40 * MIB); /* a record after the read */
		bye(&x, 60, 102);
		read_close_fwd(s, &x, &o, 0, fwd_only);
		assert_true(o.floor_ok);
		assert_false(o.conflict);
		if (reads)
			assert_true(o.floor_kib >= 72 * MIB && o.floor_kib <= 72 * MIB + 8);
		else
			assert_true(o.floor_kib <= 42 * MIB + 8); /* its anonymous pages alone */
		assert_true(o.bound_kib >= o.floor_kib);
		rssspan_free(s);
	}
}

/* After the read another process of the tree maps 30 MiB of a file (it
 * may be the same file: the tree holds no more then) before the read one
 * exits, and stays: the read counts only until pages are mapped that may
 * be its own, so no instant's floor passes the most the tree can hold,
 * 72 MiB. */
static void test_read_then_shared(void **state)
{
	(void)state;
	struct rssspan *s = rssspan_new();
	struct recs x = {.n = 0};
	struct rssspan_out o;
	read_setup(s, &x);
	assert_int_equal(rssspan_read(s, 42 * MS, 43 * MS, 102, 32 * MIB), 0);
	put(&x, 50, 103, 13, 1, RSSTRACE_ANON, 4);
	map_file(&x, 103, 13, 51, 56, 0, 30 * MIB);
	bye(&x, 60, 102);
	read_close(s, &x, &o, 1);
	assert_true(o.floor_ok);
	assert_false(o.conflict);
	/* at 43-50 ms: 101's 40, 102's 32 */
	assert_true(o.floor_kib >= 72 * MIB && o.floor_kib <= 72 * MIB + 8);
	rssspan_free(s);
}

/* The opening interval of the two tests below: 101 at 40 MiB of its own. */
static void open_101(struct rssspan *s, struct recs *x)
{
	struct rssspan_out o;
	put(x, 1, 101, 11, 1, RSSTRACE_ANON, 40 * MIB);
	struct rssspan_live l0[] = {{101, 40 * MIB, 0}};
	struct rssspan_in in0 = {.open_ns = 0, .close_ns = 2 * MS, .prev_lo_ok = 1, .prev_hi_ok = 1,
				 .now_lo_ok = 1, .now_hi_ok = 1, .lo_now_kib = 40 * MIB,
				 .hi_now_kib = 40 * MIB, .live = l0, .nlive = 1};
	assert_int_equal(rssspan_interval(s, x->r, x->n, &in0, &o), 0);
	x->n = 0;
}

/* 102 (2 MiB of its own, 30 of a file) exits at 41 ms; a read at 42-43 ms
 * of its pid finds 60 MiB: another process's (the pid reused), not the
 * tree's. Its exit's record taken in after the read ends the read; taken in
 * before, the read is refused. 101 forked 103 and 105 with no record of
 * their own (the tree's RSS sum is three times its PSS, so the bound does
 * not catch it). The floor never passes the truth, 72 MiB. */
static void test_read_of_pid_gone(void **state)
{
	(void)state;
	for (int exit_first = 0; exit_first <= 1; exit_first++) {
		struct rssspan *s = rssspan_new();
		struct recs x = {.n = 0};
		struct rssspan_out o;
		struct rssspan_exits ex;
		open_101(s, &x);
		put(&x, 5, 101, 13, 0, RSSTRACE_ANON, 40 * MIB);
		put(&x, 5, 101, 15, 0, RSSTRACE_ANON, 40 * MIB);
		put(&x, 10, 102, 12, 1, RSSTRACE_ANON, 2 * MIB);
		map_file(&x, 102, 12, 11, 40, 0, 30 * MIB);
		struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 0,
					.lo_prev_kib = 40 * MIB, .hi_prev_kib = 40 * MIB};
		if (exit_first)
			bye(&x, 41, 102);
		assert_int_equal(rssspan_forward(s, x.r, x.n, &in, &ex), 0);
		x.n = 0;
		assert_int_equal(rssspan_read(s, 42 * MS, 43 * MS, 102, 60 * MIB), exit_first ? -ESRCH : 0);
		if (!exit_first)
			bye(&x, 41, 102); /* before the read, taken in after it */
		put(&x, 50, 101, 11, 1, RSSTRACE_ANON, 40 * MIB + 4);
		assert_int_equal(rssspan_more(s, x.r, x.n, NULL), 0);
		struct rssspan_live live[] = {{101, 14 * MIB, 0}, {103, 13 * MIB, 0}, {105, 13 * MIB, 0}};
		in.now_lo_ok = 1;
		in.lo_now_kib = 40 * MIB;
		in.live = live;
		in.nlive = 3;
		assert_int_equal(rssspan_backward(s, &in, &o), 0);
		if (o.floor_ok)
			assert_true(o.floor_kib <= 72 * MIB + 8);
		rssspan_free(s);
	}
}

/* 102 read at 42-43 ms (32 MiB private: 30 of a file, 2 anonymous) forks
 * 104 at 50 ms, which makes no record of its own; the closing tick counts
 * 102 and 104 at 16 MiB each. Before the fork, a backward floor would count
 * 104's share of 102's pages and the read's whole 32 MiB: the read is of
 * no use to it. The tree holds 72 MiB from 40 ms on: the floor stays
 * within it, with the read or without. */
static void test_read_then_fork(void **state)
{
	(void)state;
	for (int rd = 0; rd <= 1; rd++) {
		struct rssspan *s = rssspan_new();
		struct recs x = {.n = 0};
		struct rssspan_out o;
		struct rssspan_exits ex;
		open_101(s, &x);
		put(&x, 5, 101, 13, 0, RSSTRACE_ANON, 40 * MIB);
		put(&x, 10, 102, 12, 1, RSSTRACE_ANON, 2 * MIB);
		map_file(&x, 102, 12, 11, 40, 0, 30 * MIB);
		struct rssspan_in in = {.open_ns = 2 * MS, .close_ns = 100 * MS, .prev_lo_ok = 1, .prev_hi_ok = 0,
					.lo_prev_kib = 40 * MIB, .hi_prev_kib = 40 * MIB};
		assert_int_equal(rssspan_forward(s, x.r, x.n, &in, &ex), 0);
		x.n = 0;
		if (rd)
			assert_int_equal(rssspan_read(s, 42 * MS, 43 * MS, 102, 32 * MIB), 0);
		put(&x, 50, 102, 14, 0, RSSTRACE_FILE, 30 * MIB); /* the fork's copies */
		put(&x, 50, 102, 14, 0, RSSTRACE_ANON, 2 * MIB);
		put(&x, 60, 101, 11, 1, RSSTRACE_ANON, 40 * MIB + 4);
		assert_int_equal(rssspan_more(s, x.r, x.n, NULL), 0);
		struct rssspan_live live[] = {
			{101, 20 * MIB, 0}, {103, 20 * MIB, 0}, {102, 16 * MIB, 0}, {104, 16 * MIB, 0}};
		in.now_lo_ok = 1;
		in.lo_now_kib = 72 * MIB;
		in.live = live;
		in.nlive = 4;
		assert_int_equal(rssspan_backward(s, &in, &o), 0);
		if (o.floor_ok)
			assert_true(o.floor_kib <= 72 * MIB + 8);
		rssspan_free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meet_between_ticks),
		cmocka_unit_test(test_freed_after_top),
		cmocka_unit_test(test_freed_after_fork_not_counted),
		cmocka_unit_test(test_freed_not_after_close),
		cmocka_unit_test(test_fork_child_own_pages),
		cmocka_unit_test(test_exec_teardown_and_vfork),
		cmocka_unit_test(test_counted_after_exit),
		cmocka_unit_test(test_halves_tell_the_exit),
		cmocka_unit_test(test_reset_takes_baselines),
		cmocka_unit_test(test_conflict_takes_neither),
		cmocka_unit_test(test_group_dead_parse),
		cmocka_unit_test(test_read_window),
		cmocka_unit_test(test_churn_bound),
		cmocka_unit_test(test_unlisted_in_bound),
		cmocka_unit_test(test_exec_unseen_in_bound),
		cmocka_unit_test(test_moved_reads_count_own),
		cmocka_unit_test(test_read_window_bound),
		cmocka_unit_test(test_moved_reads_window),
		cmocka_unit_test(test_fmt_parse),
		cmocka_unit_test(test_read_private_file),
		cmocka_unit_test(test_read_then_shared),
		cmocka_unit_test(test_read_of_pid_gone),
		cmocka_unit_test(test_read_then_fork),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
