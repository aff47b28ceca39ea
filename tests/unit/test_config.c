/* Unit tests for config: the parser on fixtures (tests/fixtures/config):
 * comments, spaces and blank lines; every key; bad values, unknown keys and
 * lines that are not key = value each one warning naming the file and line,
 * and ignored (the good lines around them still taken); a missing file is
 * no warning, a directory one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures/config"
#endif

static char warned[8][256];
static int nwarned;

static void warn(void *arg, const char *line)
{
	(void)arg;
	if (nwarned < 8)
		snprintf(warned[nwarned], sizeof(warned[0]), "%s", line);
	nwarned++;
}

static void test_good(void **state)
{
	struct config c;

	(void)state;
	nwarned = 0;
	assert_int_equal(config_load(FIXTURES "/good", &c, warn, NULL), 0);
	assert_int_equal(nwarned, 0);
	assert_int_equal(c.interval_ms, 250);
	assert_int_equal(c.glyphs, 2);
	assert_int_equal(c.color, 0);
	assert_int_equal(c.rss_line, 0);
	assert_int_equal(c.output_pane, 0);
	assert_int_equal(c.mouse, -1);
	assert_true(c.fps > 4.49 && c.fps < 4.51);
	/* not in the file: unset */
	assert_true(c.budget < 0);
	assert_int_equal(c.top, -1);
}

static void test_bad(void **state)
{
	struct config c;

	(void)state;
	nwarned = 0;
	assert_int_equal(config_load(FIXTURES "/bad", &c, warn, NULL), 5);
	assert_int_equal(nwarned, 5);
	assert_string_equal(warned[0], FIXTURES "/bad:1: interval = '5': expected a whole number from 10 to 60000 (ignored)");
	assert_string_equal(warned[1], FIXTURES "/bad:2: glyphs = 'fancy': expected braille or block or ascii (ignored)");
	assert_string_equal(warned[2], FIXTURES "/bad:3: not key = value (ignored)");
	assert_string_equal(warned[3], FIXTURES "/bad:4: unknown key 'foo' (ignored)");
	assert_string_equal(warned[4], FIXTURES "/bad:5: top = '12abc': expected a whole number from 0 to 1000 (ignored)");
	/* the good lines around them stand, the last of a key given twice */
	assert_true(c.budget > 0.49 && c.budget < 0.51);
	assert_int_equal(c.color, 1);
	assert_int_equal(c.interval_ms, 300);
	assert_int_equal(c.glyphs, -1);
	assert_int_equal(c.top, -1);
}

static void test_text(void **state)
{
	struct config c;
	static const char nul[] = "fps = 2\nrss_line = o\0n\n";

	(void)state;
	nwarned = 0;
	/* a NUL byte in a line, a last line with no newline */
	assert_int_equal(config_parse(nul, sizeof(nul) - 1, "x", &c, warn, NULL), 1);
	assert_string_equal(warned[0], "x:2: a NUL byte (ignored)");
	assert_int_equal(c.rss_line, -1);
	nwarned = 0;
	assert_int_equal(config_parse("top=3", 5, "x", &c, warn, NULL), 0);
	assert_int_equal(c.top, 3);
	/* a control character in a value is not echoed raw */
	nwarned = 0;
	assert_int_equal(config_parse("color = \x1b[31m\n", 14, "x", &c, warn, NULL), 1);
	assert_null(strchr(warned[0], '\x1b'));
}

static void test_files(void **state)
{
	struct config c;

	(void)state;
	nwarned = 0;
	assert_int_equal(config_load(FIXTURES "/no-such-file", &c, warn, NULL), 0);
	assert_int_equal(nwarned, 0);
	assert_int_equal(config_load(FIXTURES, &c, warn, NULL), 1);
	assert_non_null(strstr(warned[0], "not a regular file"));
	/* a file others may write is not the user's to trust: ignored */
	char f[] = "/tmp/st-config-file-XXXXXX";
	int fd = mkstemp(f);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "top = 7\n", 8), 8);
	fchmod(fd, 0666);
	close(fd);
	nwarned = 0;
	assert_int_equal(config_load(f, &c, warn, NULL), 1);
	assert_non_null(strstr(warned[0], "others may write it (ignored)"));
	assert_int_equal(c.top, -1);
	chmod(f, 0644);
	nwarned = 0;
	assert_int_equal(config_load(f, &c, warn, NULL), 0);
	assert_int_equal(c.top, 7);
	unlink(f);
	/* the path: XDG_CONFIG_HOME, else HOME's .config (each the user's own) */
	char p[256], d[] = "/tmp/st-config-XXXXXX", want[300];
	assert_non_null(mkdtemp(d));
	setenv("XDG_CONFIG_HOME", d, 1);
	assert_int_equal(config_path(p, sizeof(p)), 0);
	snprintf(want, sizeof(want), "%s/spacetime/config", d);
	assert_string_equal(p, want);
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", d, 1);
	assert_int_equal(config_path(p, sizeof(p)), 0);
	snprintf(want, sizeof(want), "%s/.config/spacetime/config", d);
	assert_string_equal(p, want);
	rmdir(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
