/* jsonw.c: JSON string escaping and key/value helpers. */
#include "jsonw.h"

#include <inttypes.h>

size_t jsonw_utf8_len(const unsigned char *s, size_t left, uint32_t *cp_out)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80) {
		*cp_out = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	*cp_out = cp;
	return n;
}

void jsonw_str(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (size_t i = 0; i < len;) {
		/* a run of plain ASCII in one write: a char at a time takes the
		 * stream's lock each time */
		size_t run = 0;
		while (i + run < len && p[i + run] >= 0x20 && p[i + run] < 0x7f &&
		       p[i + run] != '"' && p[i + run] != '\\')
			run++;
		if (run) {
			fwrite(p + i, 1, run, f);
			i += run;
			continue;
		}
		unsigned char c = p[i];
		uint32_t cp;
		size_t n = jsonw_utf8_len(p + i, len - i, &cp);
		if (n == 0) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		if (n > 1) {
			fwrite(p + i, 1, n, f);
		} else if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c == '\r') {
			fputs("\\r", f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else {
			fputc(c, f);
		}
		i += n;
	}
	fputc('"', f);
}

void jsonw_argv(FILE *f, const char *blob, size_t len)
{
	size_t start = 0;

	fputc('[', f);
	for (size_t i = 0; i <= len && len; i++) {
		if (i == len || blob[i] == '\0') {
			if (start)
				fputc(',', f);
			jsonw_str(f, blob + start, i - start);
			start = i + 1;
		}
	}
	fputc(']', f);
}

void jsonw_key(FILE *f, const char *key, int *first)
{
	if (!*first)
		fputc(',', f);
	*first = 0;
	jsonw_str(f, key, __builtin_strlen(key));
	fputc(':', f);
}

void jsonw_u64(FILE *f, const char *key, uint64_t v, int *first)
{
	jsonw_key(f, key, first);
	fprintf(f, "%" PRIu64, v);
}

void jsonw_i64(FILE *f, const char *key, int64_t v, int *first)
{
	jsonw_key(f, key, first);
	fprintf(f, "%" PRId64, v);
}
