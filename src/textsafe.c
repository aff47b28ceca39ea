/* textsafe.c: the one rule for untrusted text on a terminal (textsafe.h). */
#include "textsafe.h"

#include <wctype.h>

size_t textsafe_utf8(const unsigned char *b, size_t len, uint32_t *cp)
{
	unsigned char c, lo = 0x80, hi = 0xbf; /* the second byte's range */
	size_t need;
	uint32_t v;

	*cp = TEXTSAFE_INVALID;
	if (!len)
		return 0;
	c = b[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2, v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3, v = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0; /* below: overlong */
		else if (c == 0xed)
			hi = 0x9f; /* above: surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4, v = c & 0x07;
		if (c == 0xf0)
			lo = 0x90; /* below: overlong */
		else if (c == 0xf4)
			hi = 0x8f; /* above: past U+10FFFF */
	} else {
		return 1; /* a continuation byte, C0, C1 (overlong), F5..FF */
	}
	for (size_t i = 1; i < need; i++) {
		if (i == len)
			return 0;
		if (b[i] < lo || b[i] > hi)
			return i; /* the well-formed prefix is one replacement */
		v = v << 6 | (b[i] & 0x3f);
		lo = 0x80, hi = 0xbf;
	}
	*cp = v;
	return need;
}

/* The bidirectional controls: embeddings, overrides, isolates and marks,
 * which reorder the text around them ("Trojan Source"). */
static int textsafe_bidi(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

uint32_t textsafe_char(uint32_t cp, int utf8)
{
	if (cp == 0 || cp == '\t' || cp == '\n' || cp == '\r')
		return ' ';
	if (cp >= 0x20 && cp < 0x7f)
		return cp;
	if (!utf8)
		return '?';
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    textsafe_bidi(cp) || !iswprint((wint_t)cp) || wcwidth((wchar_t)cp) < 0)
		return TEXTSAFE_REPLACEMENT;
	return cp;
}

size_t textsafe_next(const char *b, size_t len, int utf8, uint32_t *out)
{
	const unsigned char *p = (const unsigned char *)b;
	uint32_t cp;
	size_t n;

	if (!len) {
		*out = TEXTSAFE_INVALID;
		return 0;
	}
	if (!utf8) {
		*out = textsafe_char(p[0] < 0x80 ? p[0] : TEXTSAFE_INVALID, 0);
		return 1;
	}
	n = textsafe_utf8(p, len, &cp);
	if (!n)
		n = len; /* cut by the end of the text */
	*out = textsafe_char(cp, 1);
	return n;
}

/* UTF-8 of a character the rule gives (never invalid); returns its length. */
static size_t textsafe_enc(uint32_t cp, char *s)
{
	if (cp < 0x80) {
		s[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		s[0] = (char)(0xc0 | cp >> 6);
		s[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		s[0] = (char)(0xe0 | cp >> 12);
		s[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		s[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	s[0] = (char)(0xf0 | cp >> 18);
	s[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	s[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	s[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t textsafe_wcs(const char *b, size_t len, wchar_t *out, size_t cap, int utf8)
{
	size_t k = 0;
	uint32_t ch;

	if (!cap)
		return 0;
	for (size_t i = 0; i < len && k + 1 < cap;) {
		i += textsafe_next(b + i, len - i, utf8, &ch);
		out[k++] = (wchar_t)ch;
	}
	out[k] = 0;
	return k;
}

size_t textsafe_str(const char *b, size_t len, char *out, size_t cap, int utf8)
{
	size_t k = 0;
	uint32_t ch;
	char s[4];

	if (!cap)
		return 0;
	for (size_t i = 0; i < len;) {
		i += textsafe_next(b + i, len - i, utf8, &ch);
		size_t n = textsafe_enc(ch, s);
		if (k + n >= cap)
			break;
		for (size_t j = 0; j < n; j++)
			out[k++] = s[j];
	}
	out[k] = 0;
	return k;
}

size_t textsafe_fput(FILE *f, const char *b, size_t len, int utf8)
{
	size_t k = 0;
	uint32_t ch;
	char s[4];

	for (size_t i = 0; i < len;) {
		/* a run of printable ASCII in one write */
		size_t run = 0;
		while (i + run < len && b[i + run] >= 0x20 && b[i + run] < 0x7f)
			run++;
		if (run) {
			k += fwrite(b + i, 1, run, f);
			i += run;
			continue;
		}
		i += textsafe_next(b + i, len - i, utf8, &ch);
		k += fwrite(s, 1, textsafe_enc(ch, s), f);
	}
	return k;
}
