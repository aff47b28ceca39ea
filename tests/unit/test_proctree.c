/* Unit tests for proctree: the parent of each record, on hand-made
 * records. A child under its parent; a pid reused in the run (the child
 * takes the record of its ppid begun before it and not ended then); a
 * parent that ended before the child began is none; ties in the start
 * broken by the id; and records whose ppids point at each other (a hostile
 * recording) never form a circle. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "proctree.h"

#define MS 1000000ull

static struct proc_rec rec(uint64_t id, pid_t pid, pid_t ppid, uint64_t start_ms, uint64_t end_ms)
{
	struct proc_rec r;
	memset(&r, 0, sizeof(r));
	r.id = id;
	r.pid = pid;
	r.ppid = ppid;
	r.start_ns = start_ms * MS;
	r.end_ns = end_ms * MS;
	return r;
}

/* A make (pid 10) with two children; pid 20 used twice, one after the
 * other: the grandchild of the second (40, begun at 70 ms) is under the
 * second, not the first. Records out of order in the array. */
static void test_tree_and_reuse(void **state)
{
	(void)state;
	struct proc_rec p[] = {
		rec(5, 40, 20, 70, 80),  rec(1, 10, 1, 0, 100), rec(2, 20, 10, 10, 50),
		rec(4, 20, 10, 60, 90),  rec(3, 30, 10, 20, 0), rec(6, 41, 20, 30, 40),
	};
	size_t par[6];
	assert_int_equal(proctree_parents(p, 6, par), 0);
	assert_int_equal(par[0], 3); /* 40 under the second 20 */
	assert_int_equal(par[1], PROCTREE_NONE);
	assert_int_equal(par[2], 1);
	assert_int_equal(par[3], 1);
	assert_int_equal(par[4], 1);
	assert_int_equal(par[5], 2); /* 41 under the first 20 */
	assert_int_equal(proctree_parents(p, 0, par), 0);
}

/* A parent ended before the child began is none (the pid's record then is
 * another process's, not seen); one ended as it began is the parent. */
static void test_ended(void **state)
{
	(void)state;
	struct proc_rec p[] = {rec(1, 10, 1, 0, 50), rec(2, 20, 10, 60, 70), rec(3, 21, 10, 50, 70)};
	size_t par[3];
	assert_int_equal(proctree_parents(p, 3, par), 0);
	assert_int_equal(par[1], PROCTREE_NONE);
	assert_int_equal(par[2], 0);
}

/* Starts alike (a poll of /proc sees a parent and its child in one tick):
 * the lower id is the parent's; a record is never its own parent. */
static void test_same_start(void **state)
{
	(void)state;
	struct proc_rec p[] = {rec(7, 20, 10, 5, 9), rec(3, 10, 1, 5, 9), rec(9, 30, 30, 5, 9)};
	size_t par[3];
	assert_int_equal(proctree_parents(p, 3, par), 0);
	assert_int_equal(par[0], 1);
	assert_int_equal(par[1], PROCTREE_NONE);
	assert_int_equal(par[2], PROCTREE_NONE);
}

/* Whether following par from every record ends within n steps. */
static int no_circle(const size_t *par, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t a = i, k = 0;
		while (a != PROCTREE_NONE && k++ <= n)
			a = par[a];
		if (a != PROCTREE_NONE)
			return 0;
	}
	return 1;
}

/* A recording whose ppids point at each other, begun at the same time
 * (reviewer's cyc1.db: a make of pid 7252, ppid 7256, and a fill of pid 7256,
 * ppid 7252, both at 0): before, each was the other's parent, a circle no
 * walk from a root reached. Now the lower id is the root. Three in a ring
 * with one start; and two in a ring at different starts. */
static void test_no_circle(void **state)
{
	(void)state;
	struct proc_rec two[] = {rec(1, 7252, 7256, 0, 336), rec(3, 7256, 7252, 0, 118)};
	struct proc_rec ring[] = {rec(2, 11, 13, 0, 9), rec(1, 12, 11, 0, 9), rec(3, 13, 12, 0, 9)};
	struct proc_rec later[] = {rec(1, 11, 12, 5, 9), rec(2, 12, 11, 0, 9)};
	size_t par[3];

	assert_int_equal(proctree_parents(two, 2, par), 0);
	assert_true(no_circle(par, 2));
	assert_int_equal(par[0], PROCTREE_NONE);
	assert_int_equal(par[1], 0);
	assert_int_equal(proctree_parents(ring, 3, par), 0);
	assert_true(no_circle(par, 3));
	/* id 1 (pid 12) and id 2 (pid 11) have their parents after them:
	 * none; id 3's (pid 12, id 1) is before it */
	assert_int_equal(par[0], PROCTREE_NONE);
	assert_int_equal(par[1], PROCTREE_NONE);
	assert_int_equal(par[2], 1);
	assert_int_equal(proctree_parents(later, 2, par), 0);
	assert_true(no_circle(par, 2));
	assert_int_equal(par[0], 1);
	assert_int_equal(par[1], PROCTREE_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_and_reuse),
		cmocka_unit_test(test_ended),
		cmocka_unit_test(test_same_start),
		cmocka_unit_test(test_no_circle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
