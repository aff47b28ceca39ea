/* Unit tests for textsafe, the one rule for untrusted text on a terminal:
 * every byte alone, the C1 controls in both spellings, each kind of invalid
 * UTF-8, characters of width 0 and -1, and plain UTF-8 passing unchanged,
 * through each adapter (wide cells, string, FILE). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textsafe.h"

#define FFFD "\xef\xbf\xbd"

/* The characters shown for len bytes of b (at most 64), terminated by 0. */
static const uint32_t *shown(const char *b, size_t len, int utf8)
{
	static uint32_t out[65];
	size_t k = 0;

	for (size_t i = 0; i < len && k < 64;) {
		size_t n = textsafe_next(b + i, len - i, utf8, &out[k++]);
		assert_true(n >= 1 && n <= len - i);
		i += n;
	}
	out[k] = 0;
	return out;
}

/* Asserts that b (len bytes) shows as the n characters of want. */
static void assert_shown(const char *b, size_t len, int utf8, const uint32_t *want, size_t n)
{
	const uint32_t *got = shown(b, len, utf8);

	for (size_t i = 0; i < n; i++) {
		if (got[i] != want[i])
			fail_msg("character %zu: got U+%04X, want U+%04X", i, got[i], want[i]);
	}
	assert_int_equal(got[n], 0);
}

/* The string adapter's output for a C string. */
static const char *str(const char *s, int utf8)
{
	static char out[256];

	textsafe_str(s, strlen(s), out, sizeof(out), utf8);
	return out;
}

/* What a byte alone must show as, written from the rule, not the code. */
static uint32_t byte_want(unsigned c, int utf8)
{
	if (c == 0 || c == '\t' || c == '\n' || c == '\r')
		return ' ';
	if (c >= 0x20 && c < 0x7f)
		return c;
	if (!utf8)
		return '?';
	return TEXTSAFE_REPLACEMENT; /* C0, DEL, C1 as a raw byte, a lone lead or continuation, F5..FF */
}

/* Each of the 256 bytes alone, as the last byte of a buffer and before an
 * 'x' (a cut lead byte must not swallow it). */
static void test_every_byte(void **state)
{
	(void)state;
	for (int utf8 = 0; utf8 <= 1; utf8++) {
		for (unsigned c = 0; c < 256; c++) {
			char b[2] = {(char)c, 'x'};
			uint32_t want[2] = {byte_want(c, utf8), 'x'};
			assert_shown(b, 1, utf8, want, 1);
			assert_shown(b, 2, utf8, want, 2);
		}
	}
}

/* The C1 controls, U+0080..U+009F, are two bytes in UTF-8: each is one
 * U+FFFD (two bytes taken); the raw bytes 0x80..0x9f are one each. */
static void test_c1(void **state)
{
	(void)state;
	for (unsigned c = 0x80; c <= 0x9f; c++) {
		char b[3] = {'\xc2', (char)c, 'x'};
		uint32_t want[2] = {TEXTSAFE_REPLACEMENT, 'x'}, ch;
		assert_int_equal(textsafe_next(b, 3, 1, &ch), 2);
		assert_int_equal(ch, TEXTSAFE_REPLACEMENT);
		assert_shown(b, 3, 1, want, 2);
		/* without UTF-8: two bytes, two '?' */
		uint32_t want8[3] = {'?', '?', 'x'};
		assert_shown(b, 3, 0, want8, 3);
		assert_int_equal(textsafe_char(c, 1), TEXTSAFE_REPLACEMENT);
	}
	/* the CSI of the issue: as UTF-8, raw, and next to ESC */
	assert_string_equal(str("a\xc2\x9b" "b\x9b" "c\033[31md", 1), "a" FFFD "b" FFFD "c" FFFD "[31md");
	assert_string_equal(str("a\xc2\x9b" "b\x9b" "c\033[31md", 0), "a??b?c?[31md");
	/* U+00A0, the first character after them, is printable */
	assert_string_equal(str("\xc2\xa0", 1), "\xc2\xa0");
}

/* Overlong forms, surrogates and code points past U+10FFFF: each maximal
 * ill-formed subpart is one U+FFFD (Unicode's "maximal subparts"), and an
 * overlong control never shows as the control. */
static void test_invalid_utf8(void **state)
{
	(void)state;
	const uint32_t R = TEXTSAFE_REPLACEMENT;
	uint32_t r2[] = {R, R, 'x'}, r3[] = {R, R, R, 'x'}, r4[] = {R, R, R, R, 'x'};

	assert_shown("\xc0\xafx", 3, 1, r2, 3);         /* overlong '/' */
	assert_shown("\xc1\x9bx", 3, 1, r2, 3);         /* overlong ESC */
	assert_shown("\xe0\x80\xafx", 4, 1, r3, 4);     /* overlong '/', three bytes */
	assert_shown("\xe0\x80\x9bx", 4, 1, r3, 4);     /* overlong ESC */
	assert_shown("\xed\xa0\x80x", 4, 1, r3, 4);     /* surrogate U+D800 */
	assert_shown("\xed\xbf\xbfx", 4, 1, r3, 4);     /* surrogate U+DFFF */
	assert_shown("\xf0\x80\x80\xafx", 5, 1, r4, 5); /* overlong, four bytes */
	assert_shown("\xf4\x90\x80\x80x", 5, 1, r4, 5); /* U+110000 */
	assert_shown("\xf5\x80\x80\x80x", 5, 1, r4, 5); /* F5: never a lead */
	assert_shown("\xff\xfex", 3, 1, r2, 3);
	/* a valid prefix broken by a byte that is not a continuation: one
	 * U+FFFD for the prefix, and the byte is read anew */
	uint32_t cut[] = {R, 'x'}, cut_esc[] = {R, R, '['};
	assert_shown("\xe4\xb8x", 3, 1, cut, 2);
	assert_shown("\xf0\x9f\x98x", 4, 1, cut, 2);
	assert_shown("\xe4\x1b[", 3, 1, cut_esc, 3);
	/* the edges still decode */
	assert_string_equal(str("\xe0\xa0\x80", 1), "\xe0\xa0\x80");         /* U+0800 */
	assert_string_equal(str("\xed\x9e\xa3", 1), "\xed\x9e\xa3");         /* U+D7A3, below the surrogates */
	assert_string_equal(str("\xf0\x90\x80\x80", 1), "\xf0\x90\x80\x80"); /* U+10000 */
	assert_string_equal(str("\xf4\x8f\xbf\xbd", 1), "\xf4\x8f\xbf\xbd"); /* U+10FFFD */
	/* code points the decoder cannot give, asked of the rule directly */
	assert_int_equal(textsafe_char(0xd800, 1), R);
	assert_int_equal(textsafe_char(0x110000, 1), R);
	assert_int_equal(textsafe_char(TEXTSAFE_INVALID, 1), R);
	assert_int_equal(textsafe_char(TEXTSAFE_INVALID, 0), '?');
}

/* Sequences cut by the end of the text are one U+FFFD; to a streaming
 * reader textsafe_utf8 says "more may come" (0) instead. */
static void test_truncated(void **state)
{
	(void)state;
	const uint32_t R = TEXTSAFE_REPLACEMENT;
	uint32_t want[] = {'a', R}, cp;

	assert_shown("a\xc3", 2, 1, want, 2);
	assert_shown("a\xe4\xb8", 3, 1, want, 2);
	assert_shown("a\xf0\x9f\x98", 4, 1, want, 2);
	assert_string_equal(str("a\xf0\x9f\x98", 1), "a" FFFD);
	assert_int_equal(textsafe_utf8((const unsigned char *)"\xe4\xb8", 2, &cp), 0);
	assert_int_equal(textsafe_utf8((const unsigned char *)"\xf0\x9f\x98", 3, &cp), 0);
	assert_int_equal(textsafe_utf8((const unsigned char *)"\xe4\xb8\xad", 3, &cp), 3);
	assert_int_equal(cp, 0x4e2d);
	/* a prefix that can be completed by nothing is not "more may come" */
	assert_int_equal(textsafe_utf8((const unsigned char *)"\xe0\x80", 2, &cp), 1);
	assert_int_equal(cp, TEXTSAFE_INVALID);
	assert_int_equal(textsafe_utf8((const unsigned char *)"", 0, &cp), 0);
	assert_int_equal(textsafe_next("", 0, 1, &cp), 0);
}

/* Width 0 (combining marks, zero-width space) is printable and passes; width
 * -1 (unassigned, noncharacters) and the bidirectional controls (printable
 * to the C library, but they reorder the line) become U+FFFD. */
static void test_widths(void **state)
{
	(void)state;
	const uint32_t R = TEXTSAFE_REPLACEMENT;

	assert_int_equal(textsafe_char(0x0301, 1), 0x0301); /* combining acute */
	assert_int_equal(textsafe_char(0x200b, 1), 0x200b); /* zero-width space */
	assert_string_equal(str("e\xcc\x81", 1), "e\xcc\x81");
	assert_int_equal(textsafe_char(0x0378, 1), R); /* unassigned */
	assert_int_equal(textsafe_char(0xffff, 1), R); /* noncharacter */
	assert_string_equal(str("\xef\xbf\xbf", 1), FFFD);
	static const uint32_t bidi[] = {0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c,
					0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069};
	for (size_t i = 0; i < sizeof(bidi) / sizeof(bidi[0]); i++)
		assert_int_equal(textsafe_char(bidi[i], 1), R);
	assert_string_equal(str("abc\xe2\x80\xae" "fed", 1), "abc" FFFD "fed"); /* RLO */
	/* without UTF-8 nothing past ASCII passes */
	assert_int_equal(textsafe_char(0x0301, 0), '?');
	assert_int_equal(textsafe_char(0xe9, 0), '?');
}

/* Plain UTF-8 (accents, CJK, emoji) and ASCII pass unchanged; without UTF-8
 * each of their bytes is '?'. */
static void test_plain_passes(void **state)
{
	(void)state;
	const char *s = "make -C caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80 ~!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}";
	assert_string_equal(str(s, 1), s);
	assert_string_equal(str("caf\xc3\xa9 \xe4\xb8\xad", 0), "caf?? ???");
	uint32_t want[] = {0xe9, ' ', 0x4e2d, ' ', 0x1f600};
	assert_shown("\xc3\xa9\0\xe4\xb8\xad\t\xf0\x9f\x98\x80", 11, 1, want, 5);
}

/* NUL (an argument separator), tab, newline, CR: spaces; the other C0
 * controls and DEL: U+FFFD (not their pictures, whose UTF-8 holds C1
 * bytes), or '?'. */
static void test_controls(void **state)
{
	(void)state;
	assert_string_equal(str("a\tb\nc\rd", 1), "a b c d");
	assert_string_equal(str("\001\033\037\177", 1), FFFD FFFD FFFD FFFD);
	assert_string_equal(str("\001\033\037\177", 0), "????");
	char argv[] = "sh\0-c\0echo hi";
	char out[32];
	assert_int_equal(textsafe_str(argv, sizeof(argv) - 1, out, sizeof(out), 1), 13);
	assert_string_equal(out, "sh -c echo hi");
}

/* The wide-character adapter: the same characters, cut at cap - 1, always
 * terminated. */
static void test_wcs(void **state)
{
	(void)state;
	const char *s = "a\xc2\x9b\033\xe4\xb8\xad\xe4";
	wchar_t out[8];

	assert_int_equal(textsafe_wcs(s, strlen(s), out, 8, 1), 5);
	assert_true(out[0] == 'a' && out[1] == TEXTSAFE_REPLACEMENT && out[2] == TEXTSAFE_REPLACEMENT && out[3] == 0x4e2d &&
		    out[4] == TEXTSAFE_REPLACEMENT && out[5] == 0);
	assert_int_equal(textsafe_wcs(s, strlen(s), out, 3, 1), 2);
	assert_true(out[0] == 'a' && out[1] == TEXTSAFE_REPLACEMENT && out[2] == 0);
	assert_int_equal(textsafe_wcs(s, strlen(s), out, 8, 0), 7);
	assert_true(out[0] == 'a' && out[1] == '?' && out[2] == '?' && out[3] == '?' && out[7] == 0);
	assert_int_equal(textsafe_wcs(s, 0, out, 1, 1), 0);
	assert_true(out[0] == 0);
}

/* The string adapter never cuts a character: what does not fit is left out
 * whole. */
static void test_str_cap(void **state)
{
	(void)state;
	char out[8];

	memset(out, 'Z', sizeof(out));
	assert_int_equal(textsafe_str("ab\xe4\xb8\xad", 5, out, 5, 1), 2);
	assert_string_equal(out, "ab");
	assert_int_equal(textsafe_str("ab\xe4\xb8\xad", 5, out, 6, 1), 5);
	assert_string_equal(out, "ab\xe4\xb8\xad");
	assert_int_equal(textsafe_str("a\033", 2, out, 4, 1), 1); /* U+FFFD needs 3 */
	assert_string_equal(out, "a");
	assert_int_equal(textsafe_str("abc", 3, out, 1, 1), 0);
	assert_string_equal(out, "");
}

/* The FILE adapter writes what the string adapter gives, for every byte
 * pair (so every cut, invalid and valid two-byte sequence). */
static void test_fput(void **state)
{
	(void)state;
	for (int utf8 = 0; utf8 <= 1; utf8++) {
		char *buf = NULL;
		size_t len = 0, total = 0;
		FILE *f = open_memstream(&buf, &len);
		char *want = malloc(65536 * 16);
		size_t wlen = 0;

		assert_non_null(f);
		assert_non_null(want);
		for (unsigned v = 0; v < 65536; v++) {
			char b[3] = {(char)(v >> 8), (char)v, 'x'};
			total += textsafe_fput(f, b, 3, utf8);
			wlen += textsafe_str(b, 3, want + wlen, 16, utf8);
		}
		assert_int_equal(fclose(f), 0);
		assert_int_equal(total, len);
		assert_int_equal(len, wlen);
		assert_memory_equal(buf, want, len);
		/* nothing a terminal acts on: no C0 but space, no DEL, no C1 */
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)buf[i];
			assert_true(c >= 0x20 && c != 0x7f);
			if (!utf8)
				assert_true(c < 0x7f);
		}
		for (size_t i = 0; utf8 && i + 1 < len; i++)
			assert_false((unsigned char)buf[i] == 0xc2 && (unsigned char)buf[i + 1] < 0xa0);
		free(buf);
		free(want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_byte),   cmocka_unit_test(test_c1),
		cmocka_unit_test(test_invalid_utf8), cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_widths),       cmocka_unit_test(test_plain_passes),
		cmocka_unit_test(test_controls),     cmocka_unit_test(test_wcs),
		cmocka_unit_test(test_str_cap),      cmocka_unit_test(test_fput),
	};

	/* iswprint() and wcwidth() as in the dashboard, in a UTF-8 locale */
	if (!setlocale(LC_ALL, "C.UTF-8"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
