/* Unit tests for coll_scan.c: the /proc tree scan, on a fake /proc whose
 * tree is known. R has children A and B; A, with two threads, has C (a child
 * of its main thread) and D (of its other thread); S is a stranger. The scan
 * must find exactly R's descendants, with their parents. */
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
#define D (FP_PID + 4)
#define T2 (FP_PID + 5) /* A's second thread */
#define E (FP_PID + 7)  /* an orphan of the tree, reparented to spacetime */
#define S (FP_PID + 9)

/* Writes the fake tree. */
static void make_tree(struct fakeproc *f)
{
	fp_stat(f, R, &(struct fp_stat){.ppid = 1, .comm = "make", .start_ticks = 10});
	fp_children(f, R, R, "4000001 4000002 ");
	fp_stat(f, A, &(struct fp_stat){.ppid = R, .comm = "cc", .threads = 2, .start_ticks = 20});
	fp_children(f, A, A, "4000003 ");
	fp_children(f, A, T2, "4000004 ");
	fp_stat(f, B, &(struct fp_stat){.ppid = R, .comm = "ld", .start_ticks = 21});
	fp_children(f, B, B, "");
	fp_stat(f, C, &(struct fp_stat){.ppid = A, .comm = "cc1", .start_ticks = 30});
	fp_children(f, C, C, "");
	fp_stat(f, D, &(struct fp_stat){.ppid = A, .comm = "as", .start_ticks = 31});
	fp_children(f, D, D, "");
	fp_stat(f, S, &(struct fp_stat){.ppid = 1, .comm = "stranger", .start_ticks = 5});
	fp_children(f, S, S, "");
	for (pid_t p = R; p <= S; p++)
		fp_statm(f, p, 1000, 100, 50);
}

/* The collector following R, as collector_start would set it up. */
static struct fakeproc *follow_root(int netlink)
{
	struct fakeproc *f = fp_new(netlink);

	make_tree(f);
	f->c->root = R;
	assert_non_null(coll_sample_add_proc(f->c, R, 1, f->now_ns, NULL));
	return f;
}

static void assert_parent(struct fakeproc *f, pid_t pid, pid_t ppid)
{
	const struct pentry *e = ptable_get(f->c->pt, pid);

	assert_non_null(e);
	assert_int_equal(e->rec.ppid, ppid);
	assert_true(e->seen);
}

/* Polling: every descendant found, through both of A's threads; the
 * stranger not; each found one counted as an exec (polling cannot tell). */
static void test_scan_poll(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root(0);

	coll_scan_tree(f->c, f->now_ns, NULL);
	assert_int_equal(ptable_count(f->c->pt), 5);
	assert_parent(f, A, R);
	assert_parent(f, B, R);
	assert_parent(f, C, A);
	assert_parent(f, D, A);
	assert_null(ptable_get(f->c->pt, S));
	assert_int_equal(f->c->total_procs, 5);
	assert_int_equal(f->c->total_execs, 4);
	assert_int_equal(f->c->sum.rescans, 0);
	/* a found process is read at once when polling: its program is its own */
	assert_string_equal(ptable_get(f->c->pt, D)->rec.comm, "as");
	/* a second scan adds nothing */
	coll_scan_tree(f->c, f->now_ns, NULL);
	assert_int_equal(f->c->total_procs, 5);
	fp_free(f);
}

/* Netlink: what a rescan finds was missed, and counted as such; a zombie
 * already retired is not found again, but a new holder of its pid is. */
static void test_scan_rescan(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root(1);

	coll_scan_tree(f->c, f->now_ns, NULL);
	/* a process found by a netlink-mode scan is read at the next tick: its
	 * threads unknown yet, only its main thread's children are found */
	assert_int_equal(ptable_count(f->c->pt), 4);
	assert_parent(f, C, A);
	assert_null(ptable_get(f->c->pt, D));
	assert_null(ptable_get(f->c->pt, S));
	assert_int_equal(f->c->sum.rescans, 3);
	assert_int_equal(f->c->total_execs, 0);
	/* once sampled, A's two threads are known: the next rescan finds D */
	assert_int_equal(coll_sample_cheap(f->c, ptable_get(f->c->pt, A), f->now_ns), 0);
	assert_int_equal(ptable_get(f->c->pt, A)->rec.threads, 2);
	coll_scan_tree(f->c, f->now_ns, NULL);
	assert_parent(f, D, A);
	assert_int_equal(ptable_count(f->c->pt), 5);
	assert_int_equal(f->c->sum.rescans, 4);

	/* B ends; its exit retires it; its parent has not reaped it yet */
	fp_stat(f, B, &(struct fp_stat){.ppid = R, .comm = "ld", .state = 'Z', .start_ticks = 21});
	coll_sample_retire(f->c, ptable_get(f->c->pt, B), f->now_ns, 0, 1, COLL_SAMPLE_RETIRE_READ);
	assert_null(ptable_get(f->c->pt, B));
	coll_scan_tree(f->c, f->now_ns, NULL);
	assert_null(ptable_get(f->c->pt, B));
	assert_int_equal(f->c->sum.rescans, 4);
	assert_int_equal(f->c->total_procs, 5);

	/* B's pid goes to a new child of R (a later start): a new process */
	fp_stat(f, B, &(struct fp_stat){.ppid = R, .comm = "ld", .start_ticks = 90});
	coll_scan_tree(f->c, f->now_ns, NULL);
	assert_parent(f, B, R);
	assert_int_equal(f->c->sum.rescans, 5);
	assert_int_equal(f->c->total_procs, 6);
	fp_free(f);
}

/* A subreaper's orphans: spacetime's children other than the command are
 * the tree's, found with their own descendants. */
static void test_scan_orphans(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root(0);
	char kids[64];

	f->c->cfg.subreaper = 1;
	snprintf(kids, sizeof(kids), "%d %d ", (int)R, (int)E);
	fp_children(f, f->c->self, f->c->self, kids);
	fp_stat(f, E, &(struct fp_stat){.ppid = f->c->self, .comm = "orphan", .start_ticks = 40});
	fp_children(f, E, E, "4000009 "); /* S, a child of the orphan now */
	coll_scan_tree(f->c, f->now_ns, NULL);
	assert_parent(f, E, f->c->self);
	assert_parent(f, S, E);
	assert_int_equal(ptable_count(f->c->pt), 7);
	fp_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_poll),
		cmocka_unit_test(test_scan_rescan),
		cmocka_unit_test(test_scan_orphans),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
