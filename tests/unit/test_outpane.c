/* Unit tests for the output pane's parser: what the command prints becomes
 * plain cells; escape and control sequences never pass through, invalid UTF-8
 * becomes U+FFFD, \r and erase-line overwrite, SGR colours are kept, the ring
 * keeps the newest lines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <string.h>

#include "fixture.h"

#include "../../ui/outpane.c"
#include "../../ui/term.c"

/* Line i as a UTF-8-free ASCII string ('~' for anything else). */
static const char *line_text(const struct outpane *op, size_t i)
{
	static char buf[OUTPANE_LINE_MAX + 1];
	size_t len;
	const struct out_cell *c = outpane_line(op, i, &len);

	for (size_t k = 0; k < len; k++)
		buf[k] = c[k].ch < 0x80 ? (char)c[k].ch : '~';
	buf[len] = 0;
	return buf;
}

static struct outpane *feed(const char *s)
{
	struct outpane *op = outpane_new(100, 1);

	assert_non_null(op);
	outpane_feed(op, s, strlen(s));
	return op;
}

static void test_lines_and_cr(void **state)
{
	(void)state;
	struct outpane *op = feed("one\ntwo\r\nabc\rX\n50%\r\033[K100%\n");

	assert_int_equal(outpane_count(op), 5); /* 4 lines and the empty current one */
	assert_string_equal(line_text(op, 0), "one");
	assert_string_equal(line_text(op, 1), "two");
	assert_string_equal(line_text(op, 2), "Xbc");
	assert_string_equal(line_text(op, 3), "100%");
	assert_string_equal(line_text(op, 4), "");
	outpane_free(op);
}

/* Cursor movement, screen clears, modes, titles: swallowed, never shown. */
static void test_escapes_swallowed(void **state)
{
	(void)state;
	struct outpane *op = feed("a\033[2J\033[H\033[5;5Hb\033[?1049l\033[?25h\033]0;title\007c"
				  "\033]8;;http://x\033\\d\033(Be\033P1$r\033\\f\n");

	assert_string_equal(line_text(op, 0), "abcdef");
	outpane_free(op);
}

/* Control characters and invalid UTF-8 become U+FFFD; valid UTF-8 stays. */
static void test_untrusted_bytes(void **state)
{
	(void)state;
	struct outpane *op = feed("x\001y\377z\xc3\xa9\xe2\x82\n");
	size_t len;
	const struct out_cell *c = outpane_line(op, 0, &len);

	assert_int_equal(len, 7);
	assert_int_equal(c[0].ch, 'x');
	assert_int_equal(c[1].ch, TERM_REPLACEMENT);
	assert_int_equal(c[2].ch, 'y');
	assert_int_equal(c[3].ch, TERM_REPLACEMENT);
	assert_int_equal(c[4].ch, 'z');
	assert_int_equal(c[5].ch, 0xe9);
	assert_int_equal(c[6].ch, TERM_REPLACEMENT); /* truncated sequence */
	outpane_free(op);
	/* not UTF-8: every high byte is '?' */
	op = outpane_new(10, 0);
	outpane_feed(op, "\xc3\xa9", 2);
	c = outpane_line(op, 0, &len);
	assert_int_equal(len, 2);
	assert_int_equal(c[0].ch, '?');
	outpane_free(op);
}

/* C1 controls, as UTF-8 (C2 9B, CSI) and as raw bytes, are U+FFFD and start
 * no sequence; a sequence cut by ESC is one U+FFFD and the ESC still acts;
 * a NUL is a blank, as textsafe shows it everywhere. */
static void test_c1_and_cut(void **state)
{
	(void)state;
	struct outpane *op = outpane_new(10, 1);
	const char s[] = "a\xc2\x9b" "1mb\x9b" "1mc\xe4\xb8\033[31md\0e\n";
	size_t len;

	outpane_feed(op, s, sizeof(s) - 1);
	const struct out_cell *c = outpane_line(op, 0, &len);
	assert_string_equal(line_text(op, 0), "a~1mb~1mc~d e");
	assert_int_equal(c[1].ch, TERM_REPLACEMENT);
	assert_int_equal(c[5].ch, TERM_REPLACEMENT);
	assert_int_equal(c[9].ch, TERM_REPLACEMENT);
	assert_int_equal(c[2].fg, 0); /* no SGR from the C1 CSI */
	assert_int_equal(c[10].fg, 2); /* red from the real one */
	outpane_free(op);
	/* the same bytes one at a time */
	op = outpane_new(10, 1);
	for (size_t i = 0; i < sizeof(s) - 1; i++)
		outpane_feed(op, s + i, 1);
	assert_string_equal(line_text(op, 0), "a~1mb~1mc~d e");
	outpane_free(op);
}

/* Overlong UTF-8 (a character in more bytes than it needs) is invalid: each
 * of its maximal ill-formed subparts becomes U+FFFD (textsafe's rule: here
 * every byte, as no prefix of an overlong form is well-formed), and it never
 * acts as the control character it spells. Found by tests/fuzz/fuzz_outpane:
 * E0 80 8A, an overlong '\n', started a line. */
static void test_overlong_utf8(void **state)
{
	(void)state;
	size_t n, len;
	char *b = fixture_load("bad_outpane_overlong.outpane", &n);
	struct outpane *op = outpane_new(10, 1);
	const struct out_cell *c;

	outpane_feed(op, b, n);
	assert_int_equal(outpane_total(op), 1); /* no new line */
	c = outpane_line(op, 0, &len);
	assert_int_equal(len, 3);
	for (size_t i = 0; i < len; i++)
		assert_int_equal(c[i].ch, TERM_REPLACEMENT);
	outpane_free(op);
	free(b);
	/* an overlong ESC (E0 80 9B) starts no sequence; an overlong 4-byte
	 * 'A' (F0 80 81 81) is no 'A'; the shortest forms still decode */
	op = feed("a\xe0\x80\x9b[31mX\xf0\x80\x81\x81\xe0\xa0\x80\xf0\x90\x80\x80");
	c = outpane_line(op, 0, &len);
	assert_int_equal(len, 15);
	assert_string_equal(line_text(op, 0), "a~~~[31mX~~~~~~");
	for (size_t i = 1; i <= 3; i++)
		assert_int_equal(c[i].ch, TERM_REPLACEMENT);
	assert_int_equal(c[8].fg, 0); /* not red */
	for (size_t i = 9; i <= 12; i++)
		assert_int_equal(c[i].ch, TERM_REPLACEMENT);
	assert_int_equal(c[13].ch, 0x800);
	assert_int_equal(c[14].ch, 0x10000);
	outpane_free(op);
}

/* A sequence split across reads is still recognised. */
static void test_split_reads(void **state)
{
	(void)state;
	struct outpane *op = outpane_new(10, 1);
	const char *s = "\033[31mred\033[0m \xe2\x9c\x93\n";

	for (size_t i = 0; s[i]; i++)
		outpane_feed(op, s + i, 1);
	size_t len;
	const struct out_cell *c = outpane_line(op, 0, &len);
	assert_int_equal(len, 5);
	assert_int_equal(c[0].ch, 'r');
	assert_int_equal(c[0].fg, 2); /* colour 1 (red) + 1 */
	assert_int_equal(c[3].fg, 0);
	assert_int_equal(c[4].ch, 0x2713);
	outpane_free(op);
}

static void test_sgr(void **state)
{
	(void)state;
	struct outpane *op = feed("\033[1;32mA\033[22mB\033[39mC\033[38;5;4mD\033[38;2;1;2;3mE\033[91mF\n");
	size_t len;
	const struct out_cell *c = outpane_line(op, 0, &len);

	assert_int_equal(len, 6);
	assert_true(c[0].bold && c[0].fg == 3);
	assert_true(!c[1].bold && c[1].fg == 3);
	assert_int_equal(c[2].fg, 0);
	assert_int_equal(c[3].fg, 5);
	assert_int_equal(c[4].fg, 5); /* true colour: kept as it was */
	assert_true(c[5].bold && c[5].fg == 2);
	outpane_free(op);
}

/* Tabs, backspace, cursor forward, long lines capped, the ring bounded. */
static void test_tabs_ring_and_caps(void **state)
{
	(void)state;
	struct outpane *op = feed("a\tb\n12\b3\nx\033[3Cy\n");

	assert_string_equal(line_text(op, 0), "a       b");
	assert_string_equal(line_text(op, 1), "13");
	assert_string_equal(line_text(op, 2), "x   y");
	outpane_free(op);

	op = outpane_new(3, 1);
	for (int i = 0; i < 10; i++) {
		char b[16];
		int n = snprintf(b, sizeof(b), "l%d\n", i);
		outpane_feed(op, b, (size_t)n);
	}
	assert_int_equal(outpane_count(op), 3);
	assert_string_equal(line_text(op, 0), "l8");
	assert_string_equal(line_text(op, 1), "l9");
	assert_int_equal(outpane_total(op), 11);
	static char big[3 * OUTPANE_LINE_MAX];
	memset(big, 'z', sizeof(big));
	outpane_feed(op, big, sizeof(big));
	size_t len;
	outpane_line(op, 2, &len);
	assert_int_equal(len, OUTPANE_LINE_MAX);
	outpane_free(op);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_and_cr),
		cmocka_unit_test(test_escapes_swallowed),
		cmocka_unit_test(test_untrusted_bytes),
		cmocka_unit_test(test_c1_and_cut),
		cmocka_unit_test(test_overlong_utf8),
		cmocka_unit_test(test_split_reads),
		cmocka_unit_test(test_sgr),
		cmocka_unit_test(test_tabs_ring_and_caps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
