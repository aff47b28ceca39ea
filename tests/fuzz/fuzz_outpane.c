/* fuzz_outpane: the output pane's terminal-sequence parser (outpane_feed) on
 * arbitrary bytes. Byte 0 picks the mode (bit 0: UTF-8) and ring size (bits
 * 1-3: 1..8 lines), byte 1 where to split the rest in two feeds; the same
 * bytes fed whole to a second pane must give the same lines. */
#include "fuzz.h"

#include <locale.h>

#include "outpane.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* wcwidth() as in the dashboard, which runs in the user's UTF-8 locale */
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		abort();
	return 0;
}

static void check_lines(const struct outpane *op, int utf8, size_t max, size_t newlines)
{
	size_t count = outpane_count(op);

	FUZZ_CHECK(count >= 1 && count <= max);
	/* Only a '\n' byte starts a line (one inside a sequence may not):
	 * nothing decoded from other bytes may act as one. */
	FUZZ_CHECK(outpane_total(op) >= 1 && outpane_total(op) <= 1 + newlines);
	FUZZ_CHECK(count == (outpane_total(op) < max ? outpane_total(op) : max));
	for (size_t i = 0; i < count; i++) {
		size_t len;
		const struct out_cell *c = outpane_line(op, i, &len);

		FUZZ_CHECK(len <= OUTPANE_LINE_MAX);
		for (size_t k = 0; k < len; k++) {
			uint32_t ch = c[k].ch;
			/* Nothing that could move the cursor or start a sequence. */
			FUZZ_CHECK(ch >= 0x20 && ch != 0x7f && !(ch >= 0x80 && ch < 0xa0));
			FUZZ_CHECK(ch <= 0x10ffff && !(ch >= 0xd800 && ch <= 0xdfff));
			if (!utf8)
				FUZZ_CHECK(ch < 0x80);
			FUZZ_CHECK(c[k].fg <= 8 && c[k].bold <= 1);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	int utf8 = data[0] & 1;
	size_t max = 1 + ((data[0] >> 1) & 7), n = size - 2, split = data[1] % (n + 1);
	char *buf = fuzz_copy(data + 2, n);
	struct outpane *a = outpane_new(max, utf8), *b = outpane_new(max, utf8);
	size_t newlines = 0;

	FUZZ_CHECK(a && b);
	for (size_t i = 0; i < n; i++)
		newlines += buf[i] == '\n';
	outpane_feed(a, buf, split);
	outpane_feed(a, buf + split, n - split);
	outpane_feed(b, buf, n);
	check_lines(a, utf8, max, newlines);
	FUZZ_CHECK(outpane_count(a) == outpane_count(b));
	for (size_t i = 0; i < outpane_count(a); i++) {
		size_t la, lb;
		const struct out_cell *ca = outpane_line(a, i, &la), *cb = outpane_line(b, i, &lb);

		FUZZ_CHECK(la == lb);
		for (size_t k = 0; k < la; k++)
			FUZZ_CHECK(ca[k].ch == cb[k].ch && ca[k].fg == cb[k].fg && ca[k].bold == cb[k].bold);
	}
	outpane_free(a);
	outpane_free(b);
	free(buf);
	return 0;
}
