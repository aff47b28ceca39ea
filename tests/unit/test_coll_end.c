/* Unit tests for coll_end.c on a fake /proc: an attached run ends when
 * every process has, as /proc and the exit events tell; its end is the
 * injected clock's, with zombies retired then and the totals of what was
 * seen. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fakeproc.h"

#define A FP_PID
#define Z (FP_PID + 1)
#define MS 1000000ull

/* Attached (netlink mode) to A, running, and Z, a zombie its parent has not
 * reaped. */
static struct fakeproc *attached(void)
{
	struct fakeproc *f = fp_new(1);

	fp_stat(f, A, &(struct fp_stat){.ppid = 1, .comm = "server", .minflt = 600, .utime_ticks = 30,
					 .start_ticks = 10});
	fp_statm(f, A, 1000, 100, 10);
	fp_stat(f, Z, &(struct fp_stat){.ppid = 1, .comm = "old", .state = 'Z', .minflt = 40, .start_ticks = 11});
	fp_statm(f, Z, 0, 0, 0);
	f->c->attach = 1;
	f->c->root = -1;
	assert_non_null(coll_sample_add_proc(f->c, A, 1, f->now_ns, NULL));
	assert_non_null(coll_sample_add_proc(f->c, Z, 1, f->now_ns, NULL));
	collector_tick(f->c); /* Z's memory is found gone */
	assert_true(ptable_get(f->c->pt, Z)->mm_gone);
	return f;
}

/* The run goes on while A runs, even with its exit event come, and ends
 * once /proc shows it gone. */
static void test_end_attach_ended(void **state)
{
	(void)state;
	struct fakeproc *f = attached();

	assert_false(coll_end_attach_ended(f->c));
	struct pentry *e = ptable_get(f->c->pt, A);
	e->exit_pending = 1;
	e->exit_ns = f->now_ns;
	assert_false(coll_end_attach_ended(f->c));
	fp_gone(f, A);
	assert_true(coll_end_attach_ended(f->c));
	fp_free(f);
}

/* The end: at the time given, the unreaped zombie retired then, the final
 * sample taken, the totals those of what was seen, the run finished. */
static void test_end_finish(void **state)
{
	(void)state;
	struct fakeproc *f = attached();
	uint64_t t_end = f->now_ns + 400 * MS;
	struct proc_rec r[4];

	f->now_ns = t_end;
	collector_finish(f->c, t_end);
	assert_true(collector_finished(f->c));
	assert_int_equal(f->c->sum.end_ns, t_end);
	assert_int_equal(store_procs(f->st, STORE_PROCS_EXITED, r, 4), 1);
	assert_int_equal(r[0].pid, Z);
	assert_int_equal(r[0].end_ns, t_end);
	assert_non_null(ptable_get(f->c->pt, A));
	assert_int_equal(f->c->sum.last.t_ns, t_end);
	assert_int_equal(f->c->sum.ru_minflt, 600 + 40);
	assert_int_equal(f->c->sum.ru_utime_us, 30 * 1000000 / (uint64_t)procfs_hz());
	struct store_summary s;
	store_summary_get(f->st, &s);
	assert_int_equal(s.end_ns, t_end);
	fp_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_end_attach_ended),
		cmocka_unit_test(test_end_finish),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
