/* Unit tests for peak: the bound a reader shows beside the figure. A sum of
 * reads is taken one process after the other, so a bound below it by no
 * more than its own error is the figure; below by more is a fault of the
 * bound and is shown as it is. A floor has no such error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "peak.h"

static struct store_summary summary(uint64_t kib, uint64_t doubt, uint64_t bound)
{
	struct store_summary s;

	memset(&s, 0, sizeof(s));
	s.peak.pss_kib = kib;
	s.peak.pss_est_kib = doubt;
	s.peak_measured = 1;
	s.peak_bound_kib = bound;
	return s;
}

static void test_bound_within_reads_error(void **state)
{
	(void)state;
	struct store_summary s = summary(410000, 1100, 409640);
	struct peak p;

	peak_of(&s, &p);
	assert_true(p.bound_known);
	assert_int_equal(p.bound_kib, 410000);
	assert_true(p.read);
	assert_true(peak_bound_pct(&p) == 0.0);
}

static void test_bound_below_by_more_kept(void **state)
{
	(void)state;
	struct store_summary s = summary(410000, 1100, 400000);
	struct peak p;

	peak_of(&s, &p);
	assert_int_equal(p.bound_kib, 400000);
	assert_true(peak_bound_pct(&p) < -2.0);
}

static void test_bound_above(void **state)
{
	(void)state;
	struct store_summary s = summary(100000, 100, 150000);
	struct peak p;

	peak_of(&s, &p);
	assert_int_equal(p.bound_kib, 150000);
	assert_false(p.read);
	assert_true(peak_bound_pct(&p) > 49.9 && peak_bound_pct(&p) < 50.1);
	s.peak_bound_unknown = 1;
	peak_of(&s, &p);
	assert_false(p.bound_known);
	assert_true(peak_bound_pct(&p) < 0);
}

/* A tick's floor: the least the tree had, its doubt upward only. A bound
 * below it, within that doubt, is a fault shown as it is, not raised to the
 * figure; the brief says "at least"; it is no sum of reads, never "read". */
static void test_floor(void **state)
{
	(void)state;
	struct store_summary s = summary(100000, 5000, 98000);
	struct peak p;
	char brief[128];

	s.peak_measured = 0;
	s.peak_floor = 1;
	peak_of(&s, &p);
	assert_true(p.floor);
	assert_false(p.sum_of_reads);
	assert_false(p.read);
	assert_int_equal(p.bound_kib, 98000);
	assert_true(peak_bound_pct(&p) < -1.9);
	peak_brief(&p, brief, sizeof(brief));
	assert_non_null(strstr(brief, "at least"));
	s.peak_bound_kib = 130000;
	peak_of(&s, &p);
	assert_false(p.read);
	assert_int_equal(p.bound_kib, 130000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound_within_reads_error),
		cmocka_unit_test(test_bound_below_by_more_kept),
		cmocka_unit_test(test_bound_above),
		cmocka_unit_test(test_floor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
