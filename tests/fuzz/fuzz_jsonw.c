/* fuzz_jsonw: the exports' JSON strings of untrusted bytes (a process's comm
 * and its /proc/PID/cmdline, NUL-separated) through jsonw_str() and
 * jsonw_argv(). The output is parsed back by a strict JSON string reader
 * written here: it must be valid JSON and UTF-8, and decode to the input
 * with each byte that is not valid UTF-8 replaced by U+FFFD. */
#include "fuzz.h"

#include "jsonw.h"

/* Length of the strictly valid UTF-8 sequence at s (Unicode table 3-7), or
 * 0. Written apart from jsonw_utf8_len, which it checks. */
static size_t strict_utf8(const unsigned char *s, size_t left)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n > left || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* What the string should decode to: in, with U+FFFD for each invalid byte. */
static size_t expected(const unsigned char *in, size_t len, unsigned char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		size_t n = strict_utf8(in + i, len - i);
		if (n == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else {
			memcpy(out + o, in + i, n);
			o += n;
			i += n;
		}
	}
	return o;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads one JSON string literal at *p (strictly: no raw control byte, only
 * JSON's escapes, valid UTF-8, no lone surrogate escape) and decodes it into
 * out as UTF-8. Returns the decoded length; aborts on invalid JSON. */
static size_t read_string(const unsigned char **p, const unsigned char *end, unsigned char *out)
{
	const unsigned char *s = *p;
	size_t o = 0;

	FUZZ_CHECK(s < end && *s == '"');
	s++;
	for (;;) {
		FUZZ_CHECK(s < end);
		unsigned char c = *s;
		if (c == '"')
			break;
		FUZZ_CHECK(c >= 0x20);
		if (c != '\\') {
			size_t n = strict_utf8(s, (size_t)(end - s));
			FUZZ_CHECK(n > 0);
			memcpy(out + o, s, n);
			o += n;
			s += n;
			continue;
		}
		FUZZ_CHECK(s + 1 < end);
		c = s[1];
		s += 2;
		switch (c) {
		case '"': case '\\': case '/': out[o++] = c; break;
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'u': {
			unsigned cp = 0;
			FUZZ_CHECK(end - s >= 4);
			for (int i = 0; i < 4; i++) {
				int h = hexval(s[i]);
				FUZZ_CHECK(h >= 0);
				cp = cp << 4 | (unsigned)h;
			}
			s += 4;
			/* jsonw escapes only control bytes and U+FFFD */
			FUZZ_CHECK(cp < 0xd800 || cp > 0xdfff);
			if (cp < 0x80) {
				out[o++] = (unsigned char)cp;
			} else if (cp < 0x800) {
				out[o++] = (unsigned char)(0xc0 | cp >> 6);
				out[o++] = (unsigned char)(0x80 | (cp & 0x3f));
			} else {
				out[o++] = (unsigned char)(0xe0 | cp >> 12);
				out[o++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
				out[o++] = (unsigned char)(0x80 | (cp & 0x3f));
			}
			break;
		}
		default:
			FUZZ_CHECK(!"a JSON escape");
		}
	}
	*p = s + 1;
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size), *text = NULL;
	size_t tlen = 0;
	/* decoding never grows a byte past 3 */
	unsigned char *want = malloc(3 * size + 1), *got = malloc(3 * size + 1);
	const unsigned char *p, *end;
	FILE *f;

	FUZZ_CHECK(want && got);

	/* One string: comm, or any other untrusted bytes. */
	f = open_memstream(&text, &tlen);
	FUZZ_CHECK(f != NULL);
	jsonw_str(f, buf, size);
	FUZZ_CHECK(fclose(f) == 0);
	p = (const unsigned char *)text;
	end = p + tlen;
	size_t g = read_string(&p, end, got), w = expected(data, size, want);
	FUZZ_CHECK(p == end);
	FUZZ_CHECK(g == w && memcmp(got, want, g) == 0);
	free(text);

	/* The command line: one string per NUL-separated argument. */
	text = NULL;
	f = open_memstream(&text, &tlen);
	FUZZ_CHECK(f != NULL);
	jsonw_argv(f, buf, size);
	FUZZ_CHECK(fclose(f) == 0);
	p = (const unsigned char *)text;
	end = p + tlen;
	FUZZ_CHECK(p < end && *p == '[');
	p++;
	size_t start = 0, args = 0;
	for (size_t i = 0; size && i <= size; i++) {
		if (i < size && data[i] != '\0')
			continue;
		if (args++)
			FUZZ_CHECK(p < end && *p++ == ',');
		g = read_string(&p, end, got);
		w = expected(data + start, i - start, want);
		FUZZ_CHECK(g == w && memcmp(got, want, g) == 0);
		start = i + 1;
	}
	FUZZ_CHECK(p < end && *p == ']' && p + 1 == end);
	free(text);
	free(want);
	free(got);
	free(buf);
	return 0;
}
