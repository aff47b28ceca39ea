/* Unit tests for outlog: the output lines up to an instant, the ring's bounds
 * (lines and bytes) and what it says it let go of. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outlog.h"

/* Pushes "line N" at time 10 N for N in [from, to). */
static void push_range(struct outlog *o, int from, int to)
{
	char b[32];

	for (int i = from; i < to; i++) {
		int n = snprintf(b, sizeof(b), "line %d", i);
		assert_int_equal(outlog_push(o, (uint64_t)i * 10, b, (size_t)n), 0);
	}
}

/* The last lines at or before an instant, oldest first, as many as asked. */
static void test_lines_to(void **state)
{
	struct outlog *o = outlog_new(100, 1 << 20);
	struct outlog_line *v;
	int cut;

	(void)state;
	assert_non_null(o);
	push_range(o, 0, 20);
	/* at 55: lines 0..5; the last 3 of them */
	assert_int_equal(outlog_to(o, 55, 3, &v, &cut), 3);
	assert_memory_equal(v[0].bytes, "line 3", 6);
	assert_memory_equal(v[2].bytes, "line 5", 6);
	assert_int_equal(v[2].t_ns, 50);
	assert_false(cut);
	free(v);
	/* exactly at a line's instant: it counts */
	assert_int_equal(outlog_to(o, 60, 100, &v, &cut), 7);
	assert_memory_equal(v[6].bytes, "line 6", 6);
	free(v);
	/* at the first line's instant: it alone */
	assert_int_equal(outlog_to(o, 0, 100, &v, &cut), 1);
	free(v);
	outlog_free(o);
	/* none yet */
	o = outlog_new(100, 1 << 20);
	assert_int_equal(outlog_to(o, 1000, 10, &v, &cut), 0);
	assert_null(v);
	/* an empty line, and bytes that are not text */
	assert_int_equal(outlog_push(o, 5, "", 0), 0);
	assert_int_equal(outlog_push(o, 6, "a\0b", 3), 0);
	/* one older than the last is dated as the last: time order holds */
	assert_int_equal(outlog_push(o, 1, "late", 4), 0);
	assert_int_equal(outlog_to(o, 6, 10, &v, &cut), 3);
	assert_int_equal(v[0].len, 0);
	assert_memory_equal(v[1].bytes, "a\0b", 3);
	assert_int_equal(v[2].t_ns, 6);
	free(v);
	outlog_free(o);
}

/* Past its bounds the oldest lines go: by count, and by bytes; what is
 * asked for before what is kept says it was cut. */
static void test_bounds(void **state)
{
	struct outlog *o = outlog_new(10, 1 << 20);
	struct outlog_line *v;
	int cut;

	(void)state;
	push_range(o, 0, 25);
	assert_int_equal(outlog_count(o), 10);
	assert_int_equal(outlog_dropped(o), 15);
	assert_int_equal(outlog_to(o, 1000, 100, &v, &cut), 10);
	assert_memory_equal(v[0].bytes, "line 15", 7);
	assert_true(cut);
	free(v);
	/* the last 4 of them: older ones are kept, nothing cut */
	assert_int_equal(outlog_to(o, 1000, 4, &v, &cut), 4);
	assert_false(cut);
	free(v);
	/* at an instant all of whose lines went: none, and cut */
	assert_int_equal(outlog_to(o, 100, 4, &v, &cut), 0);
	assert_true(cut);
	outlog_free(o);

	/* 64 bytes: lines of 7 bytes, 9 at most */
	o = outlog_new(1000, 64);
	push_range(o, 10, 40);
	assert_int_equal(outlog_count(o), 9);
	assert_int_equal(outlog_to(o, 1000, 100, &v, &cut), 9);
	assert_memory_equal(v[8].bytes, "line 39", 7);
	free(v);
	/* a line longer than the bound still goes in, alone */
	char big[100];
	memset(big, 'x', sizeof(big));
	assert_int_equal(outlog_push(o, 500, big, sizeof(big)), 0);
	assert_int_equal(outlog_count(o), 1);
	outlog_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_to),
		cmocka_unit_test(test_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
