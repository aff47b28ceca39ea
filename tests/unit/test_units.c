/* Unit tests for units: sizes as people write them (units_parse_kib, what
 * spacetime forecast --ram takes) and as they read them (units_kib). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "units.h"

static void test_parse(void **state)
{
	uint64_t k = 0;

	(void)state;
	assert_int_equal(units_parse_kib("16G", &k), 0);
	assert_int_equal(k, 16ull << 20);
	assert_int_equal(units_parse_kib("512M", &k), 0);
	assert_int_equal(k, 512ull << 10);
	assert_int_equal(units_parse_kib("1.5GiB", &k), 0);
	assert_int_equal(k, 3ull << 19);
	assert_int_equal(units_parse_kib("64 MiB", &k), 0);
	assert_int_equal(k, 64ull << 10);
	assert_int_equal(units_parse_kib("2048k", &k), 0);
	assert_int_equal(k, 2048);
	assert_int_equal(units_parse_kib("1tb", &k), 0);
	assert_int_equal(k, 1ull << 30);
	assert_int_equal(units_parse_kib("0.5K", &k), 0);
	assert_int_equal(k, 1); /* rounded to the nearest KiB */
	assert_int_equal(units_parse_kib("0G", &k), 0);
	assert_int_equal(k, 0);
	/* no unit, no number, something after, negative, too big */
	assert_int_equal(units_parse_kib("16", &k), -EINVAL);
	assert_int_equal(units_parse_kib("G", &k), -EINVAL);
	assert_int_equal(units_parse_kib("", &k), -EINVAL);
	assert_int_equal(units_parse_kib("16GiBs", &k), -EINVAL);
	assert_int_equal(units_parse_kib("16X", &k), -EINVAL);
	assert_int_equal(units_parse_kib("-1G", &k), -EINVAL);
	assert_int_equal(units_parse_kib("nanG", &k), -EINVAL);
	assert_int_equal(units_parse_kib("1e9T", &k), -ERANGE);
}

static void test_format(void **state)
{
	char b[32];

	(void)state;
	units_kib(b, sizeof(b), 0);
	assert_string_equal(b, "0 B");
	units_kib(b, sizeof(b), 364);
	assert_string_equal(b, "364 KiB");
	units_kib(b, sizeof(b), 1536);
	assert_string_equal(b, "1.50 MiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
