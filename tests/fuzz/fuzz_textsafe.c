/* fuzz_textsafe: the one rule for untrusted text on a terminal, on arbitrary
 * bytes. Byte 0 picks the mode (bit 0: UTF-8). What textsafe_str gives is
 * valid UTF-8 (ASCII without UTF-8) holding no control character, no C1, no
 * bidi control, is unchanged by a second pass, and is what textsafe_wcs and
 * textsafe_fput give too. */
#include "fuzz.h"

#include <locale.h>

#include "textsafe.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* iswprint() and wcwidth() as in the dashboard, in a UTF-8 locale */
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int utf8 = data[0] & 1;
	size_t n = size - 1, cap = 3 * n + 1, k = 0;
	char *in = fuzz_copy(data + 1, n), *out = malloc(cap), *again = malloc(cap);
	wchar_t *wcs = malloc((n + 1) * sizeof(*wcs));
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f = open_memstream(&mem, &memlen);

	FUZZ_CHECK(out && again && wcs && f);
	/* at most one character a byte, each at most 3 bytes (U+FFFD) */
	size_t len = textsafe_str(in, n, out, cap, utf8);
	size_t nw = textsafe_wcs(in, n, wcs, n + 1, utf8);
	FUZZ_CHECK(len < cap && out[len] == 0 && nw <= n && wcs[nw] == 0);
	for (size_t i = 0; i < len; k++) {
		uint32_t cp;
		size_t step = textsafe_utf8((const unsigned char *)out + i, len - i, &cp);
		FUZZ_CHECK(step >= 1 && cp != TEXTSAFE_INVALID);
		FUZZ_CHECK(cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f));
		FUZZ_CHECK(!(cp >= 0x202a && cp <= 0x202e) && !(cp >= 0x2066 && cp <= 0x2069));
		if (!utf8)
			FUZZ_CHECK(cp < 0x7f);
		FUZZ_CHECK(textsafe_char(cp, utf8) == cp);
		FUZZ_CHECK(k < nw && (uint32_t)wcs[k] == cp);
		i += step;
	}
	FUZZ_CHECK(k == nw);
	FUZZ_CHECK(textsafe_str(out, len, again, cap, utf8) == len && !memcmp(out, again, len));
	FUZZ_CHECK(textsafe_fput(f, in, n, utf8) == len);
	FUZZ_CHECK(fclose(f) == 0 && memlen == len && !memcmp(mem, out, len));
	free(mem);
	free(wcs);
	free(again);
	free(out);
	free(in);
	return 0;
}
